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

pub mod estimate;
pub mod moderate;
pub mod noise;
#[cfg(test)]
pub(crate) mod sim;
pub mod sittings;

use std::collections::BTreeMap;

use lmbench_support::activity::Activity;
use lmbench_support::catalog::{Metric, Unit};
use regex::Regex;
use serde::Serialize;

use crate::run::{MetricStats, Run};
use crate::stats;
pub use estimate::{main_memory, shared_cache};
use estimate::{Estimator, Modes};

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

/// How a set of sentinel metrics moved (the CPU-only ones, or main
/// memory's).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Drift {
    /// Sentinel metrics compared.
    pub metrics: usize,
    /// Of them, called changed.
    pub called: usize,
    /// Their median change of time, percent.
    pub median_pct: f64,
    /// Of them, moved by 1% or more in the median's direction.
    pub same_way: usize,
}

/// The median move of the sentinels that says the machine changed even
/// when few of them are called one by one. Each sentinel of a sitting has
/// a run or three, each on whatever clock the host gave its process, so
/// an A/A pair's sentinels spread by a few percent around a median near
/// zero, and a host that ran slower moves most of them the same way by
/// more (docs/compare.md, "What an A/A pair shows").
pub const DRIFT_PCT: f64 = 5.0;

/// The fewest sentinels whose uncalled moves can say together that the
/// machine changed: one or two wide intervals moving one way are what
/// noise does.
pub const TOGETHER_MIN: usize = 3;

impl Drift {
    /// Most sentinels called changed, in one direction by 1% or more; or
    /// three in four of at least [`TOGETHER_MIN`] moved the same way, by
    /// [`DRIFT_PCT`] at the median.
    pub fn machine_changed(&self) -> bool {
        let called = self.called * 2 > self.metrics && self.median_pct.abs() >= 1.0;
        let together = self.metrics >= TOGETHER_MIN
            && self.same_way * 4 >= self.metrics * 3
            && self.median_pct.abs() >= DRIFT_PCT;
        self.metrics > 0 && (called || together)
    }
}

/// The core clock of the two runs, as the probes beside their samples
/// read it (`lmbench_support::clock`).
#[derive(Debug, Clone, Serialize)]
pub struct Clock {
    /// The median clock over every steady sample, MHz: old, new.
    pub mhz: [f64; 2],
    /// Metrics compared per cycle.
    pub per_cycle: usize,
}

impl Clock {
    /// Both runs' clocks, if both were probed.
    fn of(old: &Run, new: &Run) -> Option<[f64; 2]> {
        let mhz = |r: &Run| {
            let ns: Vec<f64> = r
                .metrics
                .values()
                .flat_map(MetricStats::steady_cycles_ns)
                .collect();
            (!ns.is_empty()).then(|| 1000.0 / stats::median(&ns))
        };
        Some([mhz(old)?, mhz(new)?])
    }

    /// The change of the clock's speed, percent.
    pub fn change_pct(&self) -> f64 {
        100.0 * (self.mhz[1] / self.mhz[0] - 1.0)
    }
}

