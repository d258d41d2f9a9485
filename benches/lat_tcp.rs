//! lat_tcp: latency of a round trip over a loopback TCP connection.
//! Run: `cargo bench --bench lat_tcp` (or `lmbench run lat_tcp`).
//!
//! Method (lmbench's lat_tcp): a TCP connection on 127.0.0.1 (kernel-chosen
//! port; connect and accept untimed) whose far end belongs
//! to an echo peer, a fresh small process (`lmbench-peer echo`). Each
//! iteration writes 1 byte and reads the 1-byte answer (the low byte of a
//! sequence number, checked). Our end has SO_RCVTIMEO, so a peer that
//! stops answering fails the bench in seconds; one that dies gives EOF.

use std::os::fd::AsRawFd;

use criterion::{criterion_group, criterion_main, Criterion};
use lmbench_support::catalog::lat_tcp::{self as cat, PROGRAM};
use lmbench_support::harness::{check, config, Class, Group};
use lmbench_support::ipc;

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

fn lat_tcp(c: &mut Criterion) {
    let m = &cat::TCP;
    let (ours, theirs) = check(m, "connect on 127.0.0.1", ipc::tcp_pair());
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
    check(m, "untimed round trip", ipc::echo_loop(fd, fd, 1, 1, None));

    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    g.bench(m, |iters| {
        check(m, "round trip", ipc::echo_loop(fd, fd, 1, iters, None))
    });
    g.finish();
    drop(ours);
    drop(peer);
}

criterion_group! {
    name = benches;
    config = config();
    targets = lat_tcp
}
criterion_main!(benches);
