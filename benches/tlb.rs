//! tlb: how many pages a chain can touch before its loads slow down.
//! Run: `cargo bench --bench tlb` (or `lmbench run tlb`).
//!
//! Method: for a page count N, two random-order pointer chains with N
//! slots each, one load per iteration:
//! - pages: one slot per 4 KB page (slot k of a page at line k mod 64, so
//!   the lines spread over the cache sets), N pages;
//! - lines: the same N loads packed in N adjacent 64 B lines.
//!
//! Both touch N cache lines; only `pages` needs N TLB entries. A count is
//! "slow" when its page chain is more than 15 % slower than its line chain.
//! The sweep measures the powers of two from 8 to 8192, then bisects the
//! catalog's finer counts (8 steps per doubling: .., 64, 72, 80, .., 120,
//! 128, ..) between the last flat power and the first slow one, so the
//! figure has 1/8-octave resolution for 3 extra pairs. A filter that
//! selects no power of two gets the finer counts it names, measured as
//! asked (a re-measurement of points an earlier sweep chose). The
//! summary's "tlb pages" is the largest measured N at most 15 % slower
//! than its line chain, every smaller measured N too. The buffer asks
//! for base pages (MADV_NOHUGEPAGE) so transparent huge pages cannot hide
//! the TLB.
//! Headline: the minimum over samples, each its fastest chunk of 16K
//! loads, as for lat_mem_rd; the bisection decides on those minima.
//!
//! What lmbench's tlb does (described from its source, not copied): it
//! doubles the page count from 8 until the page chain is more than 15 %
//! slower than the packed chain, then bisects between the last flat power
//! and that one down to a single page, and reports the last flat count.
//! Its page chain takes each page from its own allocation (so pages are
//! scattered), one word per page at a line and word that vary page to
//! page; its packed chain puts the same number of loads in consecutive
//! lines of as few pages as hold them. Each point is the median of
//! several benchmp runs. Ours differs in resolution (1/8 octave, not one
//! page: each point is a Criterion benchmark with its own id) and in
//! taking the minimum.
//!
//! First principles: on a 2-vCPU AMD EPYC (Zen 4) guest,
//! cpuid (leaves 0x80000005/6, `cargo run --release --example mem_ref --
//! dtlb`) reports 72 L1 and 3072 L2 data-TLB entries for 4 KB pages
//! (/proc/cpuinfo: "TLB size: 3584 4K pages", L1 + L2 + instruction). The
//! powers-of-two sweep could say at most 64 there. Measured there (quick
//! preset, idle, two runs alike; ns per load, pages/lines): 64: 1.08/1.08,
//! 72: 1.09/1.08, 80: 2.98/1.08, 96 and 128: 2.98/1.08, so tlb pages = 72,
//! cpuid's L1 figure. Past the L1 TLB a page chain hits the L2 TLB at
//! about 2 ns more per load; the L2 TLB's 3072 entries show as a second
//! rise between 2048 (5.96/3.81) and 4096 pages (23-34/3.80).

use criterion::Criterion;
use lmbench_support::catalog::tlb::{
    self as cat,
    function::{LINES, PAGES},
    PROGRAM, SLOWDOWN,
};
use lmbench_support::chase::{criterion_listing, Buffer, LINE, PAGE};
use lmbench_support::harness::{check, Class, Group};

#[path = "common/mod.rs"]
mod common;
use common::{bench_chain, sweep_config, sweep_group, Selection};

/// Measures one count's page and line chains; returns whether the page
/// chain was slow (None if either was not measured: filtered out).
fn pair(
    g: &mut Group,
    buf: &mut Buffer,
    n: u64,
    listing: bool,
    selected: &Selection,
) -> Option<bool> {
    let mut ns = [None, None];
    for (i, function) in [PAGES, LINES].into_iter().enumerate() {
        let first = PROGRAM.metrics[0];
        let metric = check(
            first,
            "catalog point",
            cat::point(function, n).ok_or("missing"),
        );
        if !selected.wants(metric.id) {
            continue;
        }
        let n = if listing { 1 } else { n as usize };
        let spacing = if function == PAGES { PAGE } else { LINE };
        let built = buf.random_chain(n, spacing, function == PAGES, 0x0074_6c62);
        let chain = check(metric, "build the chain", built);
        ns[i] = bench_chain(g, metric, chain, buf, 16 << 10);
    }
    Some(ns[0]? > SLOWDOWN * ns[1]?)
}

fn tlb(c: &mut Criterion) {
    let listing = criterion_listing();
    let selected = Selection::from_args();
    let counts = cat::counts();
    let max = *counts.last().expect("tlb has counts") as usize;
    let first = &PROGRAM.metrics[0];
    let mut buf = check(
        first,
        "allocate the chain buffer",
        Buffer::new(if listing { PAGE } else { max * PAGE }),
    );
    buf.base_pages_only();
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    sweep_group(&mut g);
    if listing {
        // Every id, so the listing matches the catalog.
        for &n in &counts {
            pair(&mut g, &mut buf, n, true, &selected);
        }
        g.finish();
        return;
    }
    // The powers of two; remember the last flat one before the first slow.
    let mut bracket = None;
    let mut last_flat = None;
    let powers = || counts.iter().copied().filter(|n| n.is_power_of_two());
    for n in powers() {
        match pair(&mut g, &mut buf, n, false, &selected) {
            Some(false) => last_flat = Some(n),
            Some(true) if bracket.is_none() => bracket = last_flat.map(|lo| (lo, n)),
            _ => {}
        }
    }
    // A filter that leaves out every power (`run --budget` re-measuring
    // a point an earlier run bisected to) names the finer counts it wants:
    // measure those as asked, there is no sweep to bisect.
    let sweep_filtered = !powers()
        .flat_map(|n| [PAGES, LINES].map(|f| cat::point(f, n)))
        .flatten()
        .any(|m| selected.wants(m.id));
    if sweep_filtered {
        for n in counts.iter().copied().filter(|n| !n.is_power_of_two()) {
            pair(&mut g, &mut buf, n, false, &selected);
        }
        g.finish();
        return;
    }
    // Bisect the finer counts strictly between them.
    if let Some((mut lo, mut hi)) = bracket {
        loop {
            let inner: Vec<u64> = counts
                .iter()
                .copied()
                .filter(|&n| lo < n && n < hi)
                .collect();
            let Some(&mid) = inner.get(inner.len() / 2) else {
                break;
            };
            match pair(&mut g, &mut buf, mid, false, &selected) {
                Some(true) => hi = mid,
                Some(false) => lo = mid,
                None => break,
            }
        }
    }
    g.finish();
}

lmbench_support::bench_main!(config = sweep_config(); tlb);
