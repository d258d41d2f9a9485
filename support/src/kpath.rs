//! Small system-call wrappers for the benches beyond lmbench (lat_clock,
//! lat_poll, lat_vm, lat_uring) and their peers (`wake`, `scale`,
//! `line`): clocks, futex, CPU affinity, the open-files limit, forked
//! children, the thread count of a timed process.
//! Each is `#[inline]` and turns `-1`/errno into `io::Error`, so a timed
//! loop pays the call and a compare. Linux-only calls are `cfg`-gated.

use std::io;

use crate::sys::check;

/// `clock_gettime(clock)` through libc: glibc and musl answer the
/// monotonic and coarse clocks from the vDSO, in user space, whenever the
/// clocksource can be read there; else libc makes the system call.
#[inline]
pub fn clock_libc(clock: libc::clockid_t) -> io::Result<libc::timespec> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec to write.
    let r = unsafe { libc::clock_gettime(clock, &mut ts) };
    check(r as libc::c_long).map(|_| ts)
}

/// `clock_gettime(clock)` as a raw system call: always enters the kernel.
#[cfg(any(target_os = "linux", target_os = "android"))]
#[inline]
pub fn clock_syscall(clock: libc::clockid_t) -> io::Result<libc::timespec> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: SYS_clock_gettime writes one timespec to the pointer given.
    let r = unsafe { libc::syscall(libc::SYS_clock_gettime, clock, &mut ts as *mut _) };
    check(r).map(|_| ts)
}

/// The number of threads of this process (Linux: /proc/self/status).
/// A timed process must have one unless threads are the point: a second
/// thread moves the kernel to its shared fd-table and mm paths.
pub fn threads() -> io::Result<usize> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let status = std::fs::read_to_string("/proc/self/status")?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("Threads:"))
            .and_then(|v| v.trim().parse().ok())
            .ok_or_else(|| io::Error::other("no Threads: line in /proc/self/status"))
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    Ok(1)
}

/// Fails unless this process has exactly one thread.
pub fn require_one_thread() -> io::Result<()> {
    match threads()? {
        1 => Ok(()),
        n => Err(io::Error::other(format!(
            "the timed process has {n} threads, want 1"
        ))),
    }
}

/// The CPUs this process may run on, in order (Linux: its affinity mask;
/// elsewhere 0..available_parallelism). Its length is the suite's N.
pub fn allowed_cpus() -> io::Result<Vec<usize>> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use nix::sched::{sched_getaffinity, CpuSet};
        let set = sched_getaffinity(nix::unistd::Pid::from_raw(0))?;
        Ok((0..CpuSet::count())
            .filter(|&c| set.is_set(c).unwrap_or(false))
            .collect())
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    Ok((0..std::thread::available_parallelism()?.get()).collect())
}

/// Binds the calling thread (and what it forks afterwards) to `cpu`.
/// Outside Linux there is no portable affinity call: an error.
pub fn pin_to(cpu: usize) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use nix::sched::{sched_setaffinity, CpuSet};
        let mut set = CpuSet::new();
        set.set(cpu)
            .map_err(|_| io::Error::other(format!("cpu {cpu} out of range")))?;
        sched_setaffinity(nix::unistd::Pid::from_raw(0), &set)?;
        Ok(())
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    Err(io::Error::other(format!(
        "cannot pin to cpu {cpu}: no affinity call on this OS"
    )))
}

/// Raises the soft limit of open files to `want` (or the hard limit).
// rlim_t is u64 on Linux but i64 on the BSDs: the casts are needed there.
#[allow(clippy::unnecessary_cast)]
pub fn raise_nofile(want: u64) -> io::Result<u64> {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    let (mut cur, max) = getrlimit(Resource::RLIMIT_NOFILE)?;
    if (cur as u64) < want {
        cur = (want as libc::rlim_t).min(max);
        setrlimit(Resource::RLIMIT_NOFILE, cur, max)?;
    }
    Ok(cur as u64)
}

