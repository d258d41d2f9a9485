//! `lmbench-peer floor FILE`: the floors of the suite's metrics, as plain
//! loops in this small process (see `catalog::floor`). Each request is
//! `OP N [ARG]`: set up (untimed), read the clock, run N bare operations,
//! read the clock, tear down, reply the nanoseconds. No closure of a
//! harness, no sample bookkeeping, no second thread: what a C loop would
//! do. FILE is the 1-byte scratch file of stat, fstat, open and select;
//! the bench owns it (so it is removed even if the bench panics) and
//! passes it in argv, where any path fits.
//!
//! Single-threaded by construction: nothing here starts a thread. With
//! `LMBENCH_CHECK_THREADS=1` (inherited from the bench) every request
//! also counts `/proc/self/task` before and after its loop and fails if
//! it is not 1, as the harness does for the bench's own timed calls.
//!
//! Written against libc directly rather than `crate::sys`, so a change to
//! the wrappers the benches use moves the metric but not its floor.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use crate::sys;

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
            ("read", []) => self.on_fd(c"/dev/zero", libc::O_RDONLY, n, read1),
            ("write", []) => self.on_fd(c"/dev/null", libc::O_WRONLY, n, write1),
            ("stat", []) => stat(&self.file, n),
            ("fstat", []) => self.on_fd(&self.file, libc::O_RDONLY, n, fstat),
            ("open", []) => open_close(&self.file, n),
            ("select", [count]) => select(&self.file, count.parse().map_err(|_| bad())?, n),
            ("pipe", []) => round_trips(&mut self.pipe, Echo::pipe, n),
            ("unix", []) => round_trips(&mut self.unix, Echo::unix, n),
            ("fork", []) => spawns(None, n),
            ("exec", [path]) => spawns(Some(&cstr(path)?), n),
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

    /// Opens `path` (untimed), times `op` on the fd, closes it.
    fn on_fd(
        &self,
        path: &std::ffi::CStr,
        flags: libc::c_int,
        n: u64,
        // Generic, not a `fn` pointer: the floor's loop must inline the
        // operation, not make an indirect call per iteration.
        op: impl Fn(RawFd) -> io::Result<()>,
    ) -> io::Result<u64> {
        // SAFETY: path is NUL-terminated.
        let fd = unsafe { libc::open(path.as_ptr(), flags | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fd is a fresh descriptor we own.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let raw = fd.as_raw_fd();
        op(raw)?; // checked once before timing
        bare(n, || op(raw))
    }
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
    bare(n, || {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        // SAFETY: SYS_getppid takes no arguments.
        let r = unsafe { libc::syscall(libc::SYS_getppid) };
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        // SAFETY: getppid takes no arguments (not cached on BSD or macOS).
        let r = unsafe { libc::getppid() } as libc::c_long;
        ok(r).map(drop)
    })
}

#[inline(always)]
fn exactly_one(r: isize, what: &str) -> io::Result<()> {
    match r {
        1 => Ok(()),
        r if r < 0 => Err(io::Error::last_os_error()),
        r => Err(io::Error::other(format!("{what} returned {r}, want 1"))),
    }
}

#[inline(always)]
fn read1(fd: RawFd) -> io::Result<()> {
    let mut b = [0u8; 1];
    // SAFETY: b is valid for one byte.
    exactly_one(unsafe { libc::read(fd, b.as_mut_ptr().cast(), 1) }, "read")
}

#[inline(always)]
fn write1(fd: RawFd) -> io::Result<()> {
    // SAFETY: the byte is valid for reading.
    exactly_one(unsafe { libc::write(fd, b"x".as_ptr().cast(), 1) }, "write")
}

#[inline(always)]
fn fstat(fd: RawFd) -> io::Result<()> {
    // SAFETY: a zeroed stat is a valid buffer for fstat to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: st is a valid buffer.
    ok(unsafe { libc::fstat(fd, &mut st) } as libc::c_long).map(drop)
}

fn stat(path: &CString, n: u64) -> io::Result<u64> {
    // SAFETY: a zeroed stat is a valid buffer for stat to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let p = path.as_ptr();
    // SAFETY (both calls): p is NUL-terminated, st a valid buffer.
    ok(unsafe { libc::stat(p, &mut st) } as libc::c_long)?;
    bare(n, || {
        ok(unsafe { libc::stat(p, &mut st) } as libc::c_long).map(drop)
    })
}

fn open_close(path: &CString, n: u64) -> io::Result<u64> {
    let p = path.as_ptr();
    let once = || -> io::Result<()> {
        // SAFETY: p is NUL-terminated; the fd is closed at once.
        let fd = ok(unsafe { libc::open(p, libc::O_RDONLY) } as libc::c_long)?;
        // SAFETY: fd is ours.
        ok(unsafe { libc::close(fd as RawFd) } as libc::c_long).map(drop)
    };
    once()?;
    bare(n, once)
}

/// lat_select's file case: `count` dups of the file opened read-only in
/// a write set, select on a copy with a zero timeout, all must be ready.
fn select(path: &CString, count: usize, n: u64) -> io::Result<u64> {
    // SAFETY: path is NUL-terminated.
    let fd =
        ok(unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) } as libc::c_long)?;
    // SAFETY: fd is a fresh descriptor we own.
    let file = unsafe { OwnedFd::from_raw_fd(fd as RawFd) };
    // SAFETY: a zeroed fd_set is valid; FD_ZERO makes it empty.
    let mut set: libc::fd_set = unsafe { std::mem::zeroed() };
    // SAFETY: set is a valid fd_set.
    unsafe { libc::FD_ZERO(&mut set) };
    let mut dups = Vec::with_capacity(count);
    let mut nfds = 0;
    for _ in 0..count {
        // SAFETY: F_DUPFD_CLOEXEC returns a new descriptor we own.
        let d =
            ok(unsafe { libc::fcntl(file.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 0) } as libc::c_long)?
                as RawFd;
        // SAFETY: d is fresh and ours.
        dups.push(unsafe { OwnedFd::from_raw_fd(d) });
        if d as usize >= libc::FD_SETSIZE {
            return Err(io::Error::other(format!("fd {d} is beyond FD_SETSIZE")));
        }
        // SAFETY: d < FD_SETSIZE.
        unsafe { libc::FD_SET(d, &mut set) };
        nfds = nfds.max(d + 1);
    }
    let once = || -> io::Result<()> {
        let mut w = set;
        let mut tv = libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        };
        let null = std::ptr::null_mut();
        // SAFETY: w and tv are valid; null read and except sets are allowed.
        let r = unsafe { libc::select(nfds, null, &mut w, null, &mut tv) };
        match r {
            r if r == count as libc::c_int => Ok(()),
            r if r < 0 => Err(io::Error::last_os_error()),
            r => Err(io::Error::other(format!("{r} of {count} ready"))),
        }
    };
    once()?;
    let ns = bare(n, once);
    drop(dups);
    ns
}

