//! The floors' system calls, bare: `#[inline(always)]` functions, each one
//! libc call that returns the kernel's answer as libc does (-1 and errno on
//! failure), so a floor loop compiles to the call and a compare.

use std::ffi::CStr;
use std::os::fd::RawFd;

/// getppid, entering the kernel every time.
#[cfg(any(target_os = "linux", target_os = "android"))]
#[inline(always)]
pub fn getppid() -> libc::c_long {
    // SAFETY: SYS_getppid takes no arguments and touches no memory.
    unsafe { libc::syscall(libc::SYS_getppid) }
}

/// getppid (not cached on BSD or macOS).
#[cfg(not(any(target_os = "linux", target_os = "android")))]
#[inline(always)]
pub fn getppid() -> libc::c_long {
    // SAFETY: getppid takes no arguments and touches no memory.
    unsafe { libc::getppid() as libc::c_long }
}

#[inline(always)]
pub fn read(fd: RawFd, b: &mut [u8]) -> isize {
    // SAFETY: b is valid for writes of b.len() bytes.
    unsafe { libc::read(fd, b.as_mut_ptr().cast(), b.len()) }
}

#[inline(always)]
pub fn write(fd: RawFd, b: &[u8]) -> isize {
    // SAFETY: b is valid for reads of b.len() bytes.
    unsafe { libc::write(fd, b.as_ptr().cast(), b.len()) }
}

/// An all-zero `struct stat`, for stat and fstat to fill.
#[inline(always)]
pub fn zeroed_stat() -> libc::stat {
    // SAFETY: struct stat is plain integers, for which zero is valid.
    unsafe { std::mem::zeroed() }
}

#[inline(always)]
pub fn stat(p: &CStr, st: &mut libc::stat) -> libc::c_int {
    // SAFETY: p is NUL-terminated; st is a valid struct stat.
    unsafe { libc::stat(p.as_ptr(), st) }
}

#[inline(always)]
pub fn fstat(fd: RawFd, st: &mut libc::stat) -> libc::c_int {
    // SAFETY: st is a valid struct stat.
    unsafe { libc::fstat(fd, st) }
}

#[inline(always)]
pub fn open(p: &CStr, flags: libc::c_int) -> libc::c_int {
    // SAFETY: p is NUL-terminated; no O_CREAT, so no mode argument.
    unsafe { libc::open(p.as_ptr(), flags) }
}

/// Closes a descriptor the caller owns and will not use again.
#[inline(always)]
pub fn close(fd: RawFd) -> libc::c_int {
    // SAFETY: close touches no memory; the caller owns fd.
    unsafe { libc::close(fd) }
}

/// An fd_set holding exactly `fds` (each below FD_SETSIZE).
pub fn fd_set(fds: &[RawFd]) -> libc::fd_set {
    // SAFETY: fd_set is plain integers; FD_ZERO empties it and FD_SET
    // is given only descriptors below FD_SETSIZE (asserted).
    unsafe {
        let mut set: libc::fd_set = std::mem::zeroed();
        libc::FD_ZERO(&mut set);
        for &fd in fds {
            assert!((fd as usize) < libc::FD_SETSIZE, "fd {fd} >= FD_SETSIZE");
            libc::FD_SET(fd, &mut set);
        }
        set
    }
}

/// select(2) for writing only, on `w`, with a zero timeout.
#[inline(always)]
pub fn select_write(nfds: libc::c_int, w: &mut libc::fd_set) -> libc::c_int {
    let mut tv = libc::timeval {
        tv_sec: 0,
        tv_usec: 0,
    };
    let null = std::ptr::null_mut();
    // SAFETY: w and tv are valid; null read and except sets are allowed.
    unsafe { libc::select(nfds, null, w, null, &mut tv) }
}

/// fork(2). Sound here because the floor process is single-threaded
/// (see the module doc; under `LMBENCH_CHECK_THREADS=1`, `one_thread`
/// checks it around every request), so the child may run any code
/// until it leaves through [`exit`].
#[inline(always)]
pub fn fork() -> libc::pid_t {
    // SAFETY: single-threaded process (above).
    unsafe { libc::fork() }
}

#[inline(always)]
pub fn waitpid(pid: libc::pid_t, status: &mut libc::c_int) -> libc::pid_t {
    // SAFETY: status is a valid int.
    unsafe { libc::waitpid(pid, status, 0) }
}

/// Ends a forked child at once: no destructors or atexit handlers of
/// the parent's run a second time.
#[inline(always)]
pub fn exit(code: libc::c_int) -> ! {
    // SAFETY: _exit never returns and touches no memory of ours.
    unsafe { libc::_exit(code) }
}

/// In a forked child: stdout onto `stdout`, then execve(2) `path`, or
/// exit 127 if that fails.
#[inline(always)]
pub fn exec(
    stdout: RawFd,
    path: *const libc::c_char,
    argv: &[*const libc::c_char],
    envp: &[*const libc::c_char],
) -> ! {
    // SAFETY: path is a NUL-terminated string and argv/envp are
    // NULL-terminated arrays of them, all built before the fork and
    // alive in this child; dup2 and execve are async-signal-safe.
    unsafe {
        libc::dup2(stdout, 1);
        libc::execve(path, argv.as_ptr(), envp.as_ptr());
    }
    exit(127)
}
