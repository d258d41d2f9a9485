//! lat_udp: latency of a datagram round trip on loopback.
//! Run: `cargo bench --bench lat_udp` (or `lmbench run lat_udp`).
//!
//! Method (lmbench's lat_udp): two UDP sockets bound to 127.0.0.1
//! (kernel-chosen ports) and connected to each other; the far one belongs
//! to an echo peer, a fresh small process (`lmbench-peer echo`). Each
//! iteration sends a 4-byte datagram carrying a sequence number and
//! receives the echo, whose number is checked (a stale datagram fails).
//! A deadline timer armed once per timed call (no SO_RCVTIMEO, whose
//! kernel timer would be armed on every receive): a lost datagram or a
//! silent peer fails the bench within seconds; a dead peer gives
//! ECONNREFUSED (ICMP) at once.
//! Loopback does not drop datagrams in a ping-pong, so no retransmission.
//!
//! Remote mode (lmbench's *Remote* table), when `LMBENCH_REMOTE=HOST:PORT`
//! names a running `lmbench serve` (and `LMBENCH_TOKEN` its token, if it
//! has one); declared skipped otherwise. `lat_udp/remote`: the same
//! 4-byte sequence-number round trip to the server's `udp_echo`, which
//! answers only the client's address. A real network may drop a datagram:
//! one unanswered for 100 ms is sent again and counted (printed after the
//! group), a late echo of an earlier number is skipped, and 3 s without an
//! answer fails the bench. The retransmission wait is the socket's
//! SO_RCVTIMEO, so the loop reads no clock. The session and the
//! connection are made untimed; the server answers from a plain blocking
//! loop, as the local peer does.

use criterion::Criterion;
use lmbench_support::catalog::lat_udp::{self as cat, PROGRAM};
use lmbench_support::harness::{on_one_cpu, socket_echo, Class, Group};
use lmbench_support::{ipc, remote};

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

fn lat_udp(c: &mut Criterion) {
    socket_echo(c, &PROGRAM, &cat::UDP, ipc::udp_pair(), PEER, 4);
    // The same with the peer on our CPU: the one-CPU row.
    on_one_cpu(c, &PROGRAM, &[&cat::PINNED], |c| {
        socket_echo(c, &PROGRAM, &cat::PINNED, ipc::udp_pair(), PEER, 4)
    });
}

fn lat_udp_remote(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    if let Some(mut s) = remote::bench::session(&mut g, &PROGRAM, &[&cat::REMOTE]) {
        remote::bench::udp_echo(&mut g, &cat::REMOTE, &mut s);
    }
    g.finish();
}

lmbench_support::bench_main!(lat_udp, lat_udp_remote);
