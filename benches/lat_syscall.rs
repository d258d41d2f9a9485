//! lat_syscall: the cost of the simplest entries into the kernel.
//! Run: `cargo bench --bench lat_syscall` (or `lmbench run lat_syscall`).
//!
//! Method (lmbench's lat_syscall): each iteration makes exactly one call on
//! a descriptor or path prepared outside the timed loop.
//! - null: `syscall(SYS_getppid)` raw, so no libc can answer from a cache.
//! - read / write: 1 byte from /dev/zero, to /dev/null, fds opened once.
//! - stat / fstat / open: a 1-byte scratch file (created once, so its inode
//!   is cached); open is open(O_RDONLY) + close. lmbench stats and opens
//!   its $FILE, a file directly in the file-system directory; so the
//!   file is made directly in `LMBENCH_FSDIR` (default: the temp
//!   directory) as `lmbench-scratch-<pid>-*` (`fs::ScratchFile::in_root`),
//!   the same path depth: path lookup walks one component at a time, and
//!   a file inside a scratch directory of its own costs one lookup more
//!   per call. The name differs from lmbench's (longer, new each run);
//!   removed on drop, swept by the next run if the bench is killed. The
//!   stat floor (`floor`) stats a file made the same way.
//!
//! Every return value is checked; a failure panics with the metric id.

use criterion::Criterion;
use lmbench_support::catalog::lat_syscall::{self as cat, PROGRAM};
use lmbench_support::fs::ScratchFile;
use lmbench_support::harness::{check, Class, Group};
use lmbench_support::sys;

fn lat_syscall(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Fast);

    g.bench_loop(&cat::NULL, sys::getppid_raw);

    let zero = check(
        &cat::READ,
        "open /dev/zero",
        sys::open(c"/dev/zero", libc::O_RDONLY),
    );
    let mut byte = [0u8; 1];
    g.bench_loop(&cat::READ, || match sys::read(zero, &mut byte) {
        Ok(1) => Ok(()),
        Ok(n) => Err(format!("read returned {n}, want 1")),
        Err(e) => Err(e.to_string()),
    });
    check(&cat::READ, "close /dev/zero", sys::close(zero));

    let null = check(
        &cat::WRITE,
        "open /dev/null",
        sys::open(c"/dev/null", libc::O_WRONLY),
    );
    g.bench_loop(&cat::WRITE, || match sys::write(null, b"x") {
        Ok(1) => Ok(()),
        Ok(n) => Err(format!("write returned {n}, want 1")),
        Err(e) => Err(e.to_string()),
    });
    check(&cat::WRITE, "close /dev/null", sys::close(null));

    let file = check(&cat::STAT, "create scratch file", ScratchFile::in_root(1));
    let path = file.c_path();
    g.bench_loop(&cat::STAT, || sys::stat(path));

    let fd = check(
        &cat::FSTAT,
        "open scratch file",
        sys::open(path, libc::O_RDONLY),
    );
    g.bench_loop(&cat::FSTAT, || sys::fstat(fd));
    check(&cat::FSTAT, "close scratch file", sys::close(fd));

    g.bench_loop(&cat::OPEN, || {
        let fd = sys::open(path, libc::O_RDONLY)?;
        sys::close(fd)
    });
    g.finish();
}

lmbench_support::bench_main!(lat_syscall);