/// A forked child that echoes single bytes from `r` to `w` until EOF,
/// and our ends of the two directions. Killed and reaped on drop.
struct Echo {
    w: OwnedFd,
    r: OwnedFd,
    pid: libc::pid_t,
}

impl Echo {
    /// Two pipes, as lat_pipe.
    fn pipe() -> io::Result<Echo> {
        let (req_r, req_w) = pipe()?;
        let (ans_r, ans_w) = pipe()?;
        Echo::start(req_w, ans_r, req_r, ans_w)
    }

    /// One AF_UNIX stream socketpair, as lat_unix.
    fn unix() -> io::Result<Echo> {
        let mut sv = [0; 2];
        // SAFETY: sv has room for the two descriptors.
        ok(unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
                0,
                sv.as_mut_ptr(),
            )
        } as libc::c_long)?;
        // SAFETY: both are fresh descriptors we own; the dup is ours too.
        let (ours, theirs) = unsafe { (OwnedFd::from_raw_fd(sv[0]), OwnedFd::from_raw_fd(sv[1])) };
        let ours2 = ours.try_clone()?;
        let theirs2 = theirs.try_clone()?;
        Echo::start(ours, ours2, theirs, theirs2)
    }

    /// Forks the echo child on `(child_r, child_w)`; we keep `(w, r)`.
    /// This process is single-threaded, so the child may run any code.
    fn start(w: OwnedFd, r: OwnedFd, child_r: OwnedFd, child_w: OwnedFd) -> io::Result<Echo> {
        let (cr, cw) = (child_r.as_raw_fd(), child_w.as_raw_fd());
        let (pw, pr) = (w.as_raw_fd(), r.as_raw_fd());
        // SAFETY: single-threaded process (see above).
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            // SAFETY: in the child: plain system calls on our own fds,
            // ending in _exit (no destructors run twice).
            unsafe {
                #[cfg(any(target_os = "linux", target_os = "android"))]
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
                // Our stdin/stdout are the bench's pipes; the parent's
                // ends are not ours to hold open.
                for fd in [0, 1, pw, pr] {
                    libc::close(fd);
                }
                let mut b = [0u8; 1];
                loop {
                    match libc::read(cr, b.as_mut_ptr().cast(), 1) {
                        1 => {
                            if libc::write(cw, b.as_ptr().cast(), 1) != 1 {
                                libc::_exit(1);
                            }
                        }
                        0 => libc::_exit(0),
                        _ if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
                        _ => libc::_exit(1),
                    }
                }
            }
        }
        drop((child_r, child_w));
        let echo = Echo { w, r, pid };
        echo.round_trip(0)?; // checked once before timing
        Ok(echo)
    }

    #[inline(always)]
    fn round_trip(&self, seq: u8) -> io::Result<()> {
        let mut b = [seq];
        // SAFETY: b is valid for one byte both ways.
        exactly_one(
            unsafe { libc::write(self.w.as_raw_fd(), b.as_ptr().cast(), 1) },
            "write",
        )?;
        // SAFETY: as above.
        exactly_one(
            unsafe { libc::read(self.r.as_raw_fd(), b.as_mut_ptr().cast(), 1) },
            "read",
        )?;
        if b[0] != seq {
            return Err(io::Error::other(format!("echo {} for {seq}", b[0])));
        }
        Ok(())
    }
}

