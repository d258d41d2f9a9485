//! `lmbench-peer floor FILE`: the floors of the suite's metrics, as plain
//! loops in this small process (see `catalog::floor`). Each request is
//! `OP N [ARG]`: set up (untimed), read the clock, run N bare operations,
//! read the clock, tear down, reply the nanoseconds. No closure of a
//! harness, no sample bookkeeping, no second thread: what a C loop would
//! do. FILE is the 1-byte scratch file of stat, fstat, open and select;
//! the bench owns it (so it is removed even if the bench panics) and
//! passes it in argv, where any path fits. `chase N SHAPE SIZE` is the
//! memory floor: N loads of a random chain (see [`chase`]).
//!
//! Single-threaded by construction: nothing here starts a thread. With
//! `LMBENCH_CHECK_THREADS=1` (inherited from the bench) every request
//! also counts `/proc/self/task` before and after its loop and fails if
//! it is not 1, as the harness does for the bench's own timed calls.
//!
//! Written against libc directly rather than `crate::sys`, so a change to
//! the wrappers the benches use moves the metric but not its floor. The
//! raw calls are gathered in [`raw`]: small `#[inline(always)]` functions,
//! each one bare libc call that returns what the kernel returned, so every
//! floor loop compiles to the call and a compare. Set-up and tear-down
//! outside the timed loops (opening, pipes, killing the echo child) go
//! through `nix`.

pub mod chase;

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use nix::fcntl::OFlag;
use nix::sys::signal::{kill, Signal};
use nix::sys::stat::Mode;
use nix::sys::wait::waitpid;
use nix::unistd::Pid;

use crate::sys;

/// The floors' system calls, bare. Each returns the kernel's answer as
/// libc does (-1 and errno on failure); [`ok`] and [`exactly_one`] turn
/// that into a `Result` at the call site, off the success path's way.
mod raw;

pub fn main(args: &[String]) -> io::Result<()> {
    let [file] = args else {
        return Err(io::Error::other(format!(
            "want one argument, the scratch file; got {args:?}"
        )));
    };
    let mut floor = Floor {
        file: cstr(file)?,
        check_threads: std::env::var_os("LMBENCH_CHECK_THREADS").is_some_and(|v| v == "1"),
        pipe: None,
        unix: None,
        chase: None,
    };
    super::serve(|words| floor.request(words))
    // `floor` drops here: the echo children are killed and reaped.
}

fn cstr(s: &str) -> io::Result<CString> {
    CString::new(s).map_err(|_| io::Error::other(format!("NUL in {s:?}")))
}

struct Floor {
    file: CString,
    check_threads: bool,
    /// Echo children, started by the first request that needs them and
    /// kept: a round trip's floor talks to a warm peer, as the bench does.
    pipe: Option<Echo>,
    unix: Option<Echo>,
    /// The last memory chain asked for, built by its first request
    /// (seconds at 1 GiB) and kept for the samples that follow.
    chase: Option<chase::Chase>,
}

impl Floor {
    fn request(&mut self, words: &[&str]) -> io::Result<String> {
        let bad = || io::Error::other(format!("bad request {words:?}"));
        let (op, n, rest) = match words {
            [op, n, rest @ ..] => (*op, n.parse::<u64>().map_err(|_| bad())?, rest),
            _ => return Err(bad()),
        };
        self.one_thread(op)?;
        let ns = match (op, rest) {
            ("null", []) => null(n),
            ("read", []) => self.on_fd(c"/dev/zero", OFlag::O_RDONLY, n, read1),
            ("write", []) => self.on_fd(c"/dev/null", OFlag::O_WRONLY, n, write1),
            ("stat", []) => stat(&self.file, n),
            ("fstat", []) => self.on_fd(&self.file, OFlag::O_RDONLY, n, fstat),
            ("open", []) => open_close(&self.file, n),
            ("select", [count]) => select(&self.file, count.parse().map_err(|_| bad())?, n),
            ("pipe", []) => round_trips(&mut self.pipe, Echo::pipe, n),
            ("unix", []) => round_trips(&mut self.unix, Echo::unix, n),
            ("fork", []) => spawns(None, n),
            ("exec", [path]) => spawns(Some(&cstr(path)?), n),
            ("chase", [shape, size]) => self.chase(shape, size, n),
            _ => return Err(bad()),
        }
        .map_err(|e| io::Error::new(e.kind(), format!("floor {op}: {e}")))?;
        self.one_thread(op)?;
        Ok(ns.to_string())
    }

