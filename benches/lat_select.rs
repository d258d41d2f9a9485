//! lat_select: select(2) over many descriptors.
//! Run: `cargo bench --bench lat_select` (or `lmbench run lat_select`).
//!
//! Method (lmbench's lat_select): N descriptors (10, 100, 250), all dups of
//! one scratch file opened read-only, or of one connected loopback TCP
//! socket, in an fd_set. Each iteration copies the set and calls select
//! with it as the write set and a zero timeout; every call must report all
//! N ready (checked). Where we differ: nfds is the highest descriptor + 1,
//! as select requires (lmbench passes N, so descriptors above N are not
//! scanned). The dups take the lowest free numbers, above the few
//! descriptors open before them, so nfds is N plus that handful (said on
//! stderr at setup: `lat_select: N fds, nfds M`); the kernel walks the
//! handful of unset bits below the dups too, a cost of a few words. And the TCP socket's peer is its accepted end held in this
//! process, not a forked server (select on the write set only looks at
//! our socket's send buffer, so nobody needs to serve it).

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Instant;

use criterion::Criterion;
use lmbench_support::catalog::lat_select::{self as cat, PROGRAM};
use lmbench_support::catalog::Metric;
use lmbench_support::fs::ScratchFile;
use lmbench_support::harness::{check, failed, Class, Group};
use lmbench_support::{ipc, sys};

/// `n` dups of `fd` as an fd_set, the dups (closed on drop) and nfds.
fn dup_set(fd: RawFd, n: usize) -> std::io::Result<(libc::fd_set, Vec<OwnedFd>, libc::c_int)> {
    let mut dups = Vec::with_capacity(n);
    // SAFETY: a zeroed fd_set is valid; FD_ZERO makes it the empty set.
    let mut set: libc::fd_set = unsafe { std::mem::zeroed() };
    // SAFETY: set is a valid fd_set.
    unsafe { libc::FD_ZERO(&mut set) };
    let mut nfds = 0;
    for _ in 0..n {
        // SAFETY: F_DUPFD_CLOEXEC returns a new descriptor we own.
        let d = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
        if d < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: d is a fresh descriptor nobody else owns.
        dups.push(unsafe { OwnedFd::from_raw_fd(d) });
        if d as usize >= libc::FD_SETSIZE {
            return Err(std::io::Error::other(format!(
                "fd {d} is beyond FD_SETSIZE"
            )));
        }
        // SAFETY: d < FD_SETSIZE, checked above.
        unsafe { libc::FD_SET(d, &mut set) };
        nfds = nfds.max(d + 1);
    }
    Ok((set, dups, nfds))
}

fn bench_select(g: &mut Group, m: &'static Metric, fd: RawFd, n: usize) {
    let (set, dups, nfds) = check(m, "dup descriptors", dup_set(fd, n));
    eprintln!("lat_select: {} fds, nfds {nfds}", dups.len());
    let select = || -> Result<(), String> {
        let mut w = set;
        let mut tv = libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        };
        // SAFETY: w and tv are valid; null read and except sets are allowed.
        let r = unsafe {
            libc::select(
                nfds,
                std::ptr::null_mut(),
                &mut w,
                std::ptr::null_mut(),
                &mut tv,
            )
        };
        if r == n as libc::c_int {
            Ok(())
        } else if r < 0 {
            Err(format!("select: {}", std::io::Error::last_os_error()))
        } else {
            Err(format!("select found {r} of {n} descriptors ready"))
        }
    };
    check(m, "untimed select", select());
    g.bench(m, |iters| {
        let start = Instant::now();
        for _ in 0..iters {
            if let Err(e) = select() {
                failed(m, e);
            }
        }
        start.elapsed()
    });
    drop(dups);
}

fn lat_select(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    let file = check(&cat::FILE_10, "scratch file", ScratchFile::new(1));
    let fd = check(
        &cat::FILE_10,
        "open",
        sys::open(file.c_path(), libc::O_RDONLY),
    );
    for (m, n) in [
        (&cat::FILE_10, 10),
        (&cat::FILE_100, 100),
        (&cat::FILE_250, 250),
    ] {
        bench_select(&mut g, m, fd, n);
    }
    check(&cat::FILE_10, "close", sys::close(fd));
    let (client, server) = check(&cat::TCP_10, "connect on 127.0.0.1", ipc::tcp_pair());
    for (m, n) in [
        (&cat::TCP_10, 10),
        (&cat::TCP_100, 100),
        (&cat::TCP_250, 250),
    ] {
        bench_select(&mut g, m, client.as_raw_fd(), n);
    }
    drop((client, server));
    g.finish();
}

lmbench_support::bench_main!(lat_select);