/// True when `old` and `new` are two sides of one interleaved sitting
/// (`lmbench kernels`): the same sitting, different sides, so their runs
/// pair up round by round.
pub fn same_sitting(old: &Run, new: &Run) -> bool {
    let fact = |r: &Run, k: &str| r.machine.get(k).map(str::to_string);
    fact(old, "sitting").is_some()
        && fact(old, "sitting") == fact(new, "sitting")
        && fact(old, "sitting_side") != fact(new, "sitting_side")
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

/// One side's per-run statistics of a metric, and what they rest on.
struct Sides {
    old: Vec<f64>,
    new: Vec<f64>,
    /// Compared per cycle of the core clock.
    per_cycle: bool,
    estimator: Estimator,
    m: usize,
    modes: Option<Modes>,
    /// Runs left out because other work used the machine: old, new.
    busy_runs: [usize; 2],
    /// Runs left out as slowed whole ([`estimate::interfered`]): old, new.
    interfered_runs: [usize; 2],
    /// The busiest window of a side all of whose runs were busy.
    busy: [Option<Activity>; 2],
    /// Every idle sample of each side (for a test on samples).
    samples: [Vec<f64>; 2],
}

/// The runs of a metric measured on an idle machine, the number left out,
/// and the busiest window when none is left. A run's record is matched to
/// its samples when there is one per run; a metric whose records cannot
/// be matched (saved before they were kept per run) is busy or not as a
/// whole.
fn idle_reps(
    s: &MetricStats,
    rounds: Vec<Vec<f64>>,
    busy_cpus: f64,
) -> (Vec<Vec<f64>>, usize, Option<Activity>) {
    if s.activity.len() == rounds.len() && rounds.len() > 1 {
        let (idle, busy): (Vec<_>, Vec<_>) = rounds
            .into_iter()
            .zip(&s.activity)
            .partition(|(_, a)| !a.is_busy(busy_cpus));
        let worst = idle
            .is_empty()
            .then(|| Activity::worst(&s.activity).cloned())
            .flatten();
        return (
            idle.into_iter().map(|(r, _)| r).collect(),
            busy.len(),
            worst,
        );
    }
    match s.busy_window(busy_cpus) {
        Some(a) => (Vec::new(), rounds.len(), Some(a.clone())),
        None => (rounds, 0, None),
    }
}

/// The least steady samples every run of both sides needs for a metric to
/// be compared per cycle; with fewer it is compared in time.
pub const MIN_STEADY: usize = 2;

/// Both sides' samples of a per-cycle metric in cycles, scaled to ns at
/// the old side's median clock for this metric (so they read as times):
/// the samples run at a steady clock when every run of both sides has
/// [`MIN_STEADY`] of them; else, for a metric whose two ends do not run
/// where the scheduler puts them, every probed sample over the mean of
/// its probes, when every run has as many: on a host that moves the clock,
/// process creation (long samples, never steady) spreads from run to run
/// about three times less so than in time (docs/compare.md). An unpinned
/// round trip is left in time: the probes run on one end's CPU and the
/// placement, not the clock, decides it.
fn rounds_per_cycle(id: &str, o: &MetricStats, n: &MetricStats) -> Option<[Rounds; 2]> {
    let enough = |r: &[Vec<f64>]| r.iter().all(|r| r.len() >= MIN_STEADY);
    let scaled = |co: Rounds, cn: Rounds, clocks: Vec<f64>| -> [Rounds; 2] {
        let at = stats::median(&clocks);
        let scale = |rounds: Rounds| -> Rounds {
            rounds
                .into_iter()
                .map(|r| r.into_iter().map(|c| c * at).collect())
                .collect()
        };
        [scale(co), scale(cn)]
    };
    let (co, cn) = (o.reps_in_cycles()?, n.reps_in_cycles()?);
    if enough(&co) && enough(&cn) {
        return Some(scaled(co, cn, o.steady_cycles_ns()));
    }
    if estimate::placement(id) {
        return None;
    }
    let (co, cn) = (o.reps_in_probed_cycles()?, n.reps_in_probed_cycles()?);
    (enough(&co) && enough(&cn)).then(|| scaled(co, cn, o.probed_cycles_ns()))
}

/// Samples (ns per iteration) run by run.
type Rounds = Vec<Vec<f64>>;

/// The per-run statistics (ns) of both sides, busy runs left out; per
/// cycle where the metric and both runs allow (`cycles`).
fn sides(id: &str, o: &MetricStats, n: &MetricStats, busy_cpus: f64, cycles: bool) -> Sides {
    let per_cycle = cycles
        .then(|| {
            estimate::per_cycle(id)
                .then(|| rounds_per_cycle(id, o, n))
                .flatten()
        })
        .flatten();
    let per_cycle_used = per_cycle.is_some();
    let [rounds_o, rounds_n] = per_cycle.unwrap_or_else(|| [o.rounds(), n.rounds()]);
    let (ro, bo, wo) = idle_reps(o, rounds_o, busy_cpus);
    let (rn, bn, wn) = idle_reps(n, rounds_n, busy_cpus);
    let all = |r: &[Vec<f64>]| -> Vec<f64> { r.iter().flatten().copied().collect() };
    // Like with like only where both sides hold both modes: modes that
    // split the sides apart are the change itself, not a lottery.
    let modes = estimate::modes(&all(&ro), &all(&rn))
        .filter(|m| m.fast_share.iter().all(|s| (0.1..=0.9).contains(s)));
    // Per cycle, the median: the clock's swings, which the fastest sample
    // dodged, are gone, and the fastest would pick the sample whose probes
    // misjudged its clock most in its favour.
    let estimator = if per_cycle_used {
        Estimator::Median
    } else {
        Estimator::for_metric(id)
    };
    let m = ro
        .iter()
        .chain(&rn)
        .map(Vec::len)
        .filter(|&k| k > 0)
        .min()
        .unwrap_or(0);
    let per_run = |rounds: &[Vec<f64>]| -> Vec<f64> {
        rounds
            .iter()
            .filter_map(|r| {
                let v = match &modes {
                    Some(md) => {
                        let inside = md.in_main(r);
                        (!inside.is_empty()).then(|| stats::median(&inside))?
                    }
                    None if r.is_empty() => return None,
                    None => estimator.of(r, m),
                };
                (v > 0.0 && v.is_finite()).then_some(v)
            })
            .collect()
    };
    // Runs slowed whole by interference leave the test (each side judged
    // by its own runs); how many is reported beside the verdict.
    let clean = |runs: Vec<f64>| -> (Vec<f64>, usize) {
        let out = estimate::interfered(&runs);
        let left = out.iter().filter(|o| **o).count();
        let kept = runs
            .into_iter()
            .zip(out)
            .filter(|(_, o)| !o)
            .map(|(r, _)| r)
            .collect();
        (kept, left)
    };
    let (old, io) = clean(per_run(&ro));
    let (new, inn) = clean(per_run(&rn));
    Sides {
        old,
        new,
        per_cycle: per_cycle_used,
        estimator,
        m,
        modes,
        busy_runs: [bo, bn],
        interfered_runs: [io, inn],
        busy: [wo, wn],
        samples: [all(&ro), all(&rn)],
    }
}

/// A test before moderation and adjustment.
struct Raw {
    diff: f64,
    s2: f64,
    d: f64,
    /// sqrt(1/ka + 1/kb), or for samples the factor of Welch's se.
    scale: f64,
    level: Level,
    runs: [usize; 2],
    /// Tested over pairs of runs (round i of old with round i of new).
    paired: bool,
}

/// The raw test of one metric from its per-run statistics (or, with one
/// run a side, its samples). `paired`: the two runs took turns in one
/// sitting, run i of each in round i: with every run of both sides kept
/// and two or more a side, the test is on the rounds' differences, which
/// cancels whatever moved the host from one round to the next.
fn raw_test(s: &Sides, paired: bool) -> Option<Raw> {
    let (ka, kb) = (s.old.len(), s.new.len());
    if ka == 0 || kb == 0 {
        return None;
    }
    let ln = |x: &[f64]| -> Vec<f64> { x.iter().map(|v| v.ln()).collect() };
    let (a, b) = (ln(&s.old), ln(&s.new));
    let diff = stats::mean(&b) - stats::mean(&a);
    let all_kept = s.busy_runs == [0, 0] && s.interfered_runs == [0, 0];
    if paired && ka == kb && ka >= 2 && all_kept {
        let d: Vec<f64> = b.iter().zip(&a).map(|(b, a)| b - a).collect();
        // Kept on the scale of one run's variance, as the unpaired test's
        // (a difference has two runs' worth), so the program's prior and
        // the runs a side still needed read alike: se^2 = var(d) / k.
        return Some(Raw {
            diff,
            s2: stats::variance(&d) / 2.0,
            d: (ka - 1) as f64,
            scale: (2.0 / ka as f64).sqrt(),
            level: Level::Runs,
            runs: [ka, kb],
            paired: true,
        });
    }
    if ka + kb >= 3 {
        // Pooled variance of the runs around their side's mean.
        let ss = |x: &[f64]| stats::variance(x) * (x.len() as f64 - 1.0).max(0.0);
        let d = (ka + kb - 2) as f64;
        return Some(Raw {
            diff,
            s2: (ss(&a) + ss(&b)) / d,
            d,
            scale: (1.0 / ka as f64 + 1.0 / kb as f64).sqrt(),
            level: Level::Runs,
            runs: [ka, kb],
            paired: false,
        });
    }
    // One run a side: the spread of its samples (log), Welch's df.
    let pos = |x: &[f64]| -> Vec<f64> { x.iter().filter(|v| **v > 0.0).map(|v| v.ln()).collect() };
    let (xa, xb) = (pos(&s.samples[0]), pos(&s.samples[1]));
    if xa.len() < 2 || xb.len() < 2 {
        return None;
    }
    let (va, vb) = (
        stats::variance(&xa) / xa.len() as f64,
        stats::variance(&xb) / xb.len() as f64,
    );
    let se2 = va + vb;
    let d = if se2 > 0.0 {
        se2 * se2 / (va * va / (xa.len() as f64 - 1.0) + vb * vb / (xb.len() as f64 - 1.0))
    } else {
        (xa.len() + xb.len() - 2) as f64
    };
    Some(Raw {
        diff,
        s2: se2,
        d,
        scale: 1.0,
        level: Level::Samples,
        runs: [1, 1],
        paired: false,
    })
}

/// The runs a side at which the detectable change reaches `target` (a
/// log ratio) for a run-to-run variance `s2` with `d0` borrowed df and a
/// between-sitting variance `tau2` that runs do not shrink.
fn runs_needed(s2: f64, d0: f64, target: f64, tau2: f64) -> Option<usize> {
    (2..=1000).find(|&k| {
        let df = (2 * k - 2) as f64 + d0;
        detect_factor(df) * (s2 * 2.0 / k as f64 + tau2).sqrt() <= target
    })
}

/// t(0.975) + t(0.80) at `df`: the detectable change in standard errors.
fn detect_factor(df: f64) -> f64 {
    stats::t_quantile(ALPHA, df) + stats::t_quantile(2.0 * (1.0 - POWER), df)
}

/// Compares every metric both runs have (and the filter matches).
pub fn compare(old: &Run, new: &Run, opts: &Options) -> Comparison {
    let threshold = (1.0 + opts.threshold_pct / 100.0).ln();
    let paired = same_sitting(old, new);
    struct Pending {
        id: String,
        metric: Option<&'static Metric>,
        sides: Sides,
        raw: Option<Raw>,
        busy: [Option<Activity>; 2],
        bytes: Option<f64>,
        in_time: Option<f64>,
    }
    let mut pending = Vec::new();
    for (id, o) in &old.metrics {
        let Some(n) = new.metrics.get(id) else {
            continue;
        };
        if opts.filter.is_some_and(|re| !re.is_match(id)) {
            continue;
        }
        let s = sides(id, o, n, opts.busy_cpus, true);
        let raw = raw_test(&s, paired);
        // The change in time too, for the machine's own drift.
        let in_time = if s.per_cycle {
            let t = sides(id, o, n, opts.busy_cpus, false);
            Some(gmean_change_pct(&t.old, &t.new))
        } else {
            None
        };
        pending.push(Pending {
            id: id.clone(),
            metric: Metric::by_id(id),
            busy: s.busy.clone(),
            sides: s,
            raw,
            bytes: o.bytes_per_iter.or(n.bytes_per_iter).map(|b| b as f64),
            in_time,
        });
    }
    // Priors per program, from the run-level tests of idle metrics.
    let program = |id: &str| id.split('/').next().unwrap_or(id).to_string();
    let mut groups: BTreeMap<String, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    let mut everyone = (Vec::new(), Vec::new());
    for p in &pending {
        if let Some(r) = p
            .raw
            .as_ref()
            .filter(|r| r.level == Level::Runs && r.d > 0.0)
        {
            if p.busy.iter().all(Option::is_none) {
                let g = groups.entry(program(&p.id)).or_default();
                g.0.push(r.s2);
                g.1.push(r.d);
                everyone.0.push(r.s2);
                everyone.1.push(r.d);
            }
        }
    }
    let global = moderate::fit(&everyone.0, &everyone.1);
    let priors: BTreeMap<String, moderate::Prior> = groups
        .iter()
        .map(|(k, (s2, d))| {
            let own = moderate::fit(s2, d);
            (
                k.clone(),
                if s2.len() >= moderate::MIN_GROUP {
                    own
                } else {
                    global
                },
            )
        })
        .collect();

    let mut rows: Vec<Row> = pending
        .into_iter()
        .map(|p| {
            let unit = p.metric.map_or(Unit::Nanos, |m| m.unit);
            let gmean = |x: &[f64]| (x.iter().map(|v| v.ln()).sum::<f64>() / x.len() as f64).exp();
            let (o_ns, n_ns) = if p.sides.old.is_empty() || p.sides.new.is_empty() {
                (f64::NAN, f64::NAN)
            } else {
                (gmean(&p.sides.old), gmean(&p.sides.new))
            };
            let shown = |ns: f64| unit.from_ns_per_iter(ns, p.bytes).unwrap_or(ns);
            let (old_v, new_v) = (shown(o_ns), shown(n_ns));
            let pct = |a: f64, b: f64| if a != 0.0 { (b - a) / a * 100.0 } else { 0.0 };
            let mut level = p.raw.as_ref().map_or(Level::Runs, |r| r.level);
            let test = p.raw.as_ref().map(|r| {
                let own = priors.get(&program(&p.id)).copied().unwrap_or(global);
                let (s2, df, scale, d0) = match r.level {
                    Level::Runs => {
                        let (s2, df) = own.moderate(r.s2, r.d);
                        (s2, df, r.scale, own.d0)
                    }
                    // One run a side: its program's run-to-run spread, when
                    // some metrics have runs to show it, never less than
                    // what the two runs' own samples show.
                    _ => {
                        let prior = if own.d0 > 0.0 { own } else { global };
                        if prior.d0 > 0.0 {
                            level = Level::Borrowed;
                            let s2 = prior.s0_sq.max(r.s2 / 2.0);
                            (s2, prior.d0, std::f64::consts::SQRT_2, prior.d0)
                        } else {
                            (r.s2, r.d, r.scale, 0.0)
                        }
                    }
                };
                // The host's move between sittings, where an A/A pair
                // showed one: more runs of one sitting do not shrink it.
                let tau2 = opts.sittings.map_or(0.0, |x| x.tau2(&p.id));
                let se = (s2 * scale * scale + tau2).sqrt();
                let p_value = if se > 0.0 {
                    stats::t_two_sided_p(r.diff / se, df)
                } else if r.diff == 0.0 {
                    1.0
                } else {
                    0.0
                };
                let half = stats::t_quantile(ALPHA, df) * se;
                let detect = detect_factor(df) * se;
                Test {
                    ratio: r.diff.exp(),
                    interval: ((r.diff - half).exp(), (r.diff + half).exp()),
                    df,
                    p: p_value,
                    q: f64::NAN,
                    detect_pct: 100.0 * (detect.exp() - 1.0),
                    runs_needed: match level {
                        Level::Runs | Level::Borrowed if detect > threshold => {
                            runs_needed(s2, d0, threshold, tau2)
                        }
                        _ => None,
                    },
                    borrowed_df: match level {
                        Level::Borrowed => df,
                        _ => df - r.d,
                    },
                }
            });
            Row {
                id: p.id,
                unit: unit.label(),
                old: old_v,
                new: new_v,
                change_pct: pct(old_v, new_v),
                time_change_pct: pct(o_ns, n_ns),
                estimator: p.sides.estimator,
                per_cycle: p.sides.per_cycle,
                in_time_change_pct: p.in_time,
                m: p.sides.m,
                runs: p.raw.as_ref().map_or([0, 0], |r| r.runs),
                paired: p.raw.as_ref().is_some_and(|r| r.paired),
                busy_runs: p.sides.busy_runs,
                interfered_runs: p.sides.interfered_runs,
                level,
                test,
                modes: p.sides.modes,
                verdict: if p.busy.iter().any(Option::is_some) {
                    Verdict::Busy
                } else {
                    Verdict::Untested
                },
                busy: p.busy,
            }
        })
        .collect();

    // A side of one run is neither called nor decided: beside several,
    // the other side's spread says nothing of whether that run was slowed
    // whole or met another state of the host; one a side, the spread is
    // borrowed from other metrics, which need not be like it. It gets a
    // second run first (`run --budget` re-measures it), and stays out of
    // the multiplicity correction, as it is not tested for a call.
    for row in rows.iter_mut().filter(|r| r.single_run()) {
        if let Some(t) = row.test.as_mut() {
            t.runs_needed = Some(t.runs_needed.unwrap_or(0).max(2));
            if row.verdict != Verdict::Busy {
                row.verdict = Verdict::CannotTell;
            }
        }
    }
    // Benjamini-Hochberg over every other idle metric with a test.
    let judged: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].verdict == Verdict::Untested && rows[i].test.is_some())
        .collect();
    let p: Vec<f64> = judged
        .iter()
        .map(|&i| rows[i].test.as_ref().map_or(f64::NAN, |t| t.p))
        .collect();
    for (&i, q) in judged.iter().zip(stats::bh_adjust(&p)) {
        let row = &mut rows[i];
        let t = row.test.as_mut().expect("judged rows have tests");
        t.q = q;
        let change = t.ratio.ln();
        row.verdict = if q < ALPHA {
            if change.abs() < threshold {
                Verdict::Small
            } else if change > 0.0 {
                Verdict::Slower
            } else {
                Verdict::Faster
            }
        } else if (1.0 + t.detect_pct / 100.0).ln() <= threshold
            && t.interval.0.ln().abs() <= threshold
            && t.interval.1.ln().abs() <= threshold
        {
            Verdict::Unchanged
        } else {
            Verdict::CannotTell
        };
    }
    let memory = drift(&rows, main_memory);
    let private_cache = private_cache(old).or_else(|| private_cache(new));
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
        tested: judged.len(),
        sittings: opts.sittings.cloned(),
        threshold_pct: opts.threshold_pct,
    }
}

