//! bw_unix: AF_UNIX stream socket bandwidth.
//! Run: `cargo bench --bench bw_unix` (or `lmbench run bw_unix`).
//!
//! Method (lmbench's bw_unix): a stream socketpair(2); `lmbench-peer
//! bw_write fd1 65536`, a small fresh process, has one end as its stdout
//! and writes 64 KB chunks forever (default socket buffers). Timed: reading 10 MB (10 x 2^20 bytes) in read(2)s of
//! up to 64 KB into a buffer 128 bytes past page alignment (lmbench offsets
//! its buffer too, so the copy is not page-aligned). Throughput is counted
//! as 10 x 2^20 bytes per iteration, reported in MB/s with MB = 10^6.
//! A short read is fine (sockets return what is there); end of stream or an
//! error fails the bench. The writer is killed and reaped when we are done.

use std::os::fd::AsRawFd;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use lmbench_support::bw::{self, kernels::Buf};
use lmbench_support::catalog::bw_unix::{self as cat, PROGRAM};
use lmbench_support::harness::{check, config, failed, Class, Group};

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

fn bw_unix(c: &mut Criterion) {
    let m = &cat::READ_64K;
    let (rd, wr) = check(m, "socketpair", bw::socketpair());
    let chunk = bw::XFER.to_string();
    let _writer = check(
        m,
        "start writer",
        bw::spawn_writer(PEER, &["fd1", &chunk], Some(wr)),
    );
    let mut buf = check(m, "buffer", Buf::new(bw::XFER + 4096, 0));
    let buf = &mut buf.as_bytes_mut()[128..128 + bw::XFER];
    let fd = rd.as_raw_fd();
    // Checked once before timing: the writer is up and delivers.
    check(m, "untimed transfer", bw::read_total(fd, buf, bw::MOVE));

    let mut g = Group::new(c, &PROGRAM, Class::Bandwidth);
    g.bytes_per_iter(bw::MOVE as u64);
    g.bench(m, |iters| {
        let t = Instant::now();
        for _ in 0..iters {
            if let Err(e) = bw::read_total(fd, buf, bw::MOVE) {
                failed(m, e);
            }
        }
        t.elapsed()
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = bw_unix
}
criterion_main!(benches);
