//! lat_udp: latency of a datagram round trip on loopback.
//! Run: `cargo bench --bench lat_udp` (or `lmbench run lat_udp`).
//!
//! Method (lmbench's lat_udp): two UDP sockets bound to 127.0.0.1
//! (kernel-chosen ports) and connected to each other; the far one belongs
//! to an echo peer, a fresh small process (`lmbench-peer echo`). Each
//! iteration sends a 4-byte datagram carrying a sequence number and
//! receives the echo, whose number is checked (a stale datagram fails).
//! Our socket has SO_RCVTIMEO: a lost datagram or a silent peer fails the
//! bench within seconds; a dead peer gives ECONNREFUSED (ICMP) at once.
//! Loopback does not drop datagrams in a ping-pong, so no retransmission.

use criterion::{criterion_group, criterion_main, Criterion};
use lmbench_support::catalog::lat_udp::{self as cat, PROGRAM};
use lmbench_support::harness::{config, socket_echo};
use lmbench_support::ipc;

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

fn lat_udp(c: &mut Criterion) {
    socket_echo(c, &PROGRAM, &cat::UDP, ipc::udp_pair(), PEER, 4);
}

criterion_group! {
    name = benches;
    config = config();
    targets = lat_udp
}
criterion_main!(benches);
