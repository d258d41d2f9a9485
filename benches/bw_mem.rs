//! bw_mem: memory bandwidth by access pattern and size.
//! Run: `cargo bench --bench bw_mem` (or `lmbench run bw_mem`).
//!
//! Method (lmbench's bw_mem): page-aligned buffers, allocated and touched
//! once outside timing and freed before the next size; each iteration is
//! one pass over the buffer, counted as the buffer size once:
//! - rd / wr / rdwr / cp: one 4-byte int per 16 bytes (lmbench's loops);
//! - frd: every 4-byte int, in lmbench's compiled form: one chain of 128
//!   adds per 512-byte block (`bw::add_chain`; byte for byte gcc's loop
//!   on x86-64), the Mem read column;
//! - fwr: every 4-byte int set to 1, in lmbench's compiled form: the 128
//!   ints of each 512-byte block stored from the top of the block down,
//!   4 bytes at a time (`bw::block_store`; byte for byte gcc's loop at -O
//!   on x86-64), the Mem write column. The order is what lmbench
//!   measures: a CPU that streams upward stores (an AMD EPYC guest: about
//!   4x) cannot stream these;
//! - fwr_up (not in lmbench): every 8-byte word stored upward, what Mem
//!   write would read with the order and width store streaming favours;
//!   the summary's Write up column, after lmbench's, with its ratio to Mem
//!   write in the table's notes;
//! - fcp: every 4-byte int, a 4-byte load and store each, upward, in
//!   lmbench's compiled form (`bw::block_store`), the Bcopy (hand) column;
//! - bzero / bcopy: libc's memset / memcpy;
//! - frd_huge (not in lmbench): frd over a 2 MB-aligned anonymous buffer
//!   advised MADV_HUGEPAGE, from 2 MB up, and only where the kernel gave
//!   it at least 90% huge pages (see `huge_read`): what TLB reach is worth
//!   to Mem read, shown beside it in the summary;
//! - bread (not in lmbench's bw_mem): the File and Mmap rereads' sum
//!   (lmbench's bread: every 8-byte word, one chain of 128 adds per 1 KB
//!   block, `bw::sum_words`) over Mem read's buffer. frd adds one 4-byte
//!   int per add, bread one 8-byte long, so where frd's chain limits it
//!   (twice as many adds per byte) a reread can pass Mem read without
//!   reading memory faster; bread over the heap is the like-for-like
//!   bound the summary checks the rereads against (on the Xeon guest of
//!   issue 12 at 2 GB: bread 1.23-1.33x frd over one heap, and 2.0x in
//!   L1).
//!
//! The hand loops are **scalar, never vectorised**: volatile accesses of
//! an explicit integer width, or for frd, fwr and fcp `asm!` (see
//! `lmbench_support::bw::kernels`), so a new compiler cannot change what
//! they measure. Sizes double from 4 KB to
//! the top size `catalog::bw_mem::top_size`: the smallest power of two at
//! least 4 x the last-level cache (the OS's, see `machine::Facts`; 512 MB
//! if unknown), at most 2 GB, and capped so that the two copy buffers take
//! at most half of the memory available (MemAvailable) when the run starts.
//! Every mode reaches the top size (the copying modes' size is that of each
//! of their two buffers), so the summary's Mem read, Mem write and both
//! Bcopy columns are all one size, past the caches; the table's note says
//! which and whether it was capped. In Criterion's test mode sizes stop at
//! 1 MB (CI stays fast).
//!
//! Sampling: flat, 10 samples, 0.2 s warm-up, 0.6 s per point; no plots
//! (about three minutes for the ~160 points on an idle 2-CPU machine).
//!
//! Ceilings (default preset only): right after bcopy and bzero at the
//! top size, the same memcpy / memset on the same buffers in a plain loop,
//! and `perf bench mem memcpy|memset` at that size (if perf runs here), are
//! measured and printed beside our figure (`ceiling: ...` lines, which
//! `lmbench run` echoes). They check the method, not the machine, and at
//! 2 GB perf's four memcpy functions take about 25 s a call: with three
//! calls each they were two of the three minutes the top-size bcopy and
//! bzero took in the quick preset on a Xeon guest, which a 15-minute
//! `run --budget` sitting paid in its first round and in every round that
//! measured them again.

