//! par_mem: memory-level parallelism at the largest working set.
//! Run: `cargo bench --bench par_mem` (or `lmbench run par_mem`).
//!
//! Method (lmbench's par_mem, reimplemented): the pages of a 1 GiB buffer
//! (base pages, one slot per page, line staggered) are shuffled and split
//! into k random chains, k = 1, 2, 3, 4, 6, 8, 12, 16. One iteration
//! advances every chain one hop: k loads, each dependent on its own chain
//! only, so the CPU may overlap them. The summary's "mem par" is the best
//! k * t(1) / t(k): how many misses the memory system serves at once.
//! Headline: the minimum over samples, each its fastest chunk of 4096
//! hops (see lat_mem_rd). In Criterion's test mode the buffer
//! is 4 MiB.

use criterion::{criterion_group, criterion_main, Criterion};
use lmbench_support::catalog::par_mem::{self as cat, PROGRAM, SIZE};
use lmbench_support::chase::{chase_all, criterion_listing, Buffer, PAGE};
use lmbench_support::harness::{check, failed, Class, Group};

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
        SIZE as usize
    };
    let first = &PROGRAM.metrics[0];
    let mut buf = check(first, "allocate the chain buffer", Buffer::new(bytes));
    buf.base_pages_only();
    let pages = bytes / PAGE;
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    sweep_group(&mut g);
    for &metric in PROGRAM.metrics {
        if !selected.wants(metric.id) {
            continue;
        }
        let k = check(metric, "chain count", cat::k_of(metric).ok_or("bad id"));
        let built = buf.random_chains(pages, PAGE, k, 0x0070_6172);
        let mut chains = check(metric, "build the chains", built);
        // One untimed lap of the longest chain: faults and warms the pages
        // and proves each chain is one cycle.
        let starts: Vec<usize> = chains.iter().map(|c| c.position()).collect();
        let lens: Vec<usize> = chains.iter().map(|c| c.len()).collect();
        for (c, &len) in chains.iter_mut().zip(&lens) {
            c.chase(&buf, len as u64);
        }
        if chains.iter().zip(&starts).any(|(c, &s)| c.position() != s) {
            failed(metric, "a chain is not one cycle");
        }
        g.bench(metric, |iters| {
            fastest_chunk(iters, 4096, |n| chase_all(&mut chains, &buf, n))
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = sweep_config();
    targets = par_mem
}
criterion_main!(benches);
