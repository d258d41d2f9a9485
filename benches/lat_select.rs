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

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::time::Instant;

use criterion::Criterion;
use lmbench_support::catalog::lat_select::{self as cat, PROGRAM};
use lmbench_support::catalog::Metric;
use lmbench_support::fs::ScratchFile;
use lmbench_support::harness::{check, failed, Class, Group};
use lmbench_support::ipc;
use nix::sys::select::{select, FdSet};
use nix::sys::time::TimeVal;

/// `n` dups of `fd` (close-on-exec, closed on drop).
fn dups(fd: BorrowedFd<'_>, n: usize) -> std::io::Result<Vec<OwnedFd>> {
    (0..n).map(|_| fd.try_clone_to_owned()).collect()
}

/// The dups as an fd_set, and nfds (the highest + 1).
fn dup_set(dups: &[OwnedFd]) -> std::io::Result<(FdSet<'_>, libc::c_int)> {
    let mut set = FdSet::new();
    let mut nfds = 0;
    for d in dups {
        let raw = std::os::fd::AsRawFd::as_raw_fd(d);
        if raw as usize >= libc::FD_SETSIZE {
            return Err(std::io::Error::other(format!(
                "fd {raw} is beyond FD_SETSIZE"
            )));
        }
        set.insert(d.as_fd());
        nfds = nfds.max(raw + 1);
    }
    Ok((set, nfds))
}

fn bench_select(g: &mut Group, m: &'static Metric, fd: BorrowedFd<'_>, n: usize) {
    let dups = check(m, "dup descriptors", dups(fd, n));
    let (set, nfds) = check(m, "fd_set", dup_set(&dups));
    eprintln!("lat_select: {} fds, nfds {nfds}", dups.len());
    let select = || -> Result<(), String> {
        let mut w = set;
        let mut tv = TimeVal::new(0, 0);
        match select(nfds, None, &mut w, None, &mut tv) {
            Ok(r) if r == n as libc::c_int => Ok(()),
            Ok(r) => Err(format!("select found {r} of {n} descriptors ready")),
            Err(e) => Err(format!("select: {e}")),
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
    let f = check(&cat::FILE_10, "open", std::fs::File::open(file.path()));
    for (m, n) in [
        (&cat::FILE_10, 10),
        (&cat::FILE_100, 100),
        (&cat::FILE_250, 250),
    ] {
        bench_select(&mut g, m, f.as_fd(), n);
    }
    drop(f);
    let (client, server) = check(&cat::TCP_10, "connect on 127.0.0.1", ipc::tcp_pair());
    for (m, n) in [
        (&cat::TCP_10, 10),
        (&cat::TCP_100, 100),
        (&cat::TCP_250, 250),
    ] {
        bench_select(&mut g, m, client.as_fd(), n);
    }
    drop((client, server));
    g.finish();
}

lmbench_support::bench_main!(lat_select);