    fn one_thread(&self, op: &str) -> io::Result<()> {
        if !self.check_threads {
            return Ok(());
        }
        match std::fs::read_dir("/proc/self/task").map(|d| d.count()) {
            Ok(1) | Err(_) => Ok(()),
            Ok(t) => Err(io::Error::other(format!(
                "floor {op}: {t} threads in the timed process (one expected)"
            ))),
        }
    }

    /// `n` loads of memory chain `shape` over `size` (a size token such
    /// as `1g`), built on first use; a request for another chain frees
    /// this one first.
    fn chase(&mut self, shape: &str, size: &str, n: u64) -> io::Result<u64> {
        use chase::Chase;
        let size = crate::size::parse(size)
            .ok()
            .and_then(|s| usize::try_from(s).ok())
            .ok_or_else(|| io::Error::other(format!("bad chase size {size:?}")))?;
        if !self.chase.as_ref().is_some_and(|c| c.is(shape, size)) {
            self.chase = None;
            self.chase = Some(Chase::build(shape, size)?);
        }
        Ok(self.chase.as_mut().expect("built above").timed(n))
    }

    /// Opens `path` (untimed), times `op` on the fd, closes it.
    fn on_fd(
        &self,
        path: &CStr,
        flags: OFlag,
        n: u64,
        // Generic, not a `fn` pointer: the floor's loop must inline the
        // operation, not make an indirect call per iteration.
        op: impl Fn(RawFd) -> io::Result<()>,
    ) -> io::Result<u64> {
        let fd = open_owned(path, flags)?;
        let raw = fd.as_raw_fd();
        op(raw)?; // checked once before timing
        bare(n, || op(raw))
    }
}

/// `path` opened close-on-exec (set-up, untimed).
fn open_owned(path: &CStr, flags: OFlag) -> io::Result<OwnedFd> {
    Ok(nix::fcntl::open(
        path,
        flags | OFlag::O_CLOEXEC,
        Mode::empty(),
    )?)
}

/// The loop every floor is: the clock, N operations each checked (the
/// error built only on failure), the clock.
#[inline(always)]
fn bare(n: u64, mut op: impl FnMut() -> io::Result<()>) -> io::Result<u64> {
    let start = sys::now_ns();
    for _ in 0..n {
        op()?;
    }
    Ok(sys::now_ns() - start)
}

/// A negative return as errno.
#[inline(always)]
fn ok(ret: libc::c_long) -> io::Result<libc::c_long> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(ret)
    }
}

fn null(n: u64) -> io::Result<u64> {
    bare(n, || ok(raw::getppid()).map(drop))
}

#[inline(always)]
fn exactly_one(r: isize, what: &str) -> io::Result<()> {
    if r == 1 {
        Ok(())
    } else {
        Err(not_one(r, what))
    }
}

/// The failure of `exactly_one`, out of line: with the formatting inlined,
/// the per-operation code grew past what the compiler inlines into the
/// loop, and floor/read timed a call per iteration plus kernel branch
/// mispredictions that the C loop does not have (read 1.07x a C loop).
#[cold]
#[inline(never)]
fn not_one(r: isize, what: &str) -> io::Error {
    if r < 0 {
        io::Error::last_os_error()
    } else {
        io::Error::other(format!("{what} returned {r}, want 1"))
    }
}