use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode};
use lmbench_support::bw::{ceiling, kernels, kernels::Buf, kernels::HUGE_PAGE, parse_size};
use lmbench_support::catalog::bw_mem::{self as cat, mode, PROGRAM};
use lmbench_support::catalog::Metric;
use lmbench_support::harness::{check, test_mode, Class, Group, Preset};

const TEST_CAP: usize = 1 << 20;

/// The largest size of the sweep on this machine (`cat::top_size`), with a
/// line saying so when free memory capped it.
fn top_size() -> usize {
    let (top, capped, llc) = lmbench_support::bw::machine_top_size();
    if capped {
        eprintln!(
            "bw_mem: top size {} MB, under 4 x the last-level cache ({} MB): capped by available memory",
            top >> 20,
            llc.unwrap_or(0) >> 20
        );
    }
    top as usize
}

/// One timed run of `iters` passes of `mode`; `b` is the destination of
/// the copying modes. Returns the elapsed time.
fn passes(mode: &str, iters: u64, a: &mut Buf, b: &mut Buf) -> Duration {
    use std::hint::black_box;
    macro_rules! timed {
        ($body:expr) => {{
            let t = Instant::now();
            for _ in 0..iters {
                black_box($body);
            }
            t.elapsed()
        }};
    }
    match mode {
        mode::RD => timed!(kernels::rd(a.as_u32())),
        mode::WR => timed!(kernels::wr(a.as_u32_mut())),
        mode::RDWR => timed!(kernels::rdwr(a.as_u32_mut())),
        mode::CP => timed!(kernels::cp(a.as_u32(), b.as_u32_mut())),
        mode::FRD => timed!(kernels::frd(a.as_u64())),
        mode::FWR => timed!(kernels::fwr(a.as_u32_mut())),
        mode::FWR_UP => timed!(kernels::fwr_up(a.as_u64_mut())),
        mode::FCP => timed!(kernels::fcp(a.as_u32(), b.as_u32_mut())),
        mode::BZERO => timed!(kernels::bzero(a.as_bytes_mut())),
        mode::BCOPY => timed!(kernels::bcopy(a.as_bytes(), b.as_bytes_mut())),
        mode::BREAD => timed!(lmbench_support::bw::sum_words(a.as_u64())),
        other => unreachable!("bw_mem mode {other} has no kernel"),
    }
}

/// Checks once, before timing, that a pass does what it claims.
fn verify(m: &Metric, mode: &str, a: &mut Buf, b: &mut Buf) {
    let n = a.len() / 4;
    a.as_u32_mut()[0] = 0xabcd;
    a.as_u32_mut()[n - 16] = 0x1234;
    if cat::is_copy(mode) {
        b.as_u32_mut()[0] = 0;
        b.as_u32_mut()[n - 16] = 0;
    }
    passes(mode, 1, a, b);
    let ok = match mode {
        mode::CP | mode::FCP | mode::BCOPY => {
            b.as_u32()[0] == 0xabcd && b.as_u32()[n - 16] == 0x1234
        }
        mode::WR | mode::RDWR => a.as_u32()[0] != 0xabcd && a.as_u32()[n - 16] != 0x1234,
        mode::FWR => a.as_u32()[0] == 1 && a.as_u32()[n - 16] == 1,
        mode::FWR_UP | mode::BZERO => a.as_u64()[0] == 0 && a.as_u32()[n - 16] != 0x1234,
        _ => true,
    };
    if !ok {
        lmbench_support::harness::failed(m, "an untimed pass did not store what it should");
    }
}

/// MB/s of the last `n` recorded (iters, time) calls: Criterion's samples.
fn sampled_mbps(calls: &[(u64, Duration)], bytes: usize, n: usize) -> Option<f64> {
    let mut rates: Vec<f64> = calls[calls.len().saturating_sub(n)..]
        .iter()
        .map(|(i, t)| bytes as f64 * *i as f64 / t.as_secs_f64() / 1e6)
        .collect();
    rates.sort_by(f64::total_cmp);
    rates.get(rates.len() / 2).copied()
}

