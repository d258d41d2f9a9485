//! lat_tcp: latency of a round trip over a loopback TCP connection.
//! Run: `cargo bench --bench lat_tcp` (or `lmbench run lat_tcp`).
//!
//! Method (lmbench's lat_tcp): a TCP connection on 127.0.0.1 (kernel-chosen
//! port; connect and accept untimed) whose far end belongs
//! to an echo peer, a fresh small process (`lmbench-peer echo`). Each
//! iteration writes 1 byte and reads the 1-byte answer (the low byte of a
//! sequence number, checked). Our end has SO_RCVTIMEO, so a peer that
//! stops answering fails the bench in seconds; one that dies gives EOF.

use criterion::{criterion_group, criterion_main, Criterion};
use lmbench_support::catalog::lat_tcp::{self as cat, PROGRAM};
use lmbench_support::harness::{config, socket_echo};
use lmbench_support::ipc;

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

fn lat_tcp(c: &mut Criterion) {
    socket_echo(c, &PROGRAM, &cat::TCP, ipc::tcp_pair(), PEER, 1);
}

criterion_group! {
    name = benches;
    config = config();
    targets = lat_tcp
}
criterion_main!(benches);
