//! What `compare` compares of each run: one statistic per run of the
//! suite (a pooled run holds several), chosen per metric class.
//!
//! Interference (a neighbour, steal, a preemption) only ever slows an OS
//! micro-benchmark's sample, so the fast end of a run's samples is far
//! steadier from run to run than its mean: over the 556 metrics of two
//! idle 3-run A/A sittings on an AMD EPYC guest, the median run-to-run
//! spread of the per-run mean was 4.1%, of the median 3.1%, of the
//! minimum 1.5%. The fast end is taken as the *expected fastest of m
//! samples* (`stats::fastest_of`), m the fewest samples any compared run
//! has: plain minima when both sides sampled alike, and no bias toward
//! the side with more samples when they did not.
//!
//! A round trip between two unpinned processes is another matter: where
//! the scheduler puts the two ends decides the figure (on one vCPU or on
//! two), so its fastest samples are the rare lucky placement and its
//! median is the steadier (lat_pipe unpinned, same data: run-to-run
//! spread 36% for the minimum, 6.4% for the median). On a Xeon guest an
//! unpinned loopback round trip (TCP, UDP, RPC) read 78-93 us at the
//! median of every run and 4-83 us at the minimum: its runs' minima are
//! the lottery. Those metrics compare medians; see
//! [`Estimator::for_metric`].
//!
//! A metric the core's speed decides is compared per cycle where both
//! runs probed the clock beside their samples ([`per_cycle`]), and then on
//! its median: on a Xeon guest whose host moved the clock between bins
//! 11% apart, two quick 3-run sittings of 23 such metrics (system calls,
//! signals, instruction chains, an L1 chase) spread run to run by 2.1%
//! at the median metric for the fastest sample in time, 1.6% for the
//! fastest in cycles (it picks the sample whose probes misjudged its clock
//! in its favour) and 0.4% for the median in cycles.
//!
//! Some of them are bimodal outright (2 us when both ends share a CPU,
//! 34 us when they do not): [`modes`] finds two clusters and the
//! comparison then takes each run's median inside the main mode, so like
//! is compared with like, and reports how the share of the modes moved.

use crate::stats;

/// The per-run statistic a metric is compared on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Estimator {
    /// The expected fastest of `m` samples of the run.
    Fastest,
    /// The run's median.
    Median,
}

/// Metric ids (prefixes) whose two ends run unpinned on different
/// processes: the scheduler's placement decides their figure, so they
/// compare medians.
const PLACEMENT: &[&str] = &[
    "lat_pipe/pipe",
    "lat_unix/stream",
    "lat_udp/udp",
    "lat_tcp/tcp",
    "lat_rpc/udp",
    "lat_rpc/tcp",
    "lat_wake/unpinned/",
    "lat_ctx/switch_unpinned/",
    "bw_pipe/",
    "bw_unix/",
    "bw_tcp/read/",
];

/// True when metric `id`'s two ends run unpinned, where the scheduler
/// puts them ([`PLACEMENT`]).
pub fn placement(id: &str) -> bool {
    PLACEMENT.iter().any(|p| id.starts_with(p))
}

/// Metric ids (prefixes) whose every sample is a difference taken in one
/// timed call (a ring's trip minus its interleaved overhead, fault passes
/// minus remap passes): the fastest such sample is the one whose
/// subtracted part happened to run slow, near zero or below it, not the
/// least disturbed one (a pinned 2p/64K switch read 0.73 us at one run's
/// fastest and 0.001 us at the next's). They compare medians.
const PAIRED_DIFFERENCE: &[&str] = &["lat_ctx/switch_pinned/", "lat_pagefault/per_fault"];

/// Metric ids (prefixes) bound by memory rather than by the core, beside
/// the buffer passes ([`BUFFER_PASSES`]): main memory's latency and
/// bandwidth do not follow the core clock (a DRAM access costs
/// nanoseconds, not cycles), so dividing by it would add the clock's
/// swings instead of removing them. Compared in time. The in-cache sizes
/// of the memory-latency chain are the exception ([`CACHE_FITS`]).
const MEMORY_BOUND: &[&str] = &["par_mem/", "line/", "tlb/"];

