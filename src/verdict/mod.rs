//! The answer to "what changed between these two runs, by how much, how
//! sure": per metric a ratio with its interval and a verdict, for
//! `compare`, `check` and `run --against`.
//!
//! What is compared: one statistic per run of the suite (a saved run
//! pools several, `--runs N` or `--budget`), chosen per metric class
//! ([`estimate`]). Most of the noise of a figure lies between runs (a
//! new process, new memory, a new placement), not between the samples of
//! one run, so the runs are the units of the test.
//!
//! The test: Student's t on the logarithm of the per-run statistics (so
//! the change is a ratio and its interval a ratio's), the run-to-run
//! variance moderated across the metrics of one program ([`moderate`]).
//! A run slowed whole while the machine looked idle (a host that stole
//! the vCPU for its length) leaves the test first: slower than its side's
//! median run by far more than the runs spread ([`estimate::interfered`]);
//! the report counts them.
//! Its p-values are adjusted for the hundreds of metrics tested at once
//! (Benjamini-Hochberg): a metric is called changed when its adjusted
//! p-value ("q") is under 5%, so that at most 5% of the calls are chance.
//! A metric with a single run on either side is neither called nor
//! decided while other metrics have runs: it is "cannot tell" until it
//! has a second (which `run --budget` gives it first). Beside several
//! runs, the other side's spread is silent on what the one run met, and
//! one run a side has no spread of its own: the interval it shows borrows
//! its program's (the prior fitted to the metrics that have runs; the
//! whole comparison's where its program has none), which comes from other
//! metrics, not necessarily like it (docs/compare.md shows the calls such
//! rows made in an A/A pair). Only where no metric has runs are the
//! samples of the two runs tested and called (Welch's t on their
//! logarithms, blind to run-to-run noise), as the report says.
//!
//! The verdicts, with `threshold` the change that matters (default 5%):
//! - *slower* / *faster*: called changed, by at least the threshold;
//! - *small*: called changed, by less than the threshold;
//! - *unchanged*: not called, a change of the threshold would have been
//!   seen (the detectable change, at 95% confidence and 80% power, is at
//!   most the threshold), and the interval lies within the threshold
//!   either way (a metric read +11% [+7.5%, +14.6%] whose q missed 5%
//!   among hundreds of tests is not shown unchanged);
//! - *cannot tell*: not called, but a change of the threshold could hide
//!   in the noise; the row says how many runs a side would settle it;
//! - *untested*: too few samples to test; *busy*: measured while other
//!   work used the machine, no verdict.
//!
//! Before the verdicts: whether the machine itself changed. Metrics that
//! only use the CPU's core ([`SENTINELS`]: dependent instruction chains)
//! do not depend on the kernel; when most of them move together, the host,
//! the clock or a neighbour changed, and every verdict carries it. The
//! main-memory metrics' joint move is reported the same way
//! ([`main_memory`]), without a claim on its cause.

mod answer;
mod calls;
pub mod columns;
mod drift;
pub mod estimate;
pub mod moderate;
pub mod noise;
mod raw;
mod rows;
mod sides;
#[cfg(test)]
pub(crate) mod sim;
pub mod sittings;

use lmbench_support::activity::Activity;
use lmbench_support::catalog::Unit;
use regex::Regex;
use serde::Serialize;

use crate::run::Run;
pub use answer::Answer;
use drift::drift;
pub use drift::{Clock, Drift, DRIFT_PCT, TOGETHER_MIN};
pub use estimate::{main_memory, shared_cache};
use estimate::{Estimator, Modes};
use rows::{pending, row, Priors};

/// The false-call rate the calls are held to (Benjamini-Hochberg), and
/// the confidence of the intervals.
pub const ALPHA: f64 = 0.05;
/// The power the detectable change is computed for.
pub const POWER: f64 = 0.80;

/// The programs whose metrics only use the CPU's core.
pub const SENTINELS: &[&str] = &["lat_ops", "mhz"];

/// What to compare and how.
pub struct Options<'a> {
    /// The change that matters, percent of the time per operation.
    pub threshold_pct: f64,
    /// Other work (in CPUs) above which a metric gets no verdict.
    pub busy_cpus: f64,
    pub filter: Option<&'a Regex>,
    /// How far metrics move between sittings with nothing changed, from an
    /// A/A pair of this machine ([`sittings`]): added to every test.
    pub sittings: Option<&'a sittings::Sittings>,
}

impl<'a> Options<'a> {
    /// At `threshold_pct`, with the suite's busy threshold, no filter and
    /// no A/A pair: the base a caller changes what it needs of.
    pub fn at(threshold_pct: f64) -> Options<'a> {
        Options {
            threshold_pct,
            busy_cpus: lmbench_support::activity::BUSY_CPUS,
            filter: None,
            sittings: None,
        }
    }
}

/// A comparison's verdict on one metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Slower,
    Faster,
    Small,
    Unchanged,
    CannotTell,
    Untested,
    Busy,
}

