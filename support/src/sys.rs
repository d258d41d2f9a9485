//! The raw system calls whose cost is a metric (lmbench's "null" call,
//! null I/O, stat, fstat, open/close, signal install and send): each is
//! `#[inline]`, on a plain `RawFd` or `&CStr`, so a timed loop costs the
//! syscall and a compare, nothing more (no path conversion, no owned fd
//! closed behind the caller's back). `-1`/errno becomes an error through
//! `nix::errno::Errno`. Everything else goes through `nix` and `socket2`.

use std::ffi::CStr;
use std::io;
use std::os::fd::RawFd;

use nix::errno::Errno;

/// A raw call's return value, or errno as an error when it is -1.
#[inline(always)]
pub(crate) fn check<T: nix::errno::ErrnoSentinel + PartialEq<T>>(ret: T) -> io::Result<T> {
    Errno::result(ret).map_err(io::Error::from)
}

/// `getppid` as a raw system call. glibc has never cached getppid, but other
/// libcs may: lmbench's "null call" must enter the kernel every time.
#[inline]
pub fn getppid_raw() -> io::Result<libc::pid_t> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    // SAFETY: SYS_getppid takes no arguments and touches no memory.
    let ret = unsafe { libc::syscall(libc::SYS_getppid) };
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    // SAFETY: getppid takes no arguments; the BSDs and macOS do not cache it.
    let ret = unsafe { libc::getppid() } as libc::c_long;
    check(ret).map(|r| r as libc::pid_t)
}

/// `read(2)` into `buf`; returns the byte count.
#[inline]
pub fn read(fd: RawFd, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: buf is valid for writes of buf.len() bytes.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    check(n).map(|n| n as usize)
}

/// `write(2)` of `buf`; returns the byte count.
#[inline]
pub fn write(fd: RawFd, buf: &[u8]) -> io::Result<usize> {
    // SAFETY: buf is valid for reads of buf.len() bytes.
    let n = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
    check(n).map(|n| n as usize)
}

/// `stat(2)` of a path, result discarded (the cost is the point).
#[inline]
pub fn stat(path: &CStr) -> io::Result<()> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: path is NUL-terminated; st is valid for one struct stat.
    let r = unsafe { libc::stat(path.as_ptr(), st.as_mut_ptr()) };
    check(r).map(drop)
}

/// `fstat(2)` of an fd, result discarded.
#[inline]
pub fn fstat(fd: RawFd) -> io::Result<()> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: st is valid for one struct stat.
    let r = unsafe { libc::fstat(fd, st.as_mut_ptr()) };
    check(r).map(drop)
}

/// `open(2)` with flags; the caller owns (and must close) the fd.
#[inline]
pub fn open(path: &CStr, flags: libc::c_int) -> io::Result<RawFd> {
    // SAFETY: path is NUL-terminated; mode is ignored without O_CREAT.
    let fd = unsafe { libc::open(path.as_ptr(), flags, 0o644 as libc::c_uint) };
    check(fd)
}

/// `close(2)`.
#[inline]
pub fn close(fd: RawFd) -> io::Result<()> {
    // SAFETY: closing an fd the caller owns; no memory is touched.
    let r = unsafe { libc::close(fd) };
    check(r).map(drop)
}

/// `kill(2)`.
#[inline]
pub fn kill(pid: libc::pid_t, sig: libc::c_int) -> io::Result<()> {
    // SAFETY: kill touches no memory.
    let r = unsafe { libc::kill(pid, sig) };
    check(r).map(drop)
}

/// Installs `handler` for `sig` with `sigaction(2)`, SA_RESTART, empty mask.
#[inline]
pub fn sigaction(sig: libc::c_int, handler: extern "C" fn(libc::c_int)) -> io::Result<()> {
    // SAFETY: a zeroed sigaction is a valid "no flags, empty mask" value; the
    // handler is an extern "C" fn with the signature sa_handler expects.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = handler as usize;
        sa.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut sa.sa_mask);
        let r = libc::sigaction(sig, &sa, std::ptr::null_mut());
        check(r).map(drop)
    }
}

/// Restores the default disposition of `sig`.
pub fn signal_default(sig: libc::c_int) -> io::Result<()> {
    use nix::sys::signal::{signal, SigHandler, Signal};
    let sig = Signal::try_from(sig)?;
    // SAFETY: SIG_DFL is always a valid disposition (no handler runs).
    unsafe { signal(sig, SigHandler::SigDfl) }?;
    Ok(())
}

/// The own process id.
pub fn getpid() -> libc::pid_t {
    nix::unistd::getpid().as_raw()
}

/// Monotonic nanoseconds (CLOCK_MONOTONIC), for peers that time themselves.
#[inline]
pub fn now_ns() -> u64 {
    use nix::time::{clock_gettime, ClockId};
    let ts = clock_gettime(ClockId::CLOCK_MONOTONIC).expect("CLOCK_MONOTONIC always exists");
    ts.tv_sec() as u64 * 1_000_000_000 + ts.tv_nsec() as u64
}

/// Resource usage of the calling thread (getrusage RUSAGE_THREAD), or of
/// the process where the OS does not count threads apart: faults and CPU
/// time that other threads (a test harness's, a pool's) must not add to.
pub fn thread_usage() -> io::Result<nix::sys::resource::Usage> {
    use nix::sys::resource::{getrusage, UsageWho};
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let who = UsageWho::RUSAGE_THREAD;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let who = UsageWho::RUSAGE_SELF;
    Ok(getrusage(who)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_getppid_matches_libc() {
        assert_eq!(getppid_raw().unwrap(), nix::unistd::getppid().as_raw());
    }

    #[test]
    fn errors_carry_errno() {
        let err = stat(c"/nonexistent/lmbench").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert!(read(-1, &mut [0u8; 1]).is_err());
    }
}
