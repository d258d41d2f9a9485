//! Each side's per-run statistics of one metric: the runs measured on an
//! idle machine, per cycle of the core clock where the metric and both
//! sides allow, the statistic per run its class calls for, and the runs
//! slowed whole left out (each counted for the report).

use lmbench_support::activity::Activity;

use super::estimate::{self, Estimator, Modes};
use crate::run::MetricStats;
use crate::stats;

/// One side's per-run statistics of a metric, and what they rest on.
pub(super) struct Sides {
    pub(super) old: Vec<f64>,
    pub(super) new: Vec<f64>,
    /// Compared per cycle of the core clock.
    pub(super) per_cycle: bool,
    pub(super) estimator: Estimator,
    pub(super) m: usize,
    pub(super) modes: Option<Modes>,
    /// Runs left out because other work used the machine: old, new.
    pub(super) busy_runs: [usize; 2],
    /// Runs left out as slowed whole ([`estimate::interfered`]): old, new.
    pub(super) interfered_runs: [usize; 2],
    /// The busiest window of a side all of whose runs were busy.
    pub(super) busy: [Option<Activity>; 2],
    /// Every idle sample of each side (for a test on samples).
    pub(super) samples: [Vec<f64>; 2],
}

/// The runs of a metric measured on an idle machine, the number left out,
/// and the busiest window when none is left. A run's record is matched to
/// its samples when there is one per run; a metric whose records cannot
/// be matched (saved before they were kept per run) is busy or not as a
/// whole.
fn idle_rounds(
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
pub(super) fn sides(
    id: &str,
    o: &MetricStats,
    n: &MetricStats,
    busy_cpus: f64,
    cycles: bool,
) -> Sides {
    let per_cycle = cycles
        .then(|| {
            estimate::per_cycle(id)
                .then(|| rounds_per_cycle(id, o, n))
                .flatten()
        })
        .flatten();
    let per_cycle_used = per_cycle.is_some();
    let [rounds_o, rounds_n] = per_cycle.unwrap_or_else(|| [o.rounds(), n.rounds()]);
    let (ro, bo, wo) = idle_rounds(o, rounds_o, busy_cpus);
    let (rn, bn, wn) = idle_rounds(n, rounds_n, busy_cpus);
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
