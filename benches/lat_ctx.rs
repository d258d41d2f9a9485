//! lat_ctx: context switching, a token passed round a ring of processes.
//! Run: `cargo bench --bench lat_ctx` (or `lmbench run lat_ctx`).
//!
//! Method (lmbench's lat_ctx), run inside `lmbench-peer ctx P K`: that
//! small process forks P-1 ring members and is itself member 0; P pipes
//! form the ring. Each member owns a private K KB working set (zeroed
//! once) and sums it one 8-byte word at a time (scalar: volatile loads, as
//! lmbench's C loop, never vectorised) every time the 4-byte token reaches it,
//! then passes the token on. One timed iteration = one trip round the ring
//! = P hand-offs; one untimed trip precedes each interval.
//! - unpinned/Pp_Kk: lmbench's placement (the scheduler's choice).
//! - pinned/Pp_Kk: (Linux) the ring's process binds itself to one CPU
//!   before forking, so every member runs there: each hand-off is a real
//!   switch on one CPU, not a wake-up of a process on another CPU.
//!
//! Paired: lmbench subtracts an overhead (in one process: write the
//! token to a pipe, read it back, sum the K KB set) measured apart from
//! the ring. Here one peer request (`pair B M`) alternates overhead blocks
//! and ring blocks of the same hand-off count in the same process and
//! placement, so each Criterion sample is one paired figure:
//! (ring ns - overhead ns) / hand-offs, lmbench's switch per hand-off, with
//! its own overhead taken moments apart. The samples' spread is the
//! switch's uncertainty; the summary prints `-` and a note where it does
//! not clear zero.
//!
//! One Criterion iteration is one trip round the ring (P hand-offs) and
//! its P overhead passes, so the work (and the wall time Criterion plans
//! from) grows with the iterations; the sample returns the paired switch
//! per hand-off times the iterations, so its "time per iteration" is that
//! switch. A difference at or below `NOT_POSITIVE_NS` (1 ns) is
//! returned as that per iteration (`Paired::sample`): a duration cannot be
//! negative, and a zero-length sample makes Criterion discard the metric.
//! Why in the helper: ring members should be small fresh processes (as
//! lmbench's forked children are), not forks of Criterion's big process.
//! A member that dies breaks the ring: the helper answers `err` and the
//! bench fails with the metric id; a silent helper fails after 10 s.

use std::time::Duration;

use criterion::{Criterion, SamplingMode};
use lmbench_support::catalog::lat_ctx::{PROGRAM, SHAPES};
use lmbench_support::catalog::Metric;
use lmbench_support::child::Peer;
use lmbench_support::harness::{check, Class, Group};
use lmbench_support::peer::ctx::Paired;

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");
/// One request runs one sample; none lasts anywhere near this.
const TIMEOUT: Duration = Duration::from_secs(10);
/// Hand-offs per block: long enough that a block's start (the state the
/// other block left: caches, the scheduler's view of the sleepers) weighs
/// little, short enough that a sample holds several pairs. Measured on the
/// 2-vCPU guest, 2p/16K on one CPU: 3.28 us per hop in blocks of 10 or 100
/// hand-offs, 3.18 in blocks of 4000, 3.11-3.15 in one long run.
const BLOCK_HOPS: u64 = 1000;
/// `pair B M` for `iters` trips: blocks of [`BLOCK_HOPS`] hand-offs, or
/// one block of every trip when there are fewer.
fn blocks(iters: u64, p: usize) -> (u64, u64) {
    let b = (BLOCK_HOPS / p as u64).max(1).min(iters.max(1));
    (b, iters.max(1).div_ceil(b))
}

fn paired(g: &mut Group, metric: &'static Metric, args: &[&str], p: usize) {
    let mut peer = check(metric, "start lmbench-peer ctx", Peer::spawn(PEER, args));
    check(metric, "ring ready", peer.call("ping", TIMEOUT));
    check(metric, "untimed pair", peer.call("pair 1 1", TIMEOUT));
    g.bench(metric, |iters| {
        let (b, m) = blocks(iters, p);
        let reply = check(metric, "ring", peer.call(&format!("pair {b} {m}"), TIMEOUT));
        let pair = check(metric, "ring", Paired::parse(&reply, p, b, m));
        pair.sample(iters)
    });
}

fn lat_ctx(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    // 14 benchmarks. Flat: every sample the same number of paired blocks.
    // Criterion plans from the switch time returned, about half the wall
    // time of a sample (its overhead blocks are not returned), so 1.5 s
    // planned is about 3 s of rings.
    g.criterion()
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500));
    for (p, k, unpinned, pinned, _) in SHAPES {
        let ks = k.to_string();
        paired(&mut g, unpinned, &["ctx", &p.to_string(), &ks], p);
        if cfg!(target_os = "linux") {
            paired(&mut g, pinned, &["ctx", &p.to_string(), &ks, "pin"], p);
        }
    }
    g.finish();
}

lmbench_support::bench_main!(lat_ctx);
