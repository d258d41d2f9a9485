//! lat_unix: latency of a round trip over an AF_UNIX stream socket.
//! Run: `cargo bench --bench lat_unix` (or `lmbench run lat_unix`).
//!
//! Method (lmbench's lat_unix): a stream socketpair whose far end belongs
//! to an echo peer, a fresh small process (`lmbench-peer echo`). Each
//! iteration writes 1 byte and reads the 1-byte answer (the low byte of a
//! sequence number, checked). A deadline timer armed once per timed call
//! (no SO_RCVTIMEO, whose kernel timer would be armed on every receive)
//! fails the bench in seconds if the peer stops answering; one that dies
//! gives EOF.

use criterion::Criterion;
use lmbench_support::catalog::lat_unix::{self as cat, PROGRAM};
use lmbench_support::harness::{on_one_cpu, socket_echo};
use lmbench_support::ipc;

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

fn lat_unix(c: &mut Criterion) {
    socket_echo(c, &PROGRAM, &cat::STREAM, ipc::socketpair(), PEER, 1);
    // The same with the peer on our CPU: the one-CPU row.
    on_one_cpu(c, &PROGRAM, &[&cat::PINNED], |c| {
        socket_echo(c, &PROGRAM, &cat::PINNED, ipc::socketpair(), PEER, 1)
    });
}

lmbench_support::bench_main!(lat_unix);