/// Metric ids (prefixes) that time passes over one buffer whose size ends
/// the id: memory-bound as [`MEMORY_BOUND`], main memory's from
/// [`MAIN_MEMORY`] up.
const BUFFER_PASSES: &[&str] = &["lat_mem_rd/", "bw_mem/", "bw_mmap_rd/", "bw_file_rd/"];

/// The largest memory-latency chain that stays in the private caches
/// (L1 and L2) of every CPU this suite targets: its loads cost cycles.
pub const CACHE_FITS: u64 = 256 * 1024;

/// True when metric `id` is compared per cycle of the core clock (where
/// both runs probed it): everything the core's speed decides, which is
/// every system call, fault, switch and round trip and every instruction
/// chain; not what memory decides ([`MEMORY_BOUND`], [`BUFFER_PASSES`]).
pub fn per_cycle(id: &str) -> bool {
    if id.starts_with("lat_mem_rd/") {
        let size = id.rsplit('/').next().unwrap_or("");
        return !id.contains("thrash")
            && lmbench_support::size::parse(size).is_ok_and(|b| b <= CACHE_FITS);
    }
    !MEMORY_BOUND
        .iter()
        .chain(BUFFER_PASSES)
        .any(|p| id.starts_with(p))
}

/// The smallest buffer [`main_memory`] counts: past every cache of the
/// CPUs this suite targets.
pub const MAIN_MEMORY: u64 = 64 * 1024 * 1024;

/// True for a metric main memory decides: a latency chain, a bandwidth
/// pass over a buffer of [`MAIN_MEMORY`] or more, and `par_mem`'s chains.
/// On a Xeon guest two idle sittings of one build an hour apart read Mem
/// read at 64 MB 49% lower and a 2 GB chain 12% slower in the second: the
/// host's memory changes as its clock does, and a kernel's memory
/// handling (THP, page sizes) moves them too, so `compare` reports their
/// joint move beside the verdicts instead of deciding which it was.
pub fn main_memory(id: &str) -> bool {
    if id.starts_with("par_mem/") {
        return true;
    }
    BUFFER_PASSES.iter().any(|p| id.starts_with(p))
        && lmbench_support::size::parse(id.rsplit('/').next().unwrap_or(""))
            .is_ok_and(|b| b >= MAIN_MEMORY)
}

impl Estimator {
    /// The statistic metric `id` is compared on.
    pub fn for_metric(id: &str) -> Estimator {
        if placement(id) || PAIRED_DIFFERENCE.iter().any(|p| id.starts_with(p)) {
            Estimator::Median
        } else {
            Estimator::Fastest
        }
    }

    /// The statistic of one run's samples (ns per iteration); `m` is the
    /// sample count of [`Estimator::Fastest`].
    pub fn of(self, samples: &[f64], m: usize) -> f64 {
        let mut x = samples.to_vec();
        x.sort_by(f64::total_cmp);
        match self {
            Estimator::Fastest => stats::fastest_of(&x, m),
            Estimator::Median => stats::median(&x),
        }
    }
}

/// Two clusters of samples: a metric whose samples fall in two groups
/// at least [`MODE_GAP`] apart, each holding at least [`MODE_SHARE`] of
/// them.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Modes {
    /// The median of each mode, ns per iteration: fast, slow.
    pub centres_ns: [f64; 2],
    /// Samples below this are in the fast mode.
    pub boundary_ns: f64,
    /// The share of each side's samples in the fast mode: old, new.
    pub fast_share: [f64; 2],
    /// Which mode the comparison uses (0 fast, 1 slow): the one holding
    /// more of the samples of both sides.
    pub main: usize,
}

/// The least ratio between two modes' nearest samples.
pub const MODE_GAP: f64 = 1.5;
/// The least share of all samples each mode must hold (a few slow
/// samples are a tail, not a mode).
pub const MODE_SHARE: f64 = 0.15;

