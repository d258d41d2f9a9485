//! lat_pipe: latency of a round trip through pipes.
//! Run: `cargo bench --bench lat_pipe` (or `lmbench run lat_pipe`).
//!
//! Method (lmbench's lat_pipe): two pipes to an echo peer, a fresh small
//! process (`lmbench-peer echo split`) holding the far ends. Each
//! iteration writes 1 byte and reads the 1-byte answer: one round trip,
//! not halved. The byte is the low byte of a sequence number and is
//! checked, so a stale or wrong answer fails the bench.
//!
//! - pinned: the same with this process and the peer bound to one CPU
//!   (`harness::on_one_cpu`): the one-CPU row of the local latencies.
//!
//! A pipe has no receive timeout, so a `Stall` timer (a POSIX timer
//! aimed at this thread, no second thread: see `ipc`) interrupts a read
//! blocked for 3 s; a peer that then stays silent 3 s more fails the bench
//! with the metric id (a peer that dies gives EOF at once). Nothing is
//! added per round trip: one timer_settime(2) before and after each
//! timed call.

use criterion::Criterion;
use lmbench_support::catalog::lat_pipe::{self as cat, PROGRAM};
use lmbench_support::catalog::Metric;
use lmbench_support::harness::{check, on_one_cpu, Class, Group};
use lmbench_support::ipc;
use lmbench_support::stall::Stall;
use std::os::fd::{AsFd, AsRawFd};

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

fn lat_pipe(c: &mut Criterion) {
    pipe(c, &cat::PIPE);
    // The same with the peer on our CPU: the one-CPU row.
    on_one_cpu(c, &PROGRAM, &[&cat::PINNED], |c| pipe(c, &cat::PINNED));
}

fn pipe(c: &mut Criterion, m: &'static Metric) {
    let (req_r, req_w) = check(m, "pipe", ipc::pipe());
    let (ans_r, ans_w) = check(m, "pipe", ipc::pipe());
    let peer = check(
        m,
        "start the echo peer",
        ipc::spawn_with_fds(
            PEER,
            &["echo", "split"],
            &[req_r.as_raw_fd(), ans_w.as_raw_fd()],
        ),
    );
    // The peer holds the only copies of its ends: its death is our EOF.
    drop((req_r, ans_w));
    let deadline = check(m, "deadline timer", Stall::new());
    let (w, r) = (req_w.as_fd(), ans_r.as_fd());
    check(
        m,
        "untimed round trip",
        ipc::echo_loop(w, r, 1, 1, Some(&deadline)),
    );

    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    g.bench(m, |iters| {
        check(
            m,
            "round trip",
            ipc::echo_loop(w, r, 1, iters, Some(&deadline)),
        )
    });
    g.finish();
    drop((req_w, ans_r));
    drop(peer);
}

lmbench_support::bench_main!(lat_pipe);
