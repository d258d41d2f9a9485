//! tlb: how many pages a chain can touch before its loads slow down.
//! Run: `cargo bench --bench tlb` (or `lmbench run tlb`).
//!
//! Method (lmbench's tlb, reimplemented): for N = 8 .. 8192, two random-
//! order pointer chains with N slots each, one load per iteration:
//! - pages: one slot per 4 KB page (slot k of a page at line k mod 64, so
//!   the lines spread over the cache sets), N pages;
//! - lines: the same N loads packed in N adjacent 64 B lines.
//!
//! Both touch N cache lines; only `pages` needs N TLB entries. The summary's
//! "tlb pages" is the largest N whose page chain is at most 15 % slower
//! than its line chain (every smaller N too). The buffer asks for base
//! pages (MADV_NOHUGEPAGE) so transparent huge pages cannot hide the TLB.
//! Headline: the minimum over samples, each its fastest chunk of 16K
//! loads, as for lat_mem_rd.
//!
//! Resolution (issue 12, not yet changed): the counts are powers of two,
//! so the figure is the largest power of two the first-level data TLB
//! holds, a lower bound. On the AMD EPYC (Zen 4) VM of the issue, cpuid
//! (leaves 0x80000005/6, `cargo run --release --example mem_ref -- dtlb`)
//! reports 72 L1 and 3072 L2 data-TLB entries for 4 KB pages: the truth is
//! 72, this sweep can say at most 64. lmbench's tlb searches finer (hence
//! its 48 against our 64 on another machine); a finer grid here is the
//! open part of that issue.

use criterion::{criterion_group, criterion_main, Criterion};
use lmbench_support::catalog::tlb::{self as cat, PROGRAM};
use lmbench_support::chase::{criterion_listing, Buffer, LINE, PAGE};
use lmbench_support::harness::{check, Class, Group};

#[path = "common/mod.rs"]
mod common;
use common::{bench_chain, sweep_config, sweep_group, Selection};

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
    for n in counts {
        for function in ["pages", "lines"] {
            let metric = check(
                first,
                "catalog point",
                cat::point(function, n).ok_or("missing"),
            );
            if !selected.wants(metric.id) {
                continue;
            }
            let n = if listing { 1 } else { n as usize };
            let spacing = if function == "pages" { PAGE } else { LINE };
            let built = buf.random_chain(n, spacing, function == "pages", 0x0074_6c62);
            let chain = check(metric, "build the chain", built);
            bench_chain(&mut g, metric, chain, &buf, 16 << 10);
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = sweep_config();
    targets = tlb
}
criterion_main!(benches);
