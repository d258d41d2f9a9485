//! Child processes as guards. Every child a bench starts is killed and
//! reaped when its guard drops (also during a panic's unwinding), and on
//! Linux it gets PR_SET_PDEATHSIG so it dies with a bench that is killed
//! outright. Nothing a bench starts outlives it.

use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

#[cfg(any(target_os = "linux", target_os = "android"))]
use nix::sys::{prctl::set_pdeathsig, signal::Signal};

/// How long a peer may take to answer one request before the bench fails.
/// Generous: a request may run a whole timed interval (seconds) first.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(60);

/// Arranges for the child of `cmd` to be killed when this process dies.
pub fn die_with_parent(cmd: &mut Command) -> &mut Command {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: the closure runs between fork and exec and makes only
        // prctl(2), an async-signal-safe system call.
        unsafe {
            cmd.pre_exec(|| Ok(set_pdeathsig(Signal::SIGKILL)?));
        }
    }
    cmd
}

/// Makes this process die (SIGKILL) when its parent does: a bench binary
/// calls it first, so killing `cargo bench` or `lmbench run` (which passes
/// the same to cargo) takes the bench, and through its guards its peers,
/// with it. A no-op outside Linux.
pub fn die_with_parent_self() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let _ = set_pdeathsig(Signal::SIGKILL);
}

/// A child process killed (SIGKILL) and reaped on drop.
#[derive(Debug)]
pub struct ChildGuard {
    child: Child,
}

impl ChildGuard {
    /// Spawns `cmd` so that it dies with us and is reaped by the guard.
    pub fn spawn(cmd: &mut Command) -> io::Result<ChildGuard> {
        let child = die_with_parent(cmd).spawn()?;
        Ok(ChildGuard { child })
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Waits up to `timeout` for the child to exit by itself; kills it if it
    /// does not. Returns its status either way.
    pub fn wait_timeout(&mut self, timeout: Duration) -> io::Result<std::process::ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Ok(status);
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                return self.child.wait();
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        // Already exited children make kill fail harmlessly; wait reaps.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A helper process (`lmbench-peer MODE ...`) spoken to in lines over its
/// stdin and stdout: each request is one line, each reply `ok PAYLOAD` or
/// `err MESSAGE`.
#[derive(Debug)]
pub struct Peer {
    // Field order: the pipes close before the guard kills and reaps.
    stdin: ChildStdin,
    stdout: ChildStdout,
    pending: Vec<u8>,
    /// Nanoseconds per operation of the last timed request, which scales
    /// the next one's timeout ([`call_timed`](Self::call_timed)).
    ns_per_op: Option<f64>,
    guard: ChildGuard,
}

/// What a timed request may take beyond ten times its expected duration.
pub const TIMED_SLACK: Duration = Duration::from_secs(10);

impl Peer {
    /// Starts `program args...` with piped stdin/stdout (stderr inherited, so
    /// a peer's complaint reaches the terminal).
    pub fn spawn(program: &str, args: &[&str]) -> io::Result<Peer> {
        let mut cmd = Command::new(program);
        cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped());
        let mut guard = ChildGuard::spawn(&mut cmd)
            .map_err(|e| io::Error::new(e.kind(), format!("starting {program}: {e}")))?;
        let child = guard.child_mut();
        let stdin = child.stdin.take().expect("stdin was piped");
        let stdout = child.stdout.take().expect("stdout was piped");
        Ok(Peer {
            stdin,
            stdout,
            pending: Vec::new(),
            ns_per_op: None,
            guard,
        })
    }

    pub fn pid(&self) -> u32 {
        self.guard.id()
    }

    /// Sends one request line and returns the payload of the `ok` reply.
    /// A dead, silent (past `timeout`) or complaining peer is an error.
    pub fn call(&mut self, request: &str, timeout: Duration) -> io::Result<String> {
        writeln!(self.stdin, "{request}")?;
        self.stdin.flush()?;
        let line = self.read_line(timeout)?;
        if let Some(payload) = line.strip_prefix("ok") {
            Ok(payload.trim().to_string())
        } else if let Some(msg) = line.strip_prefix("err") {
            Err(io::Error::other(format!("peer: {}", msg.trim())))
        } else {
            Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("peer replied {line:?} to {request:?}"),
            ))
        }
    }

    /// Like [`call`](Self::call), parsing the payload as an integer.
    pub fn call_u64(&mut self, request: &str, timeout: Duration) -> io::Result<u64> {
        let payload = self.call(request, timeout)?;
        payload.parse().map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("peer replied {payload:?} to {request:?}, want a number"),
            )
        })
    }

    /// A request that times `ops` operations in the peer and replies their
    /// nanoseconds. Its timeout follows the work asked: ten times what the
    /// last timed request's rate predicts, plus [`TIMED_SLACK`] (before any
    /// rate is known, [`REPLY_TIMEOUT`]). So a peer that stops answering
    /// fails the bench within seconds, while a long sample still has all
    /// the time it needs.
    pub fn call_timed(&mut self, request: &str, ops: u64) -> io::Result<u64> {
        let timeout = match self.ns_per_op {
            Some(ns) => {
                TIMED_SLACK + Duration::from_secs_f64((ns * ops as f64 * 10.0 / 1e9).min(1e6))
            }
            None => REPLY_TIMEOUT,
        };
        let ns = self.call_u64(request, timeout)?;
        if ops > 0 {
            self.ns_per_op = Some(ns as f64 / ops as f64);
        }
        Ok(ns)
    }

    fn read_line(&mut self, timeout: Duration) -> io::Result<String> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(pos) = self.pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=pos).collect();
                return Ok(String::from_utf8_lossy(&line[..pos]).into_owned());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || !wait_readable(&self.stdout, left)? {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("peer {} did not answer within {timeout:?}", self.pid()),
                ));
            }
            let mut buf = [0u8; 256];
            let n = crate::sys::read(self.stdout.as_raw_fd(), &mut buf)?;
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("peer {} exited", self.pid()),
                ));
            }
            self.pending.extend_from_slice(&buf[..n]);
        }
    }
}