impl Verdict {
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Slower => "slower",
            Verdict::Faster => "faster",
            Verdict::Small => "small",
            Verdict::Unchanged => "unchanged",
            Verdict::CannotTell => "cannot tell",
            Verdict::Untested => "untested",
            Verdict::Busy => "busy machine",
        }
    }

    /// Called changed (by any amount).
    pub fn called(self) -> bool {
        matches!(self, Verdict::Slower | Verdict::Faster | Verdict::Small)
    }

    /// Answers the question: called, small or unchanged (not cannot
    /// tell, untested or busy).
    pub fn decided(self) -> bool {
        !matches!(
            self,
            Verdict::CannotTell | Verdict::Untested | Verdict::Busy
        )
    }
}

/// What the test rested on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Per-run statistics: run-to-run noise counted.
    Runs,
    /// One run a side, its run-to-run spread borrowed from the metrics
    /// of its program (or of the whole comparison) that have several.
    Borrowed,
    /// The samples of one run a side, where nothing has runs to borrow
    /// from: run-to-run noise unseen.
    Samples,
}

/// One metric's test.
#[derive(Debug, Clone, Serialize)]
pub struct Test {
    /// New over old, time per operation.
    pub ratio: f64,
    /// The 95% interval of the ratio.
    pub interval: (f64, f64),
    pub df: f64,
    pub p: f64,
    /// Benjamini-Hochberg's adjusted p over every metric tested.
    pub q: f64,
    /// The smallest change (percent of the time) found with 80% power.
    pub detect_pct: f64,
    /// Runs a side that would bring `detect_pct` to the threshold, when it
    /// is above it (at this spread; `None` beyond 1000).
    pub runs_needed: Option<usize>,
    /// Degrees of freedom borrowed from the metric's program.
    pub borrowed_df: f64,
}

/// One metric's comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub id: String,
    pub unit: &'static str,
    /// The compared statistic, in the metric's unit (geometric mean over
    /// the runs): old, new.
    pub old: f64,
    pub new: f64,
    /// The change of the shown figure, percent (for a bandwidth, of MB/s).
    pub change_pct: f64,
    /// The change of the time per operation, percent: + is slower.
    pub time_change_pct: f64,
    pub estimator: Estimator,
    /// Compared per cycle of the core clock (`lmbench_support::clock`):
    /// `old` and `new` are then times at the old run's clock.
    pub per_cycle: bool,
    /// For a metric compared per cycle, the change of its time as measured
    /// (clock swings included), percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_time_change_pct: Option<f64>,
    /// The sample count of the fastest-of statistic.
    pub m: usize,
    /// Runs compared: old, new.
    pub runs: [usize; 2],
    /// Tested over pairs of runs of one interleaved sitting (round i of
    /// old with round i of new) rather than as two samples.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub paired: bool,
    /// Runs left out as measured on a busy machine: old, new.
    pub busy_runs: [usize; 2],
    /// Runs left out as slowed whole by interference while the machine
    /// looked idle ([`estimate::interfered`]): old, new.
    pub interfered_runs: [usize; 2],
    pub level: Level,
    pub test: Option<Test>,
    pub modes: Option<Modes>,
    pub verdict: Verdict,
    /// The busiest window of each side, if it was busy.
    #[serde(skip)]
    pub busy: [Option<Activity>; 2],
}

impl Row {
    /// A side has a single run while other metrics have runs: the row is
    /// neither called nor decided until it has a second.
    pub fn single_run(&self) -> bool {
        self.runs.contains(&1) && self.level != Level::Samples
    }

    /// A change of `threshold_pct` would have been called here: the row
    /// can be called, and its detectable change is at most that.
    pub fn detects(&self, threshold_pct: f64) -> bool {
        !self.single_run()
            && self
                .test
                .as_ref()
                .is_some_and(|t| t.detect_pct <= threshold_pct)
    }

    /// The statistic compared, in a few characters: "min10" (fastest of
    /// 10 samples a run), "med", "mode" (median inside the main mode),
    /// each with "/c" when compared per cycle.
    pub fn stat_label(&self) -> String {
        let stat = match (&self.modes, self.estimator) {
            (Some(_), _) => "mode".to_string(),
            (None, Estimator::Median) => "med".to_string(),
            (None, Estimator::Fastest) => format!("min{}", self.m),
        };
        if self.per_cycle {
            format!("{stat}/c")
        } else {
            stat
        }
    }

    /// The interval of the shown figure's change, percent.
    pub fn change_interval_pct(&self) -> Option<(f64, f64)> {
        let t = self.test.as_ref()?;
        let (lo, hi) = t.interval;
        Some(if self.unit == Unit::MBps.label() {
            (100.0 * (1.0 / hi - 1.0), 100.0 * (1.0 / lo - 1.0))
        } else {
            (100.0 * (lo - 1.0), 100.0 * (hi - 1.0))
        })
    }
}

