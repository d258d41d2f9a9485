//! bw_tcp: loopback TCP bandwidth.
//! Run: `cargo bench --bench bw_tcp` (or `lmbench run bw_tcp`).
//!
//! Method (lmbench's bw_tcp): we listen on 127.0.0.1 (kernel-chosen port)
//! with SO_RCVBUF 1 MB; `lmbench-peer bw_write tcp PORT MSG 1048576`, a
//! small fresh process, connects, sets SO_SNDBUF 1 MB and writes MSG-byte
//! messages forever. Timed: reading 10 MB (10 x 2^20 bytes) in read(2)s
//! of up to MSG bytes. Two message sizes: 64 KB and 10 MB (lmbench's
//! summary uses 10 MB). The connection is set up and 10 MB read once
//! before timing (warm-up); Criterion warms up further. Any error or end
//! of stream fails the bench, and so does a writer that stops: each 10 MB
//! has a 3 s deadline (`harness::timed_reads`); the writer is killed and
//! reaped at the end.
//! (Linux doubles the requested buffer sizes, as it does for lmbench.)
//! `bw_tcp/pinned/10m`: the 10 MB case with the bench and its writer bound
//! to one CPU (the one-CPU table's row).
//!
//! Remote mode (lmbench's *Remote* table), when `LMBENCH_REMOTE=HOST:PORT`
//! names a running `lmbench serve` (and `LMBENCH_TOKEN` its token, if it
//! has one); declared skipped otherwise. Both ends set 1 MB socket
//! buffers before connecting. `bw_tcp/remote_read/10m` (the *Remote*
//! table's TCP column, the local one's direction): the server's `source`
//! sends exactly the bytes ordered (8-byte orders on the connection); each
//! iteration orders the next 10 MB, one order ahead so the server never
//! idles, then reads 10 MB (the order is one 8-byte write per 10 MB).
//! `bw_tcp/remote_write/10m`: each iteration writes 10 MB to the server's
//! `sink`, which reads and discards; in the steady state of back-to-back
//! iterations the socket buffers stay full, so the rate is the network's. The session and the
//! connection are made untimed; the server answers from a plain blocking
//! loop, as the local peer does.

use std::os::fd::AsRawFd;
use std::time::Duration;

use criterion::Criterion;
use lmbench_support::bw::{self, kernels::Buf};
use lmbench_support::catalog::{
    bw_tcp::{self as cat, PROGRAM},
    Metric,
};
use lmbench_support::harness::{check, on_one_cpu, timed_reads, timed_transfer, Class, Group};
use lmbench_support::remote;

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

fn bw_tcp(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Bandwidth);
    g.bytes_per_iter(bw::MOVE as u64);
    stream(&mut g, &cat::READ_64K, 64 << 10);
    stream(&mut g, &cat::READ_10M, 10 << 20);
    g.finish();
    // The 10 MB case with the writer on our CPU: the one-CPU row.
    on_one_cpu(c, &PROGRAM, &[&cat::PINNED_10M], |c| {
        let mut g = Group::new(c, &PROGRAM, Class::Bandwidth);
        g.bytes_per_iter(bw::MOVE as u64);
        stream(&mut g, &cat::PINNED_10M, 10 << 20);
        g.finish();
    });
}

/// A writer of `msg`-byte messages on a fresh loopback connection, and
/// `m` timed as reads of 10 MB from it.
fn stream(g: &mut Group, m: &'static Metric, msg: usize) {
    let listener = check(m, "listen", bw::tcp_listen(bw::TCP_BUF));
    let port = check(m, "local port", listener.local_addr()).port();
    let _writer = check(
        m,
        "start writer",
        bw::spawn_writer(
            PEER,
            &[
                "tcp",
                &port.to_string(),
                &msg.to_string(),
                &bw::TCP_BUF.to_string(),
            ],
            None,
        ),
    );
    let sock = check(
        m,
        "accept",
        bw::accept_within(&listener, Duration::from_secs(10)),
    );
    drop(listener);
    let fd = sock.as_raw_fd();
    let mut buf = check(m, "buffer", Buf::new(msg, 0));
    let buf = buf.as_bytes_mut();
    check(m, "untimed transfer", timed_transfer(fd, buf));
    g.bench(m, |iters| timed_reads(m, fd, buf, iters));
    // Close our end first: the writer sees a reset and exits; the guard
    // then reaps it.
    drop(sock);
}

fn bw_tcp_remote(c: &mut Criterion) {
    let (rd, wr) = (&cat::REMOTE_READ_10M, &cat::REMOTE_WRITE_10M);
    let mut g = Group::new(c, &PROGRAM, Class::Bandwidth);
    g.bytes_per_iter(bw::MOVE as u64);
    if let Some(mut s) = remote::bench::session(&mut g, &PROGRAM, &[rd, wr]) {
        remote::bench::bw_read(&mut g, rd, &mut s);
        remote::bench::bw_write(&mut g, wr, &mut s);
    }
    g.finish();
}

lmbench_support::bench_main!(bw_tcp, bw_tcp_remote);
