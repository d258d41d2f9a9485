//! `lmbench-peer spawn [MIB]`: creation timed from a small process, beside
//! lat_proc's fork and exec (`peer::proc`). With MIB, the process first maps
//! MIB MiB of private anonymous memory (MADV_NOHUGEPAGE: 4 KiB pages, the
//! case whose page tables grow with the parent) and writes every page, so
//! `fork` copies that many page-table entries.
//!
//! Requests, each replying the nanoseconds of N creations back to back:
//! - `thread N`: pthread_create (default attributes) of a thread that
//!   returns at once, then pthread_join.
//! - `posix_spawn N PATH`: posix_spawn(3) of PATH (stdout on /dev/null,
//!   empty environment), then waitpid; exit status 0 checked.
//! - `vfork N PATH`: vfork(2); the child execv(2)s PATH (stdout on
//!   /dev/null) or _exits 127; the parent waitpids; status 0 checked.
//! - `fork N`: fork(2); the child _exits 0; the parent waitpids.
//! - `ping`: `pong` and the MiB touched.

use std::ffi::CString;
use std::io;

use crate::sys;

pub fn main(args: &[String]) -> io::Result<()> {
    let mib: usize = match args {
        [] => 0,
        [m] => m
            .parse()
            .map_err(|_| io::Error::other(format!("bad MiB {m:?}")))?,
        _ => {
            return Err(io::Error::other(format!(
                "bad arguments {args:?}; want [MIB]"
            )))
        }
    };
    let _touched = Touched::new(mib << 20)?;
    let devnull = sys::open(c"/dev/null", libc::O_WRONLY | libc::O_CLOEXEC)?;
    super::serve(|words| {
        let bad = || io::Error::other(format!("bad request {words:?}"));
        let n = |s: &str| s.parse::<u64>().map_err(|_| bad());
        let start = sys::now_ns();
        match words {
            ["ping"] => return Ok(format!("pong {mib}")),
            ["thread", k] => threads(n(k)?)?,
            ["fork", k] => forks(n(k)?)?,
            ["posix_spawn", k, path] => posix_spawns(n(k)?, &cstr(path)?, devnull)?,
            ["vfork", k, path] => vforks(n(k)?, &cstr(path)?, devnull)?,
            _ => return Err(bad()),
        }
        Ok((sys::now_ns() - start).to_string())
    })
}

fn cstr(s: &str) -> io::Result<CString> {
    CString::new(s).map_err(|_| io::Error::other(format!("NUL in {s:?}")))
}

/// Memory mapped and written page by page, unmapped on drop.
struct Touched(*mut u8, usize);

impl Touched {
    fn new(len: usize) -> io::Result<Touched> {
        if len == 0 {
            return Ok(Touched(std::ptr::null_mut(), 0));
        }
        let p = crate::vm::map(
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
        )?;
        #[cfg(target_os = "linux")]
        // SAFETY: our fresh mapping; NOHUGEPAGE changes no contents.
        unsafe {
            libc::madvise(p.cast(), len, libc::MADV_NOHUGEPAGE);
        }
        let page = crate::vm::page_size();
        for off in (0..len).step_by(page) {
            // SAFETY: inside our read-write mapping.
            unsafe { p.add(off).write_volatile(1) };
        }
        Ok(Touched(p, len))
    }
}

impl Drop for Touched {
    fn drop(&mut self) {
        if self.1 > 0 {
            // SAFETY: our mapping, unused from here on.
            let _ = unsafe { crate::vm::unmap(self.0, self.1) };
        }
    }
}

extern "C" fn nothing(_: *mut libc::c_void) -> *mut libc::c_void {
    std::ptr::null_mut()
}

