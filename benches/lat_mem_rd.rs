//! lat_mem_rd: memory read latency over working sets from 512 B to the
//! machine's top size (1 or 2 GiB, see below).
//! Run: `cargo bench --bench lat_mem_rd` (or `lmbench run lat_mem_rd`);
//! `lmbench plot` draws the curves.
//!
//! Method (lmbench's lat_mem_rd): a chain of slots, each holding the
//! address of the next, is followed with `p = *p` in unrolled blocks of 100
//! dependent loads; one iteration is one load. Strides 16, 64, 128, 256 and
//! 1024 B link the slots in address order (lmbench's stride chains, which
//! hardware prefetchers can follow). Three random chains (fixed seeds, see
//! `chase::Buffer`):
//! - `thrash`: lmbench's random chain, the summary's Rand mem: every 64 B
//!   line of the working set once, consecutive loads on different pages,
//!   so each load may miss the caches and the TLB, and at 4x the last-level
//!   cache it reads memory;
//! - `page` (not in lmbench): one slot per 4 KB page, staggered across
//!   lines, pages in random order: TLB reach and page-walk cost (at 1 GiB
//!   it touches only 16 MiB of lines, so it is mostly cached data);
//! - `inpage` (not in lmbench): pages in random order, all lines of a page
//!   in random order before the next: a TLB miss at most once per 64 loads,
//!   and no order a prefetcher can follow, so a working set inside a cache
//!   level shows that level's latency ("latency, random in level");
//! - `line16` .. `line256` (not in lmbench): the `inpage` chain with slots
//!   16-256 B apart at 256 MiB, the cache-line detector: the latency rises
//!   with the stride until each slot is a line of its own, and the random
//!   order keeps the stream prefetchers from hiding that (lmbench's stride
//!   chains keep rising past the line because prefetchers fetch ahead).
//!   An adjacent-line prefetcher (Intel's spatial prefetcher: each miss
//!   also fetches the line's 128 B-aligned pair) is not fooled by order:
//!   where it makes the 64 to 128 B step as steep as the steps below, the
//!   curve shows the pair, and the summary's note says it is twice the
//!   OS's line (on a Xeon guest that step read 1.6-1.7x with 2 MB pages
//!   too, so it is not TLB reach).
//!
//! The headline is the minimum over the samples, as lmbench reports; the
//! median is kept too.
//!
//! Each sample reports its fastest chunk of 16K loads (times the sample's
//! load count): on a machine shared with other work, most intervals
//! include someone else's time slice; lmbench's minimum over intervals
//! then needs intervals short enough to fit in one.
//!
//! Differences from lmbench: the chain is built (and walked once, untimed,
//! checking that it is one cycle) before each point rather than before each
//! interval, and each timed interval continues where the previous stopped,
//! so all of a large working set is walked. The timed loop is placed so its
//! code never straddles a page (`chase::Chain::chase`): where it did, the
//! stride chains past the L2 read up to 30% slower. Sizes take 2 points per
//! doubling at stride 128 (1 elsewhere) instead of 8; with `--quick` the
//! program took 27 s on a 2-vCPU VM (the chains that read every line of a
//! 1 GiB set cost a few seconds each to build and lap).
//!
//! Top size: every curve runs to this machine's top size
//! (`catalog::lat_mem_rd::top_size`): the smallest power of two at least
//! 4x the last-level cache the OS reports, at least 1 GiB (the sweep's
//! old fixed end, so small-cache machines compare with older runs), at
//! most 2 GiB, and capped by free memory (a line on stderr and the
//! summary's note say so). lmbench leaves the size to its user and asks
//! for several times the caches; the summary's Main mem, Rand mem and
//! their random-in-level counterparts read at the top size. On a Xeon
//! guest reporting a 480M L3 that is 2 GiB (1 GiB was 2.1x).
//! In Criterion's test mode (`cargo test --benches`) sizes stop at 1 MiB.

use criterion::Criterion;
use lmbench_support::catalog::lat_mem_rd::{self as cat, PROGRAM};
use lmbench_support::chase::{criterion_listing, Buffer, PAGE};
use lmbench_support::harness::{check, Class, Group};
use lmbench_support::size;

#[path = "common/mod.rs"]
mod common;
use common::{bench_chain, sweep_config, sweep_group, Selection};

/// Loads per timed chunk (see `fastest_chunk`): 16K loads is 30 us in L1,
/// a few ms in memory.
const CHUNK: u64 = 16 << 10;

/// The largest working set on this machine (`chase::machine_top_size`),
/// with a line saying so when free memory capped it under 4x the cache.
fn top_size() -> u64 {
    let (top, capped, llc) = lmbench_support::chase::machine_top_size();
    if capped {
        eprintln!(
            "lat_mem_rd: top size {}, under 4 x the last-level cache ({}): capped",
            size::human(top),
            size::human(llc.unwrap_or(0))
        );
    }
    top
}

fn lat_mem_rd(c: &mut Criterion) {
    let listing = criterion_listing();
    let selected = Selection::from_args();
    let testing = lmbench_support::harness::test_mode();
    let cap = if testing { 1 << 20 } else { top_size() };
    let first = &PROGRAM.metrics[0];
    let mut buf = check(
        first,
        "allocate the chain buffer",
        Buffer::new(if listing { 2 * PAGE } else { cap as usize }),
    );
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    sweep_group(&mut g);
    let line_only = cat::LINE_SHAPES
        .iter()
        .filter(|(f, _)| cat::line_stride(f).is_some());
    for &(function, stride) in cat::SHAPES.iter().chain(line_only) {
        for (size, metric) in cat::metrics_by_size(function) {
            if size > cap {
                let why = if testing {
                    "test mode".to_string()
                } else {
                    format!("above this machine's top size {}", size::human(cap))
                };
                g.skip(metric, why);
                continue;
            }
            if !selected.wants(metric.id) {
                continue;
            }
            // Listing runs nothing: a one-page chain stands in.
            let bytes = if listing { size.min(PAGE as u64) } else { size } as usize;
            let built = buf.lat_mem_rd_chain(function, stride as usize, bytes);
            let chain = check(metric, "build the chain", built);
            bench_chain(&mut g, metric, chain, &buf, CHUNK);
        }
    }
    g.finish();
}

lmbench_support::bench_main!(config = sweep_config(); lat_mem_rd);
