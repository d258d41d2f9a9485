//! line: the coherence line, from two CPUs writing words a distance apart.
//! Run: `cargo bench --bench line` (or `lmbench run line`).
//!
//! Method (not lmbench's: its `line` program reads the line from load
//! latency against stride, as our `lat_mem_rd/line*` chains do, and an
//! adjacent-line prefetcher can make that read twice the line): timed
//! inside `lmbench-peer line D`, a small fresh process bound to one CPU
//! that forks a partner bound to another. While the partner adds 1 to the
//! word D bytes after a page-aligned word, atomically and without pause,
//! the peer times N atomic adds (`lock xadd` on x86-64) to the page-aligned
//! word; one iteration is one add. An atomic add needs its line exclusive:
//! while both words share a line, each add takes the line from the other
//! CPU; from D = the line size on, each CPU keeps its own line and the add
//! costs what it costs alone. So the step is at the line, not at the pair
//! an adjacent-line prefetcher fetches (the summary's cache-line note reads
//! it: `catalog::line::line_of`). D = 4k (the next page) is the
//! uncontended reference. On the Xeon guest of issue 12 (load under 0.5,
//! 2026-12-02 06:09): 37-49 ns up to 32 B apart, 5.6-6.4 ns from 64 B,
//! 128 B and 256 B as cheap as 4k; a bare loop of the same adds (fork,
//! pin, `lock xadd`) read 34-49 and 4.9-6.6 ns beside it.
//!
//! Checked on every request, outside the clock: the clock starts once the
//! partner's word has moved (both CPUs are adding), and the timed word
//! moved by exactly N. Fewer than two allowed CPUs, or an OS without affinity
//! and futex calls (non-Linux), skip every metric with the reason. Each
//! metric has its own peer, so each starts from fresh memory.

use criterion::Criterion;
use lmbench_support::catalog::line::PROGRAM;
use lmbench_support::catalog::Metric;
use lmbench_support::harness::{bench_peer_runs, check, Class, Group};
use lmbench_support::proc::Peer;

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

fn probe(g: &mut Group, metric: &'static Metric) {
    let d = metric
        .function_and_parameter()
        .1
        .expect("line ids end in a distance");
    let mut peer = check(
        metric,
        "start lmbench-peer line",
        Peer::spawn(PEER, &["line", d]),
    );
    bench_peer_runs(g, &mut peer, metric);
}

fn line(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    for m in PROGRAM.metrics {
        probe(&mut g, m);
    }
    g.finish();
}

lmbench_support::bench_main!(line);
