//! par_mem: memory-level parallelism at the largest working set.
//! Run: `cargo bench --bench par_mem` (or `lmbench run par_mem`).
//!
//! Method: k independent chains, k = 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, through a
//! working set of the machine's memory bandwidth top size
//! (`bw::machine_top_size`: the smallest power of two at least 4x the
//! last-level cache, so the loads read DRAM; base pages). The chains are
//! lat_mem_rd's Rand mem ("thrash") order split into k runs, each closed
//! into its own cycle (`Buffer::thrash_chains`): every line of the working
//! set once, consecutive loads of a chain on different pages. One
//! iteration advances every chain one hop: k loads, each dependent on its
//! own chain only, so the CPU may overlap them. The summary's "mem par" is
//! the best k * t(1) / t(k): how many misses the memory system serves at
//! once. Headline: the minimum over samples, each its fastest chunk of
//! 4096 hops (see lat_mem_rd). An untimed run of 64K hops warms up before
//! each k (a whole lap at 1 load per ~150 ns would take seconds; the chains
//! are one cycle each by construction, tested in `chase`). In Criterion's
//! test mode the buffer is 4 MiB.
//!
//! Not chains of one slot per 4 KB page: over 1 GiB those hold 16 MiB of
//! lines, a page-walk chain that partly sits in the last-level cache, so
//! their speed-up is not DRAM parallelism.
//!
//! lmbench's par_mem reports the best speed-up of k interleaved chains
//! over one at a given size: 59-76 at 64 MiB on a 2-vCPU AMD EPYC (Zen 4)
//! guest, where chains of one slot per page read 10.8-23.
//!
//! Check with a known number of chains: `cargo run --release --example
//! mem_ref -- par SIZE` chases k = 1, 2, 4, 8, 16, 32 independent thrash
//! chains in plain Rust (its own shuffle and loop, no suite code) and
//! prints ns per load: with a memory system that serves m misses at once,
//! time per load falls about 1/k up to k = m, then stays. Measured on that
//! Zen 4 guest at 128M (4x its 32M L3; quiet, load under 0.7, two rounds
//! each; ns per hop / ns per load):
//! - mem_ref par: k=1 147-174 (one noisy round 83-114), k=2 146-163,
//!   k=4 148-156 / 37-39, k=8 153-160 / 19-20, k=16 127-180 / 8-11,
//!   k=32 196-221 / 6.1-6.9: the hop time stays flat to k=16 (per load
//!   1/k) and rises past it;
//! - this bench: k=1 139-155, k=8 141-168 / 18-21, k=16 146-176 / 9-11,
//!   k=24 175-184 / 7.3-7.7, k=32 246-274 / 7.7-8.6: mem par (best
//!   k t(1)/t(k)) 18-19 at k=24; about 20 misses in flight is this
//!   machine's limit (one core's miss buffers), reached between k=16 and
//!   k=32. So the page-walk chains' 10.8-23 was partly cache, and
//!   lmbench's 59-76 cannot be DRAM parallelism of one core here: its
//!   chains are not thrash chains (see lat_mem_rd's Rand mem).

use criterion::Criterion;
use lmbench_support::catalog::par_mem::{self as cat, PROGRAM};
use lmbench_support::chase::{chase_all, criterion_listing, Buffer, PAGE};
use lmbench_support::harness::{check, Class, Group};

#[path = "common/mod.rs"]
mod common;
use common::{fastest_chunk, sweep_config, sweep_group, Selection};

fn par_mem(c: &mut Criterion) {
    let listing = criterion_listing();
    let selected = Selection::from_args();
    let bytes = if listing {
        16 * PAGE
    } else if lmbench_support::harness::test_mode() {
        4 << 20
    } else {
        lmbench_support::bw::machine_top_size().0 as usize
    };
    let first = &PROGRAM.metrics[0];
    let mut buf = check(first, "allocate the chain buffer", Buffer::new(bytes));
    buf.base_pages_only();
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    sweep_group(&mut g);
    for &metric in PROGRAM.metrics {
        if !selected.wants(metric.id) {
            continue;
        }
        let k = check(metric, "chain count", cat::k_of(metric).ok_or("bad id"));
        let built = buf.thrash_chains(bytes, k, 0x0070_6172);
        let mut chains = check(metric, "build the chains", built);
        // Untimed warm-up (see the module doc).
        chase_all(&mut chains, &buf, 1 << 16);
        g.bench(metric, |iters| {
            fastest_chunk(iters, 4096, |n| chase_all(&mut chains, &buf, n))
        });
    }
    g.finish();
}

lmbench_support::bench_main!(config = sweep_config(); par_mem);