fn bw_mem(c: &mut Criterion) {
    let testing = test_mode();
    let ceilings = !testing && Preset::from_env() == Preset::Default;
    let top = top_size();
    let top = if testing { top.min(TEST_CAP) } else { top };
    let mut g = Group::new(c, &PROGRAM, Class::Bandwidth);
    g.criterion()
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(600));
    for size_id in cat::SIZES {
        let size = parse_size(size_id).expect("catalog sizes parse");
        if size > top {
            for mode in cat::MODES {
                let m = cat::metric(mode, size_id).expect("in catalog");
                g.skip(m, format_args!("above this machine's top size {}", top));
            }
            continue;
        }
        let first = cat::metric(cat::MODES[0], size_id).expect("in catalog");
        let mut a = check(first, "allocate", Buf::new(size, 1));
        let mut b = check(first, "allocate", Buf::new(size, 2));
        for mode in cat::MODES.iter().filter(|m| **m != mode::FRD_HUGE) {
            let m = cat::metric(mode, size_id).expect("in catalog");
            verify(m, mode, &mut a, &mut b);
            // The libc modes at the summary size get their ceilings.
            let record = ceilings && matches!(*mode, mode::BCOPY | mode::BZERO) && size == top;
            let mut calls = Vec::new();
            g.bytes_per_iter(size as u64);
            g.bench(m, |iters| {
                let t = passes(mode, iters, &mut a, &mut b);
                if record {
                    calls.push((iters, t));
                }
                t
            });
            if let Some(ours) = sampled_mbps(&calls, size, 10) {
                print_ceilings(mode, size, ours, &mut a, &mut b);
            }
        }
        // Freed before the next size, and before a third buffer of this one.
        drop((a, b));
        huge_read(&mut g, size_id, size);
    }
    g.finish();
}

/// frd over huge pages (not in lmbench): Mem read's loop over a buffer
/// the TLB covers 2 MB per entry instead of 4 KB, beside Mem read's heap
/// buffer (4 KB pages unless THP is `always`). On a guest under nested
/// paging the difference can be large (1.86x at 128 MB, `mem_ref abw`,
/// issue 12; 0.95-1.48x at 2 GB on a 2-vCPU Intel Xeon KVM guest, with
/// where the memory lies).
/// Skipped below one huge page, and where the kernel gave
/// less than 90% of the buffer in huge pages: then it is no huge-page
/// figure.
fn huge_read(g: &mut Group, size_id: &str, size: usize) {
    let m = cat::metric(mode::FRD_HUGE, size_id).expect("in catalog");
    if size < HUGE_PAGE {
        g.skip(m, "below one 2 MB huge page");
        return;
    }
    let buf = match Buf::huge(size, 1) {
        Ok(b) => b,
        Err(e) => {
            g.skip(m, format_args!("no huge-page buffer here: {e}"));
            return;
        }
    };
    let huge = buf.huge_bytes().unwrap_or(0);
    if huge * 10 < size as u64 * 9 {
        g.skip(
            m,
            format_args!(
                "the kernel gave {}% of the buffer in huge pages (THP off, or none free): no huge-page figure",
                100 * huge / size as u64
            ),
        );
        return;
    }
    g.bytes_per_iter(size as u64);
    g.bench(m, |iters| {
        let t = Instant::now();
        for _ in 0..iters {
            std::hint::black_box(kernels::frd(buf.as_u64()));
        }
        t.elapsed()
    });
}

/// Measures and prints, right after bw_mem's own figure (`ours`, MB/s),
/// the same libc call on the same buffers in a plain loop and `perf bench
/// mem` at the same size.
fn print_ceilings(mode: &str, size: usize, ours: f64, a: &mut Buf, b: &mut Buf) {
    let (kind, plain) = match mode {
        mode::BCOPY => ("memcpy", ceiling::memcpy_plain(a, b)),
        _ => ("memset", ceiling::memset_plain(a)),
    };
    let mut line = format!(
        "ceiling: {kind} {} MB: bw_mem/{mode} {ours:.0} MB/s, plain loop {plain:.0}",
        size >> 20
    );
    let mut best = plain;
    match ceiling::perf_bench(kind, size, 3) {
        Some(fns) => {
            for (name, v) in fns {
                line += &format!(", perf {name} {v:.0}");
                best = best.max(v);
            }
        }
        None => line += ", perf unavailable",
    }
    line += &format!("; ours/best {:.0}%", 100.0 * ours / best);
    println!("{line}");
}

lmbench_support::bench_main!(bw_mem);
