//! scaling (beyond lmbench): how a cost scales with cores.
//! Run: `cargo bench --bench scaling` (or `lmbench run scaling`).
//!
//! Method (lmbench3's `-P` parallelism, will-it-scale's tests): for each
//! operation and mode, `lmbench-peer scale OP COPIES MODE DIR` starts
//! COPIES copies (1, N, 2N; N = the CPUs this process may use) as
//! processes or as threads of one process, copy i pinned to CPU i mod N,
//! each with its own state (partner, region, file, buffer) built before
//! timing. One timed iteration: every copy released at once (a futex
//! generation word) does the operation once; the time runs until the last
//! copy is done (the release and the final wake-up, tens of microseconds,
//! are amortised over the thousands of operations of a sample). Under
//! perfect scaling the figure is flat in COPIES; the summary's efficiency
//! at N is (time at 1) / (time at N), and aggregate operations per second
//! are COPIES / time. memrd is a bandwidth (aggregate MB/s, every copy
//! summing its own buffer once per iteration; the buffers together span
//! four times the largest cache, at least 64 MiB, at every copy count, so
//! the copies always read memory, never the shared last-level cache).
//!
//! Threads are the point of the thread mode (shared mm and fd table: the
//! locks a scalability patch is about); the driver sleeps while copies run.
//! Linux-only (futex, affinity); elsewhere every metric is skipped, said.

use std::time::Duration;

use criterion::Criterion;
use lmbench_support::catalog::scaling::{COPIES, PROGRAM, SERIES};
use lmbench_support::child::Peer;
use lmbench_support::harness::{bench_peer_requests, check, Class, Group};
use lmbench_support::peer::scale::memrd_bytes;

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

fn scaling(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    // 36 points: short samples (a tenth of this in the quick preset).
    g.criterion()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1000));
    if !cfg!(target_os = "linux") {
        for m in PROGRAM.metrics {
            g.skip(m, "Linux-only (futex, CPU affinity)");
        }
        g.finish();
        return;
    }
    let n = check(
        SERIES[0].metrics[0],
        "CPU count",
        std::thread::available_parallelism(),
    )
    .get();
    let avail = lmbench_support::vm::mem_available();
    for s in &SERIES {
        for (copies, metric) in COPIES.iter().zip(s.metrics) {
            let k = copies.count(n);
            if s.op == "memrd" {
                let need = (k * memrd_bytes(k)) as u64;
                if avail.is_some_and(|a| need > a / 2) {
                    let why = format!(
                        "{} MiB of buffers exceed half the available memory",
                        need >> 20
                    );
                    g.skip(metric, why);
                    continue;
                }
                g.bytes_per_iter(need);
            }
            let dir = check(metric, "scratch dir", lmbench_support::fs::scratch_dir());
            let dir_s = dir.path().to_string_lossy().into_owned();
            let bytes = memrd_bytes(k).to_string();
            let args = ["scale", s.op, &k.to_string(), s.mode, &dir_s, &bytes];
            let mut peer = check(metric, "start lmbench-peer scale", Peer::spawn(PEER, &args));
            check(metric, "untimed batch", peer.call_timed("run 1", 1));
            bench_peer_requests(&mut g, &mut peer, metric, |n| format!("run {n}"));
            drop(peer);
            drop(dir);
        }
    }
    g.finish();
}

lmbench_support::bench_main!(scaling);
