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

use std::os::fd::AsRawFd;

use criterion::{criterion_group, criterion_main, Criterion};
use lmbench_support::catalog::lat_udp::{self as cat, PROGRAM};
use lmbench_support::harness::{check, config, Class, Group};
use lmbench_support::ipc;

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

fn lat_udp(c: &mut Criterion) {
    let m = &cat::UDP;
    let (ours, theirs) = check(m, "UDP sockets on 127.0.0.1", ipc::udp_pair());
    let peer = check(
        m,
        "start the echo peer",
        ipc::spawn_with_fds(PEER, &["echo"], &[theirs.as_raw_fd()]),
    );
    drop(theirs);
    let fd = ours.as_raw_fd();
    check(
        m,
        "SO_RCVTIMEO",
        ipc::set_recv_timeout(fd, ipc::ANSWER_TIMEOUT),
    );
    check(m, "untimed round trip", ipc::echo_loop(fd, fd, 4, 1, None));

    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    g.bench(m, |iters| {
        check(m, "round trip", ipc::echo_loop(fd, fd, 4, iters, None))
    });
    g.finish();
    drop(ours);
    drop(peer);
}

criterion_group! {
    name = benches;
    config = config();
    targets = lat_udp
}
criterion_main!(benches);
