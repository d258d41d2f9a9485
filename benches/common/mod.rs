//! What the chain benches share (the memory chains of lat_mem_rd, tlb,
//! par_mem and floor's memory floors; the op chains of lat_ops and mhz):
//! their Criterion settings, the fastest-chunk timing, and a reading of
//! Criterion's FILTER argument, so a filtered run does not build chains
//! (up to 2 GiB each) for points it will not measure. Included with
//! `#[path]`; not a bench of its own.
// Each bench uses only part of this module.
#![allow(dead_code)]

use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode};
use lmbench_support::harness::{config, Group};
use regex::Regex;

/// A sweep has many points: no per-point plots (plotting costs seconds per
/// point). The bootstrap size is the group's (`Group::new` sets it for
/// every program from the preset).
pub fn sweep_config() -> Criterion {
    config().without_plots()
}

/// Many short flat samples per point: a 3 ms sample often runs within one
/// scheduler time slice even on a busy machine, so the minimum over them
/// is the undisturbed latency (lmbench's reason for reporting the minimum).
pub fn sweep_group(g: &mut Group) {
    g.criterion()
        .sampling_mode(SamplingMode::Flat)
        .sample_size(50)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_millis(150));
}

/// Criterion's options that take a value (from its 0.8 command line).
const VALUED: &[&str] = &[
    "--save-baseline",
    "--baseline",
    "--baseline-lenient",
    "--load-baseline",
    "--format",
    "--profile-time",
    "--sample-size",
    "--warm-up-time",
    "--measurement-time",
    "--nresamples",
    "--noise-threshold",
    "--confidence-level",
    "--significance-level",
    "--plotting-backend",
    "--output-format",
    "--color",
    "-c",
    "-s",
    "-b",
];

/// The benchmarks Criterion will run, as its FILTER argument selects them.
pub struct Selection {
    filter: Option<String>,
    exact: bool,
    re: Option<Regex>,
}

impl Selection {
    pub fn from_args() -> Selection {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let mut filter = None;
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            if VALUED.contains(&a.as_str()) {
                i += 2;
                continue;
            }
            if !a.starts_with('-') {
                filter = Some(a.clone());
            }
            i += 1;
        }
        let exact = args.iter().any(|a| a == "--exact");
        // A filter that is not a valid regex: build everything and let
        // Criterion report it.
        let re = filter.as_deref().and_then(|f| Regex::new(f).ok());
        Selection { filter, exact, re }
    }

    pub fn wants(&self, id: &str) -> bool {
        match (&self.filter, self.exact, &self.re) {
            (None, _, _) => true,
            (Some(f), true, _) => f == id,
            (Some(_), false, Some(re)) => re.is_match(id),
            (Some(_), false, None) => true,
        }
    }
}

/// Runs `total` units of work (loads, operations) in chunks of `chunk`,
/// timing each chunk, and returns `total` times the fastest chunk's time
/// per unit. On a shared machine most intervals include other processes'
/// time slices; a 20-50 us chunk usually runs undisturbed, so the fastest
/// chunk is the undisturbed cost, the figure lmbench takes the minimum for.
/// A trailing partial chunk counts only when it is the only one.
pub fn fastest_chunk(total: u64, chunk: u64, mut work: impl FnMut(u64)) -> Duration {
    let chunk = chunk.max(1);
    let mut best = f64::INFINITY;
    let mut left = total;
    while left > 0 {
        let n = left.min(chunk);
        let t = Instant::now();
        work(n);
        let ns = t.elapsed().as_nanos() as f64 / n as f64;
        if n == chunk || best.is_infinite() {
            best = best.min(ns);
        }
        left -= n;
    }
    if total == 0 {
        return Duration::ZERO;
    }
    Duration::from_nanos((best * total as f64).round() as u64)
}

/// Benchmarks one dependent op chain (lat_ops, mhz): chunks of `chunk`
/// steps, the fastest reported, the chain's end value checked after each
/// chunk so a folded or broken chain fails the bench instead of timing it.
pub fn bench_op(
    g: &mut Group,
    metric: &'static lmbench_support::catalog::Metric,
    op: lmbench_support::ops::Op,
    chunk: u64,
) {
    g.bench(metric, |iters| {
        fastest_chunk(iters, chunk, |n| {
            let v = op.run(n);
            if !op.plausible(v) {
                lmbench_support::harness::failed(metric, format_args!("{op:?} chain ended at {v}"));
            }
        })
    });
}

/// Benchmarks chasing `chain` through `buf` (lat_mem_rd, tlb) after its
/// untimed warm-up laps (`Chain::warm`, which also proves the chain is one
/// cycle). Returns the fastest ns
/// per load any sample saw (the headline), None if Criterion skipped it.
pub fn bench_chain(
    g: &mut Group,
    metric: &'static lmbench_support::catalog::Metric,
    mut chain: lmbench_support::chase::Chain,
    buf: &lmbench_support::chase::Buffer,
    chunk: u64,
) -> Option<f64> {
    if let Err(e) = chain.warm(buf) {
        lmbench_support::harness::failed(metric, e);
    }
    let mut best = f64::INFINITY;
    g.bench(metric, |iters| {
        let t = fastest_chunk(iters, chunk, |n| chain.chase(buf, n));
        best = best.min(t.as_nanos() as f64 / iters.max(1) as f64);
        t
    });
    best.is_finite().then_some(best)
}