/// A whole comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// Significant changes first, the largest on top; then the rest.
    pub rows: Vec<Row>,
    pub drift: Drift,
    /// The main-memory metrics' joint move ([`main_memory`]): the host's
    /// memory can change under an unchanged kernel, as the core can.
    pub memory: Drift,
    /// The shared-cache metrics' joint move ([`shared_cache`]): the
    /// last-level cache a guest shares with the host's other guests.
    pub shared: Drift,
    /// A core's own cache (its L2, bytes) from the runs' machine facts:
    /// what [`shared_cache`] counts past.
    pub private_cache: Option<u64>,
    /// The two runs' core clocks, where both were probed.
    pub clock: Option<Clock>,
    /// Metrics tested (the multiplicity the q-values answer for).
    pub tested: usize,
    /// The moves between sittings added to the tests, when an A/A pair
    /// gave them.
    pub sittings: Option<sittings::Sittings>,
    pub threshold_pct: f64,
    /// Which rows stand behind lmbench's own columns, and their pinned
    /// twins ([`columns`]).
    #[serde(skip)]
    pub columns: columns::Columns,
}

impl Comparison {
    pub fn count(&self, v: Verdict) -> usize {
        self.rows.iter().filter(|r| r.verdict == v).count()
    }

    /// The regressions at `limit_pct`: rows called changed that take
    /// `limit_pct` percent more time or more. The one rule of
    /// `compare --fail-on-regression` (any limit) and `check` (the
    /// threshold, where these are exactly the *slower* rows).
    pub fn regressions(&self, limit_pct: f64) -> impl Iterator<Item = &Row> {
        self.rows
            .iter()
            .filter(move |r| r.verdict.called() && r.time_change_pct >= limit_pct)
    }
}

/// Compares every metric both runs have (and the filter matches).
pub fn compare(old: &Run, new: &Run, opts: &Options) -> Comparison {
    let threshold = (1.0 + opts.threshold_pct / 100.0).ln();
    let private_cache = private_cache(old).or_else(|| private_cache(new));
    let pending = pending(old, new, opts);
    let priors = Priors::fit(&pending);
    let mut rows: Vec<Row> = pending
        .into_iter()
        .map(|p| row(p, &priors, threshold, opts))
        .collect();
    let tested = calls::call(&mut rows, threshold);
    let memory = drift(&rows, main_memory);
    let shared = drift(&rows, |id| shared_cache(id, private_cache));
    let drift = drift(&rows, |id| {
        SENTINELS.iter().any(|p| id.split('/').next() == Some(p))
    });
    rows.sort_by(|a, b| {
        let rank = |r: &Row| match r.verdict {
            Verdict::Slower | Verdict::Faster => 0,
            Verdict::Small => 1,
            _ => 2,
        };
        rank(a)
            .cmp(&rank(b))
            .then(b.time_change_pct.abs().total_cmp(&a.time_change_pct.abs()))
            .then(a.id.cmp(&b.id))
    });
    let clock = Clock::of(old, new).map(|mhz| Clock {
        mhz,
        per_cycle: rows.iter().filter(|r| r.per_cycle).count(),
    });
    Comparison {
        rows,
        drift,
        memory,
        shared,
        private_cache,
        clock,
        tested,
        sittings: opts.sittings.cloned(),
        threshold_pct: opts.threshold_pct,
        columns: columns::Columns::of(new),
    }
}

/// A core's own cache (its L2, bytes), from the run's machine facts.
pub fn private_cache(run: &Run) -> Option<u64> {
    run.machine
        .get("cache_l2")
        .and_then(|v| v.parse().ok())
        .filter(|&b| b > 0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn main_memory_is_past_every_cache_or_par_mem() {
        use super::main_memory;
        for id in [
            "lat_mem_rd/s1024/64m",
            "lat_mem_rd/thrash/2g",
            "bw_mem/frd/2g",
            "bw_file_rd/io_only/128m",
            "par_mem/chains/4",
        ] {
            assert!(main_memory(id), "{id}");
        }
        for id in [
            "lat_mem_rd/s1024/32m",
            "bw_mem/frd/1m",
            "tlb/pages/64",
            "lat_mmap/map/64m",
            "lat_ops/int/add",
        ] {
            assert!(!main_memory(id), "{id}");
        }
    }

    #[test]
    fn the_shared_cache_is_past_the_private_one_and_short_of_main_memory() {
        use super::shared_cache;
        let l2 = Some(1 << 20);
        for id in [
            "lat_mem_rd/s128/1536k",
            "lat_mem_rd/thrash/32m",
            "bw_mem/frd/8m",
        ] {
            assert!(shared_cache(id, l2), "{id}");
        }
        for id in [
            "lat_mem_rd/s128/1m",
            "lat_mem_rd/s1024/64m",
            "par_mem/chains/4",
            "lat_ops/int/add",
            "lat_mmap/map/8m",
        ] {
            assert!(!shared_cache(id, l2), "{id}");
        }
        // No L2 in the facts: nothing is counted.
        assert!(!shared_cache("lat_mem_rd/thrash/32m", None));
    }
}
