//! lat_tcp: latency of a round trip over a loopback TCP connection.
//! Run: `cargo bench --bench lat_tcp` (or `lmbench run lat_tcp`).
//!
//! Method (lmbench's lat_tcp): a TCP connection on 127.0.0.1 (kernel-chosen
//! port; connect and accept untimed) whose far end belongs
//! to an echo peer, a fresh small process (`lmbench-peer echo`). Each
//! iteration writes 1 byte and reads the 1-byte answer (the low byte of a
//! sequence number, checked). A deadline timer armed once per timed call
//! (no SO_RCVTIMEO, whose kernel timer would be armed on every receive)
//! fails the bench in seconds if the peer stops answering; one that dies
//! gives EOF.
//!
//! Remote mode (lmbench's *Remote* table), when `LMBENCH_REMOTE=HOST:PORT`
//! names a running `lmbench serve` (and `LMBENCH_TOKEN` its token, if it
//! has one); declared skipped otherwise. `lat_tcp/remote`: the same
//! 1-byte round trip on a TCP connection to the server's echo service
//! (`tcp_echo`), the answer checked against the sent byte. The session and the
//! connection are made untimed; the server answers from a plain blocking
//! loop, as the local peer does.

use criterion::Criterion;
use lmbench_support::catalog::lat_tcp::{self as cat, PROGRAM};
use lmbench_support::harness::{on_one_cpu, socket_echo, Class, Group};
use lmbench_support::{ipc, remote};

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

fn lat_tcp(c: &mut Criterion) {
    socket_echo(c, &PROGRAM, &cat::TCP, ipc::tcp_pair(), PEER, 1);
    // The same with the peer on our CPU: the one-CPU row.
    on_one_cpu(c, &PROGRAM, &[&cat::PINNED], |c| {
        socket_echo(c, &PROGRAM, &cat::PINNED, ipc::tcp_pair(), PEER, 1)
    });
}

fn lat_tcp_remote(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    if let Some(mut s) = remote::bench::session(&mut g, &PROGRAM, &[&cat::REMOTE]) {
        remote::bench::tcp_echo(&mut g, &cat::REMOTE, &mut s);
    }
    g.finish();
}

lmbench_support::bench_main!(lat_tcp, lat_tcp_remote);
