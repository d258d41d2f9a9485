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
//! of stream fails the bench; the writer is killed and reaped at the end.
//! (Linux doubles the requested buffer sizes, as it does for lmbench.)

use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use lmbench_support::bw::{self, kernels::Buf};
use lmbench_support::catalog::{
    bw_tcp::{self as cat, PROGRAM},
    Metric,
};
use lmbench_support::harness::{check, config, failed, Class, Group};

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

fn bw_tcp(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Bandwidth);
    g.bytes_per_iter(bw::MOVE as u64);
    let cases: [(&'static Metric, usize); 2] =
        [(&cat::READ_64K, 64 << 10), (&cat::READ_10M, 10 << 20)];
    for (m, msg) in cases {
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
        check(m, "untimed transfer", bw::read_total(fd, buf, bw::MOVE));
        g.bench(m, |iters| {
            let t = Instant::now();
            for _ in 0..iters {
                if let Err(e) = bw::read_total(fd, buf, bw::MOVE) {
                    failed(m, e);
                }
            }
            t.elapsed()
        });
        // Close our end first: the writer sees a reset and exits; the
        // guard then reaps it.
        drop(sock);
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = bw_tcp
}
criterion_main!(benches);