/// poll(2) for readability; false on timeout. EINTR is retried.
pub fn wait_readable(fd: impl std::os::fd::AsFd, timeout: Duration) -> io::Result<bool> {
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
    let timeout = PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX);
    loop {
        let mut pfd = [PollFd::new(fd.as_fd(), PollFlags::POLLIN)];
        match poll(&mut pfd, timeout) {
            Ok(n) => return Ok(n > 0),
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// True if a process with this pid exists (and is not yet reaped).
pub fn alive(pid: u32) -> bool {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as libc::pid_t), None).is_ok()
}

/// This process bound to one CPU (the last it may run on) until dropped,
/// when its previous CPU set comes back. Children started meanwhile
/// inherit the binding: a bench and its peer then share that CPU, so a
/// round trip is two switches on one CPU, not a wake-up on another
/// (on a VM the latter is a placement lottery). Linux only.
pub struct OneCpu {
    #[cfg(target_os = "linux")]
    prev: nix::sched::CpuSet,
    pub cpu: usize,
}

impl OneCpu {
    #[cfg(target_os = "linux")]
    pub fn pin() -> io::Result<OneCpu> {
        use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
        let me = nix::unistd::Pid::from_raw(0);
        let prev = sched_getaffinity(me)?;
        let cpu = (0..CpuSet::count())
            .rev()
            .find(|&c| prev.is_set(c).unwrap_or(false))
            .ok_or_else(|| io::Error::other("empty CPU affinity mask"))?;
        let mut one = CpuSet::new();
        one.set(cpu)?;
        sched_setaffinity(me, &one)?;
        Ok(OneCpu { prev, cpu })
    }

    #[cfg(not(target_os = "linux"))]
    pub fn pin() -> io::Result<OneCpu> {
        Err(io::Error::other(
            "pinning to one CPU is implemented on Linux only",
        ))
    }
}

impl Drop for OneCpu {
    fn drop(&mut self) {
        // Restoring the set sched_getaffinity gave us.
        #[cfg(target_os = "linux")]
        let _ = nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), &self.prev);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_kills_and_reaps() {
        let guard = ChildGuard::spawn(Command::new("sleep").arg("30")).unwrap();
        let pid = guard.id();
        assert!(alive(pid));
        drop(guard);
        assert!(!alive(pid), "child {pid} survived its guard");
    }

    #[test]
    fn silent_peer_times_out() {
        // `cat` echoes, but never says "ok": use `sleep` as a peer that never answers.
        let mut peer = Peer::spawn("sleep", &["30"]).unwrap();
        let err = peer.call("hello", Duration::from_millis(100)).unwrap_err();
        assert!(err.kind() == io::ErrorKind::TimedOut || err.kind() == io::ErrorKind::BrokenPipe);
    }

    #[test]
    fn dead_peer_is_an_error() {
        let mut peer = Peer::spawn("true", &[]).unwrap();
        std::thread::sleep(Duration::from_millis(50));
        assert!(peer.call("hello", Duration::from_secs(5)).is_err());
    }

    #[test]
    fn replies_are_parsed() {
        let mut peer = Peer::spawn(
            "sh",
            &["-c", "read x; echo ok 42; read y; echo err no such mode"],
        )
        .unwrap();
        assert_eq!(peer.call_u64("a", Duration::from_secs(5)).unwrap(), 42);
        let err = peer.call("b", Duration::from_secs(5)).unwrap_err();
        assert!(err.to_string().contains("no such mode"));
    }
}