/// FUTEX_WAIT on `word` while it holds `expected` (no timeout). Returns
/// when woken, or at once if the word already differs (EAGAIN) or a
/// signal came (EINTR): callers re-check the word in a loop. `shared`:
/// the word lives in memory shared between processes (no PRIVATE flag).
#[cfg(any(target_os = "linux", target_os = "android"))]
#[inline]
pub fn futex_wait(
    word: &std::sync::atomic::AtomicU32,
    expected: u32,
    shared: bool,
) -> io::Result<()> {
    let op = if shared {
        libc::FUTEX_WAIT
    } else {
        libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG
    };
    // SAFETY: word is a valid, aligned u32 for the call's duration; no
    // timeout pointer.
    let r = unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            op,
            expected,
            std::ptr::null::<libc::timespec>(),
        )
    };
    match check(r) {
        Ok(_) => Ok(()),
        Err(e) if matches!(e.raw_os_error(), Some(libc::EAGAIN) | Some(libc::EINTR)) => Ok(()),
        Err(e) => Err(e),
    }
}

/// FUTEX_WAKE of up to `n` waiters on `word`; returns how many woke.
#[cfg(any(target_os = "linux", target_os = "android"))]
#[inline]
pub fn futex_wake(word: &std::sync::atomic::AtomicU32, n: i32, shared: bool) -> io::Result<usize> {
    let op = if shared {
        libc::FUTEX_WAKE
    } else {
        libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG
    };
    // SAFETY: word is a valid, aligned u32; FUTEX_WAKE reads no other memory.
    let r = unsafe { libc::syscall(libc::SYS_futex, word.as_ptr(), op, n) };
    check(r).map(|n| n as usize)
}

/// Waits until `word` holds `want`, sleeping in the kernel between
/// changes (never spinning: the point is the wake-up).
#[cfg(any(target_os = "linux", target_os = "android"))]
#[inline]
pub fn futex_await(word: &std::sync::atomic::AtomicU32, want: u32, shared: bool) -> io::Result<()> {
    use std::sync::atomic::Ordering::Acquire;
    loop {
        let v = word.load(Acquire);
        if v == want {
            return Ok(());
        }
        futex_wait(word, v, shared)?;
    }
}

/// Sets `word` to `v` and wakes every waiter.
#[cfg(any(target_os = "linux", target_os = "android"))]
#[inline]
pub fn futex_post(word: &std::sync::atomic::AtomicU32, v: u32, shared: bool) -> io::Result<()> {
    word.store(v, std::sync::atomic::Ordering::Release);
    futex_wake(word, i32::MAX, shared).map(drop)
}

/// A forked child, killed (SIGKILL) and reaped on drop.
#[derive(Debug)]
pub struct Forked(pub libc::pid_t);

impl Drop for Forked {
    fn drop(&mut self) {
        // Our own child: kill, then reap it.
        let pid = nix::unistd::Pid::from_raw(self.0);
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
        let _ = nix::sys::wait::waitpid(pid, None);
    }
}

/// Forks a child that runs `body` and `_exit`s (0 when it returns Ok),
/// never returning into the caller's code. The child gets (Linux)
/// PR_SET_PDEATHSIG, so it dies with this process.
///
/// # Safety
/// The calling process must be single-threaded (the child then may run
/// any code, allocation included).
pub unsafe fn fork_child(body: impl FnOnce() -> io::Result<()>) -> io::Result<Forked> {
    let parent = nix::unistd::getpid();
    // SAFETY: the caller's contract: single-threaded, so the child is sound.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        // Die with the parent; a parent already gone means exit at once.
        #[cfg(target_os = "linux")]
        let orphan = {
            let _ = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL);
            nix::unistd::getppid() != parent
        };
        #[cfg(not(target_os = "linux"))]
        let orphan = {
            let _ = parent;
            false
        };
        let code = if orphan {
            1
        } else {
            i32::from(body().is_err())
        };
        // SAFETY: leave the child without running the parent's exit path.
        unsafe { libc::_exit(code) };
    }
    Ok(Forked(pid))
}
