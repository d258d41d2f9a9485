//! `lmbench-peer proc`: process creation timed from a small process.

use std::ffi::CString;
use std::io;
use std::os::fd::AsRawFd;

use nix::fcntl::OFlag;
use nix::sys::stat::Mode;
use nix::sys::wait::{waitpid, WaitStatus};
use nix::unistd::Pid;

use crate::sys;

/// `fork N` | `exec N PATH` | `shell N PATH` | `ping`: runs N process
/// creations back to back and replies with the total nanoseconds. `exec`
/// execve(2)s PATH and `shell` execve(2)s `/bin/sh -c PATH`, both with an
/// empty environment: what the child's start-up reads is then the same in
/// every run, however large the environment cargo or a user passed us.
///
/// Why here and not in the bench: fork's cost grows with the parent's
/// address space and thread count; the Criterion process is large and
/// multi-threaded. lmbench forks from its small benchmark process, so we
/// fork from this small one and report the time back.
pub fn request(words: &[&str]) -> io::Result<String> {
    let bad = || io::Error::other(format!("bad request {words:?}"));
    match words {
        ["ping"] => Ok("pong".into()),
        [op, n, rest @ ..] => {
            let n: u64 = n.parse().map_err(|_| bad())?;
            let spawn = match (*op, rest) {
                ("fork", []) => Spawn::Exit,
                ("exec", [path]) => Spawn::Exec(vec![cstr(path)?]),
                ("shell", [path]) => Spawn::Exec(vec![
                    cstr("/bin/sh")?,
                    cstr("sh")?,
                    cstr("-c")?,
                    cstr(path)?,
                ]),
                _ => return Err(bad()),
            };
            // /dev/null for the child's stdout: our stdout is the pipe to
            // the bench and must carry only replies (lmbench closes it).
            let devnull = nix::fcntl::open(
                c"/dev/null",
                OFlag::O_WRONLY | OFlag::O_CLOEXEC,
                Mode::empty(),
            )?;
            let result = time_spawns(n, &spawn, devnull.as_raw_fd());
            nix::unistd::close(devnull)?;
            result.map(|ns| ns.to_string())
        }
        _ => Err(bad()),
    }
}

fn cstr(s: &str) -> io::Result<CString> {
    CString::new(s).map_err(|_| io::Error::other(format!("NUL in {s:?}")))
}

enum Spawn {
    /// The child calls _exit(0) at once.
    Exit,
    /// The child execs argv (argv[0] is the path; for the shell, path then argv).
    Exec(Vec<CString>),
}

fn time_spawns(n: u64, spawn: &Spawn, devnull: libc::c_int) -> io::Result<u64> {
    // argv arrays are built before timing: the child may only make
    // async-signal-safe calls, and building them is not the measured work.
    let (path, argv): (*const libc::c_char, Vec<*const libc::c_char>) = match spawn {
        Spawn::Exit => (std::ptr::null(), vec![]),
        Spawn::Exec(args) if args.len() == 1 => {
            (args[0].as_ptr(), vec![args[0].as_ptr(), std::ptr::null()])
        }
        Spawn::Exec(args) => (
            args[0].as_ptr(),
            args[1..]
                .iter()
                .map(|a| a.as_ptr())
                .chain([std::ptr::null()])
                .collect(),
        ),
    };
    let envp: [*const libc::c_char; 1] = [std::ptr::null()];
    let start = sys::now_ns();
    for _ in 0..n {
        // SAFETY: this process is single-threaded, so the child may run any
        // code: dup2 and execve on a path and argv of NUL-terminated
        // strings built before the fork and an empty envp, or the C
        // library's exit (this process registers no atexit handler and
        // never uses C stdio, so it runs none of ours); it never returns.
        let pid = unsafe {
            let pid = libc::fork();
            if pid == 0 {
                if !path.is_null() {
                    libc::dup2(devnull, 1);
                    libc::execve(path, argv.as_ptr(), envp.as_ptr());
                    libc::_exit(127);
                }
                // exit(3), as lmbench's child: its stdio and exit-handler
                // walk writes to the C library's data, which fork shared
                // copy-on-write, so the child takes the faults lmbench's
                // takes (about 25 us more than _exit(2) on a 2-vCPU AMD
                // EPYC guest, in a bare C loop of each).
                libc::exit(0);
            }
            pid
        };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        match waitpid(Pid::from_raw(pid), None)? {
            WaitStatus::Exited(_, 0) => {}
            status => return Err(io::Error::other(format!("child {pid} failed ({status:?})"))),
        }
    }
    Ok(sys::now_ns() - start)
}