#[inline(always)]
fn read1(fd: RawFd) -> io::Result<()> {
    let mut b = [0u8; 1];
    exactly_one(raw::read(fd, &mut b), "read")
}

#[inline(always)]
fn write1(fd: RawFd) -> io::Result<()> {
    exactly_one(raw::write(fd, b"x"), "write")
}

#[inline(always)]
fn fstat(fd: RawFd) -> io::Result<()> {
    let mut st = raw::zeroed_stat();
    ok(raw::fstat(fd, &mut st) as libc::c_long).map(drop)
}

fn stat(path: &CStr, n: u64) -> io::Result<u64> {
    let mut st = raw::zeroed_stat();
    ok(raw::stat(path, &mut st) as libc::c_long)?;
    bare(n, || ok(raw::stat(path, &mut st) as libc::c_long).map(drop))
}

fn open_close(path: &CStr, n: u64) -> io::Result<u64> {
    let once = || -> io::Result<()> {
        let fd = ok(raw::open(path, libc::O_RDONLY) as libc::c_long)?;
        ok(raw::close(fd as RawFd) as libc::c_long).map(drop)
    };
    once()?;
    bare(n, once)
}

/// lat_select's file case: `count` dups of the file opened read-only in
/// a write set, select on a copy with a zero timeout, all must be ready.
fn select(path: &CStr, count: usize, n: u64) -> io::Result<u64> {
    let file = open_owned(path, OFlag::O_RDONLY)?;
    let dups: Vec<OwnedFd> = (0..count)
        .map(|_| file.try_clone())
        .collect::<io::Result<_>>()?;
    let raws: Vec<RawFd> = dups.iter().map(|d| d.as_raw_fd()).collect();
    if let Some(&d) = raws.iter().find(|&&d| d as usize >= libc::FD_SETSIZE) {
        return Err(io::Error::other(format!("fd {d} is beyond FD_SETSIZE")));
    }
    let set = raw::fd_set(&raws);
    let nfds = raws.iter().map(|&d| d + 1).max().unwrap_or(0);
    let once = || -> io::Result<()> {
        let mut w = set;
        match raw::select_write(nfds, &mut w) {
            r if r == count as libc::c_int => Ok(()),
            r => Err(not_ready(r, count)),
        }
    };
    once()?;
    let ns = bare(n, once);
    drop(dups);
    ns
}

/// select's failure, out of line (see `not_one`).
#[cold]
#[inline(never)]
fn not_ready(r: libc::c_int, count: usize) -> io::Error {
    if r < 0 {
        io::Error::last_os_error()
    } else {
        io::Error::other(format!("{r} of {count} ready"))
    }
}

/// A forked child that echoes single bytes from `r` to `w` until EOF,
/// and our ends of the two directions. Killed and reaped on drop.
struct Echo {
    w: OwnedFd,
    r: OwnedFd,
    pid: Pid,
}

impl Echo {
    /// Two pipes, as lat_pipe.
    fn pipe() -> io::Result<Echo> {
        let (req_r, req_w) = nix::unistd::pipe()?;
        let (ans_r, ans_w) = nix::unistd::pipe()?;
        Echo::start(req_w, ans_r, req_r, ans_w)
    }

    /// One AF_UNIX stream socketpair, as lat_unix.
    fn unix() -> io::Result<Echo> {
        use nix::sys::socket::{socketpair, AddressFamily, SockFlag, SockType};
        let (ours, theirs) = socketpair(
            AddressFamily::Unix,
            SockType::Stream,
            None,
            SockFlag::SOCK_CLOEXEC,
        )?;
        let ours2 = ours.try_clone()?;
        let theirs2 = theirs.try_clone()?;
        Echo::start(ours, ours2, theirs, theirs2)
    }