/// A core's own cache (its L2, bytes), from the run's machine facts.
pub fn private_cache(run: &Run) -> Option<u64> {
    run.machine
        .get("cache_l2")
        .and_then(|v| v.parse().ok())
        .filter(|&b| b > 0)
}

/// The change of the geometric mean of per-run statistics, percent.
fn gmean_change_pct(old: &[f64], new: &[f64]) -> f64 {
    if old.is_empty() || new.is_empty() {
        return f64::NAN;
    }
    let lm = |x: &[f64]| x.iter().map(|v| v.ln()).sum::<f64>() / x.len() as f64;
    100.0 * ((lm(new) - lm(old)).exp() - 1.0)
}

/// How the metrics `is_sentinel` picks moved.
fn drift(rows: &[Row], is_sentinel: impl Fn(&str) -> bool) -> Drift {
    let sentinel: Vec<&Row> = rows
        .iter()
        .filter(|r| is_sentinel(&r.id))
        .filter(|r| r.verdict != Verdict::Busy && r.test.is_some())
        .collect();
    let changes: Vec<f64> = sentinel
        .iter()
        .map(|r| r.in_time_change_pct.unwrap_or(r.time_change_pct))
        .collect();
    let median_pct = if changes.is_empty() {
        0.0
    } else {
        stats::median(&changes)
    };
    Drift {
        metrics: sentinel.len(),
        called: sentinel.iter().filter(|r| r.verdict.called()).count(),
        median_pct,
        same_way: changes
            .iter()
            .filter(|c| c.abs() >= 1.0 && c.signum() == median_pct.signum())
            .count(),
    }
}

