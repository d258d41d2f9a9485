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
//! word; one iteration is one add, timed in whole chunks of 2048 adds
//! (a request for fewer answers at the chunks' rate: Criterion asks for
//! one add per sample when the peer's wait for contention is long, and
//! one add alone timed reads the clock, 40-60 ns on an AMD EPYC guest,
//! which put "no contention" in 4 of 7 distances there). An atomic add
//! needs its line exclusive:
//! while both words share a line, each add takes the line from the other
//! CPU; from D = the line size on, each CPU keeps its own line and the add
//! costs what it costs alone. So the step is at the line, not at the pair
//! an adjacent-line prefetcher fetches (the summary's cache-line note reads
//! it: `analysis::cache_line::coherence_line_of`). D = 4k (the next page) is the
//! uncontended reference. On a 2-vCPU Intel Xeon KVM guest (load under
//! 0.5): 37-49 ns up to 32 B apart, 5.6-6.4 ns from
//! 64 B, 128 B and 256 B as cheap as 4k; a bare loop of the same adds (fork,
//! pin, `lock xadd`) read 34-49 and 4.9-6.6 ns beside it.
//!
//! Only adds made while the two CPUs contend across cores count: the
//! peer times rounds of three chunks (the timed word, a word sharing the
//! partner's line, a word alone) and counts the timed chunk when the
//! partner added beside all three and the shared word cost at least 3x the
//! lone one. On a guest, the host runs the two vCPUs where it likes: on
//! that Xeon guest, for seconds at a time one was stolen (an add alone) or
//! both cost 11-12 ns whether the words shared a line or not (as two
//! hyperthreads of one core would), and each distance, measured at its
//! own time, could land in any of these states: without this gate two
//! runs found no line, and another a "256 B" one.
//! Details in `lmbench-peer line`.
//!
//! Checked on every request, outside the clock: the clock starts once the
//! partner's word has moved (both CPUs are adding), and each word moved by
//! every add made on it, counted or not. 8 s without a round that counts
//! fails the request (skips the metric, on its first request). Fewer than
//! two allowed CPUs, or an OS without affinity and futex calls (non-Linux),
//! skip every metric with the reason. Each metric has its own peer, so
//! each starts from fresh memory.

use criterion::Criterion;
use lmbench_support::catalog::line::PROGRAM;
use lmbench_support::catalog::Metric;
use lmbench_support::child::Peer;
use lmbench_support::harness::{bench_peer_runs, check, Class, Group};

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