fn threads(n: u64) -> io::Result<()> {
    for _ in 0..n {
        let mut t: libc::pthread_t = 0;
        // SAFETY: t receives the id; default attributes; `nothing` is a
        // valid start routine that ignores its argument.
        let r = unsafe {
            libc::pthread_create(&mut t, std::ptr::null(), nothing, std::ptr::null_mut())
        };
        if r != 0 {
            return Err(io::Error::from_raw_os_error(r));
        }
        // SAFETY: t is a joinable thread we created.
        let r = unsafe { libc::pthread_join(t, std::ptr::null_mut()) };
        if r != 0 {
            return Err(io::Error::from_raw_os_error(r));
        }
    }
    Ok(())
}

fn reap(pid: libc::pid_t) -> io::Result<()> {
    use nix::sys::wait::{waitpid, WaitStatus};
    match waitpid(nix::unistd::Pid::from_raw(pid), None)? {
        WaitStatus::Exited(_, 0) => Ok(()),
        status => Err(io::Error::other(format!("child {pid} failed ({status:?})"))),
    }
}

fn forks(n: u64) -> io::Result<()> {
    for _ in 0..n {
        // SAFETY: this process is single-threaded; the child only _exits,
        // at once.
        let pid = unsafe {
            let pid = libc::fork();
            if pid == 0 {
                libc::_exit(0);
            }
            pid
        };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        reap(pid)?;
    }
    Ok(())
}

fn posix_spawns(n: u64, path: &CString, devnull: libc::c_int) -> io::Result<()> {
    let argv = [path.as_ptr() as *mut libc::c_char, std::ptr::null_mut()];
    let envp = [std::ptr::null_mut::<libc::c_char>()];
    // SAFETY: file actions initialised, used and destroyed here; argv and
    // envp are NULL-terminated arrays of valid strings.
    unsafe {
        let mut fa: libc::posix_spawn_file_actions_t = std::mem::zeroed();
        let r = libc::posix_spawn_file_actions_init(&mut fa);
        if r != 0 {
            return Err(io::Error::from_raw_os_error(r));
        }
        let result = (|| {
            let r = libc::posix_spawn_file_actions_adddup2(&mut fa, devnull, 1);
            if r != 0 {
                return Err(io::Error::from_raw_os_error(r));
            }
            for _ in 0..n {
                let mut pid = 0;
                let r = libc::posix_spawn(
                    &mut pid,
                    path.as_ptr(),
                    &fa,
                    std::ptr::null(),
                    argv.as_ptr(),
                    envp.as_ptr(),
                );
                if r != 0 {
                    return Err(io::Error::from_raw_os_error(r));
                }
                reap(pid)?;
            }
            Ok(())
        })();
        libc::posix_spawn_file_actions_destroy(&mut fa);
        result
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn vforks(n: u64, path: &CString, devnull: libc::c_int) -> io::Result<()> {
    let argv = [path.as_ptr(), std::ptr::null()];
    let envp = [std::ptr::null::<libc::c_char>()];
    for _ in 0..n {
        let pid = vfork_exec(path.as_ptr(), argv.as_ptr(), envp.as_ptr(), devnull);
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        reap(pid)?;
    }
    Ok(())
}

/// vfork(2) then, in the child, dup2 + execve or _exit(127): the child
/// borrows this process's memory and stack until it execs, so it makes
/// only those three calls, on values prepared before the vfork, and never
/// returns from this function.
#[cfg(any(target_os = "linux", target_os = "android"))]
#[inline(never)]
fn vfork_exec(
    path: *const libc::c_char,
    argv: *const *const libc::c_char,
    envp: *const *const libc::c_char,
    devnull: libc::c_int,
) -> libc::pid_t {
    // SAFETY: the child runs only async-signal-safe calls on pointers that
    // stay valid (the parent is suspended until the exec or _exit) and
    // leaves through execve or _exit, never returning.
    #[allow(deprecated)]
    unsafe {
        let pid = libc::vfork();
        if pid == 0 {
            libc::dup2(devnull, 1);
            libc::execve(path, argv, envp);
            libc::_exit(127);
        }
        pid
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn vforks(_: u64, _: &CString, _: libc::c_int) -> io::Result<()> {
    Err(io::Error::other("vfork is measured on Linux only"))
}