impl Drop for Echo {
    fn drop(&mut self) {
        let mut status = 0;
        // SAFETY: our own child; status is a valid int.
        unsafe {
            libc::kill(self.pid, libc::SIGKILL);
            libc::waitpid(self.pid, &mut status, 0);
        }
    }
}

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut p = [0; 2];
    // SAFETY: p has room for the two descriptors.
    ok(unsafe { libc::pipe(p.as_mut_ptr()) } as libc::c_long)?;
    // SAFETY: fresh descriptors we own.
    Ok(unsafe { (OwnedFd::from_raw_fd(p[0]), OwnedFd::from_raw_fd(p[1])) })
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

/// N times: fork; the child `_exit(0)`s, or (stdout on /dev/null) execve(2)s
/// `exec` with an empty environment; the parent waits and checks status 0.
/// The same loop as `peer::proc`'s on purpose, not a call to it: a floor
/// must not share the code it judges (duplicates D1 is deliberate).
fn spawns(exec: Option<&CString>, n: u64) -> io::Result<u64> {
    // SAFETY: the path is NUL-terminated.
    let devnull = ok(
        unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) }
            as libc::c_long,
    )? as RawFd;
    // SAFETY: fresh, ours.
    let devnull = unsafe { OwnedFd::from_raw_fd(devnull) };
    let dn = devnull.as_raw_fd();
    // argv and envp built before timing: the child only execs or exits.
    let path = exec.map_or(std::ptr::null(), |p| p.as_ptr());
    let argv = [path, std::ptr::null()];
    let envp: [*const libc::c_char; 1] = [std::ptr::null()];
    let once = || -> io::Result<()> {
        // SAFETY: single-threaded process; the child makes only
        // async-signal-safe calls (dup2, execve, _exit).
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            // SAFETY: in the child; argv and envp are NULL-terminated
            // arrays of valid strings.
            unsafe {
                if !path.is_null() {
                    libc::dup2(dn, 1);
                    libc::execve(path, argv.as_ptr(), envp.as_ptr());
                    libc::_exit(127);
                }
                libc::_exit(0);
            }
        }
        let mut status = 0;
        // SAFETY: our own child; status is a valid int.
        ok(unsafe { libc::waitpid(pid, &mut status, 0) } as libc::c_long)?;
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