    /// Forks the echo child on `(child_r, child_w)`; we keep `(w, r)`.
    fn start(w: OwnedFd, r: OwnedFd, child_r: OwnedFd, child_w: OwnedFd) -> io::Result<Echo> {
        let (cr, cw) = (child_r.as_raw_fd(), child_w.as_raw_fd());
        let (pw, pr) = (w.as_raw_fd(), r.as_raw_fd());
        let pid = raw::fork();
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            echo_child(cr, cw, [0, 1, pw, pr]);
        }
        drop((child_r, child_w));
        let echo = Echo {
            w,
            r,
            pid: Pid::from_raw(pid),
        };
        echo.round_trip(0)?; // checked once before timing
        Ok(echo)
    }

    #[inline(always)]
    fn round_trip(&self, seq: u8) -> io::Result<()> {
        let mut b = [seq];
        exactly_one(raw::write(self.w.as_raw_fd(), &b), "write")?;
        exactly_one(raw::read(self.r.as_raw_fd(), &mut b), "read")?;
        if b[0] != seq {
            return Err(io::Error::other(format!("echo {} for {seq}", b[0])));
        }
        Ok(())
    }
}

/// The echo child's life: plain system calls on its own fds, ending in
/// `_exit` (no destructors run twice). Our stdin/stdout are the bench's
/// pipes and `close` are the parent's ends: not ours to hold open.
fn echo_child(r: RawFd, w: RawFd, close: [RawFd; 4]) -> ! {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let _ = nix::sys::prctl::set_pdeathsig(Signal::SIGKILL);
    for fd in close {
        raw::close(fd);
    }
    let mut b = [0u8; 1];
    loop {
        match raw::read(r, &mut b) {
            1 => {
                if raw::write(w, &b) != 1 {
                    raw::exit(1);
                }
            }
            0 => raw::exit(0),
            _ if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
            _ => raw::exit(1),
        }
    }
}

impl Drop for Echo {
    fn drop(&mut self) {
        let _ = kill(self.pid, Signal::SIGKILL);
        let _ = waitpid(self.pid, None);
    }
}

/// N round trips of one byte (the low byte of a counter, checked).
fn round_trips(
    echo: &mut Option<Echo>,
    start: fn() -> io::Result<Echo>,
    n: u64,
) -> io::Result<u64> {
    if echo.is_none() {
        *echo = Some(start()?);
    }
    let e = echo.as_ref().expect("started above");
    let mut seq = 0u8;
    bare(n, || {
        seq = seq.wrapping_add(1);
        e.round_trip(seq)
    })
}

/// N times: fork; the child `exit(0)`s, or (stdout on /dev/null) execve(2)s
/// `exec` with an empty environment; the parent waits and checks status 0.
/// The same loop as `peer::proc`'s on purpose, not a call to it: a floor
/// must not share the code it judges.
fn spawns(exec: Option<&CString>, n: u64) -> io::Result<u64> {
    let devnull = open_owned(c"/dev/null", OFlag::O_WRONLY)?;
    let dn = devnull.as_raw_fd();
    // argv and envp built before timing: the child only execs or exits.
    let path = exec.map_or(std::ptr::null(), |p| p.as_ptr());
    let argv = [path, std::ptr::null()];
    let envp: [*const libc::c_char; 1] = [std::ptr::null()];
    let once = || -> io::Result<()> {
        let pid = raw::fork();
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            if !path.is_null() {
                raw::exec(dn, path, &argv, &envp);
            }
            // The C library's exit(3), as lmbench's child and the bench's.
            // SAFETY: this process is single-threaded and registers no
            // atexit handler; exit never returns.
            unsafe { libc::exit(0) };
        }
        let mut status = 0;
        ok(raw::waitpid(pid, &mut status) as libc::c_long)?;
        if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
            Ok(())
        } else {
            Err(io::Error::other(format!(
                "child {pid} failed (wait status {status:#x})"
            )))
        }
    };
    once()?;
    bare(n, once)
}
