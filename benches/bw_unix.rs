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
//! error fails the bench, and so does a writer that stops: each 10 MB has
//! a 3 s deadline (`harness::timed_reads`: a timer, no thread). The writer
//! is killed and reaped when we are done.

//! `bw_unix/pinned/64k`: the same with the bench and its writer bound to
//! one CPU (the one-CPU table's row).

use criterion::Criterion;
use lmbench_support::catalog::bw_unix::{self as cat, PROGRAM};
use lmbench_support::harness::{on_one_cpu, stream_read_bw};
use lmbench_support::ipc;

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

fn bw_unix(c: &mut Criterion) {
    stream_read_bw(c, &PROGRAM, &cat::READ_64K, ipc::socketpair(), PEER);
    // The same with the writer on our CPU: the one-CPU row.
    on_one_cpu(c, &PROGRAM, &[&cat::PINNED_64K], |c| {
        stream_read_bw(c, &PROGRAM, &cat::PINNED_64K, ipc::socketpair(), PEER)
    });
}

lmbench_support::bench_main!(bw_unix);
