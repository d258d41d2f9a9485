//! lat_wake (beyond lmbench): wake-up round trips between two processes,
//! and between two threads of one process.
//! Run: `cargo bench --bench lat_wake` (or `lmbench run lat_wake`).
//!
//! Method (as lat_pipe and lat_ctx): timed inside `lmbench-peer wake KIND
//! [pin]`, a small fresh process that forks its partner (for futex_thread,
//! starts a thread: threads are the point there) and replies the time of N
//! round trips. Each side sleeps in the kernel until the other wakes it: an
//! eventfd write and blocking read, a FUTEX_WAKE and FUTEX_WAIT on a word of
//! shared memory (sequence numbers, never a spin), a 1-byte datagram on a
//! UNIX datagram socketpair, a 1-byte message through POSIX queues. Every
//! value is checked (eventfd counts, sequence bytes). Unpinned is lmbench's
//! placement; pinned binds the pair to one CPU. A kind this kernel lacks
//! (POSIX queues) is skipped with the peer's reason; a silent peer fails
//! the bench after ten times its expected time plus 10 s.

use std::time::Duration;

use criterion::Criterion;
use lmbench_support::catalog::lat_wake::{KINDS, PROGRAM};
use lmbench_support::catalog::Metric;
use lmbench_support::child::Peer;
use lmbench_support::harness::{bench_peer_runs, check, Class, Group};

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

fn pair(g: &mut Group, metric: &'static Metric, args: &[&str]) {
    let mut peer = check(metric, "start lmbench-peer wake", Peer::spawn(PEER, args));
    bench_peer_runs(g, &mut peer, metric);
}

fn lat_wake(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    g.criterion()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (kind, unpinned, pinned) in KINDS {
        if cfg!(any(target_os = "linux", target_os = "android")) {
            pair(&mut g, unpinned, &["wake", kind]);
            pair(&mut g, pinned, &["wake", kind, "pin"]);
        } else {
            g.skip(unpinned, "Linux-only (eventfd, futex, POSIX queues)");
            g.skip(pinned, "Linux-only (eventfd, futex, POSIX queues)");
        }
    }
    g.finish();
}

lmbench_support::bench_main!(lat_wake);