#[cfg(test)]
mod tests {
    use super::{rounds_per_cycle, Drift, MetricStats};

    fn drift(called: usize, same_way: usize, median_pct: f64) -> Drift {
        Drift {
            metrics: 20,
            called,
            median_pct,
            same_way,
        }
    }

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

    #[test]
    fn long_samples_go_per_cycle_over_their_probes_unless_placement_decides() {
        // Two runs a side of three 150-ms samples, none at a steady clock.
        let side = |cycle: f64| {
            let run = || {
                let mut s = MetricStats::single(0.0);
                s.iters = vec![1.0; 3];
                s.times_ns = vec![150e6 * cycle / 0.25; 3];
                s.clock_ns = vec![[cycle * 0.98, cycle * 1.02]; 3];
                s
            };
            MetricStats::pool(&[run(), run()]).unwrap()
        };
        let (o, n) = (side(0.25), side(0.275));
        let [co, cn] = rounds_per_cycle("lat_proc/exec", &o, &n).expect("probed");
        assert!(co
            .iter()
            .chain(&cn)
            .flatten()
            .all(|v| (v - 150e6).abs() < 1.0));
        assert!(rounds_per_cycle("lat_pipe/pipe", &o, &n).is_none());
    }

    #[test]
    fn the_machine_changed_when_its_sentinels_move_together() {
        // A host 12% faster: every sentinel called.
        assert!(drift(19, 20, -12.2).machine_changed());
        // A host 8% slower, few sentinels called with one run a side, but
        // 16 of 20 moved the same way.
        assert!(drift(7, 16, 7.7).machine_changed());
        // A/A: sentinels scattered either way, a small median.
        assert!(!drift(0, 11, 1.3).machine_changed());
        // Together but small, or large but scattered: not the machine.
        assert!(!drift(4, 14, 3.4).machine_changed());
        assert!(!drift(2, 12, 6.0).machine_changed());
        // One or two uncalled sentinels moving one way say nothing alone.
        let few = |metrics, same_way| Drift {
            metrics,
            called: 0,
            median_pct: 45.7,
            same_way,
        };
        assert!(!few(1, 1).machine_changed());
        assert!(!few(2, 2).machine_changed());
        assert!(few(3, 3).machine_changed());
        assert!(!Drift {
            metrics: 0,
            called: 0,
            median_pct: 0.0,
            same_way: 0
        }
        .machine_changed());
    }
}