/// The two modes of the samples of both sides, if they have two.
pub fn modes(old: &[f64], new: &[f64]) -> Option<Modes> {
    let mut all: Vec<f64> = old
        .iter()
        .chain(new)
        .copied()
        .filter(|x| *x > 0.0)
        .collect();
    all.sort_by(f64::total_cmp);
    let n = all.len();
    if n < 10 {
        return None;
    }
    let min_each = (MODE_SHARE * n as f64).ceil() as usize;
    // The widest ratio between neighbours with enough samples either side.
    let (at, gap) = (min_each.max(1)..=n - min_each.max(1))
        .map(|i| (i, all[i] / all[i - 1]))
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    if gap < MODE_GAP {
        return None;
    }
    let boundary_ns = (all[at - 1] * all[at]).sqrt();
    let share = |x: &[f64]| {
        let fast = x.iter().filter(|v| **v < boundary_ns).count();
        if x.is_empty() {
            0.0
        } else {
            fast as f64 / x.len() as f64
        }
    };
    Some(Modes {
        centres_ns: [stats::median(&all[..at]), stats::median(&all[at..])],
        boundary_ns,
        fast_share: [share(old), share(new)],
        main: usize::from(at * 2 < n),
    })
}

impl Modes {
    /// The samples of one run that lie in the main mode.
    pub fn in_main(&self, samples: &[f64]) -> Vec<f64> {
        samples
            .iter()
            .copied()
            .filter(|x| (*x < self.boundary_ns) == (self.main == 0))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_metrics_compare_medians() {
        assert_eq!(Estimator::for_metric("lat_pipe/pipe"), Estimator::Median);
        assert_eq!(Estimator::for_metric("lat_pipe/pinned"), Estimator::Fastest);
        assert_eq!(
            Estimator::for_metric("lat_ctx/switch_unpinned/2p_0k"),
            Estimator::Median
        );
        assert_eq!(
            Estimator::for_metric("lat_syscall/null"),
            Estimator::Fastest
        );
        for paired in ["lat_ctx/switch_pinned/2p_64k", "lat_pagefault/per_fault"] {
            assert_eq!(Estimator::for_metric(paired), Estimator::Median, "{paired}");
        }
        let x = [3.0, 1.0, 2.0, 9.0];
        assert_eq!(Estimator::Fastest.of(&x, 4), 1.0);
        assert_eq!(Estimator::Median.of(&x, 4), 2.5);
    }

    #[test]
    fn core_bound_metrics_go_per_cycle_and_memory_bound_ones_do_not() {
        for id in [
            "lat_syscall/null",
            "lat_ops/int/add",
            "lat_ctx/switch_pinned/2p_0k",
            "lat_mem_rd/s1024/16k",
            "lat_mem_rd/s128/256k",
        ] {
            assert!(per_cycle(id), "{id}");
        }
        for id in [
            "lat_mem_rd/s1024/2g",
            "lat_mem_rd/s1024/1m",
            "lat_mem_rd/thrash/2g",
            "bw_mem/bcopy/2g",
            "par_mem/chains/4",
            "tlb/pages/16",
        ] {
            assert!(!per_cycle(id), "{id}");
        }
    }

    #[test]
    fn two_clusters_are_modes_and_a_tail_is_not() {
        // 2 us in 60% of samples, 34 us in 40%.
        let old: Vec<f64> = (0..10).map(|i| if i < 6 { 2.0 } else { 34.0 }).collect();
        let new: Vec<f64> = (0..10).map(|i| if i < 5 { 2.1 } else { 33.0 }).collect();
        let m = modes(&old, &new).expect("bimodal");
        assert_eq!(m.fast_share, [0.6, 0.5]);
        assert!(m.boundary_ns > 2.1 && m.boundary_ns < 33.0);
        // 11 fast of 20: the fast mode is the main one.
        assert_eq!(m.main, 0);
        assert_eq!(m.in_main(&old), vec![2.0; 6]);
        // One slow sample in 20 is a tail.
        let mut tail = vec![1.0; 19];
        tail.push(10.0);
        assert!(modes(&tail, &[]).is_none());
        // A smooth spread has no gap of 1.5x.
        let smooth: Vec<f64> = (0..20).map(|i| 1.0 + 0.1 * i as f64).collect();
        assert!(modes(&smooth, &smooth).is_none());
    }
}
