//! Where a metric's noise is: between the samples of one run, or between
//! runs (a new process, new memory, a new placement). Kalibera and Jones
//! ("Rigorous Benchmarking in Reasonable Time", 2013) split the variance
//! of a run's mean into the two levels; where the between-run part
//! dominates, more samples per run barely help and more runs do, which is
//! how `run --budget` spends its time. Saved with each metric of a pooled
//! run (`noise` in run.json) and summarised by `compare`.

use serde::{Deserialize, Serialize};

use crate::run::MetricStats;
use crate::stats;

/// A metric's noise at the two levels, on the log of its samples (so a
/// spread is a share of the figure).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Noise {
    /// Runs pooled.
    pub runs: usize,
    /// The spread of one sample about its run's mean, percent.
    pub within_pct: f64,
    /// The spread of the runs' true levels, percent: what the variance of
    /// the run means holds beyond the samples' share of it.
    pub between_pct: f64,
    /// The between-run share of the variance of a run's mean, 0 to 1.
    pub between_share: f64,
}

/// The split for a metric of at least two runs of at least two samples.
pub fn split(s: &MetricStats) -> Option<Noise> {
    let rounds: Vec<Vec<f64>> = s
        .rounds()
        .into_iter()
        .map(|r| r.into_iter().filter(|x| *x > 0.0).map(f64::ln).collect())
        .collect();
    if rounds.len() < 2 || rounds.iter().any(|r: &Vec<f64>| r.len() < 2) {
        return None;
    }
    let within = stats::mean(
        &rounds
            .iter()
            .map(|r| stats::variance(r))
            .collect::<Vec<_>>(),
    );
    let n = stats::mean(&rounds.iter().map(|r| r.len() as f64).collect::<Vec<_>>());
    let means: Vec<f64> = rounds.iter().map(|r| stats::mean(r)).collect();
    let of_means = stats::variance(&means);
    let between = (of_means - within / n).max(0.0);
    Some(Noise {
        runs: rounds.len(),
        within_pct: 100.0 * within.sqrt(),
        between_pct: 100.0 * between.sqrt(),
        between_share: if of_means > 0.0 {
            (between / of_means).min(1.0)
        } else {
            0.0
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pooled(runs: &[&[f64]]) -> MetricStats {
        let parts: Vec<MetricStats> = runs
            .iter()
            .map(|r| {
                let mut s = MetricStats::single(r[0]);
                s.iters = vec![1.0; r.len()];
                s.times_ns = r.to_vec();
                s
            })
            .collect();
        MetricStats::pool(&parts).unwrap()
    }

    #[test]
    fn runs_apart_are_between_run_noise_and_scatter_is_within() {
        // Two runs at 100 and 110, each sample equal to its run's level:
        // all the variance is between runs.
        let n = split(&pooled(&[&[100.0, 100.0, 100.0], &[110.0, 110.0, 110.0]])).unwrap();
        assert_eq!(n.runs, 2);
        assert_eq!(n.within_pct, 0.0);
        assert!((n.between_pct - 100.0 * (1.1f64.ln() / 2f64.sqrt())).abs() < 1e-9);
        assert_eq!(n.between_share, 1.0);
        // Same levels, scattered samples: the run means differ by what the
        // scatter explains, or less: no between-run part.
        let n = split(&pooled(&[&[90.0, 110.0], &[110.0, 90.0]])).unwrap();
        assert!(n.within_pct > 10.0);
        assert_eq!(n.between_share, 0.0);
        // One run: nothing to split.
        assert!(split(&pooled(&[&[1.0, 2.0]])).is_none());
    }
}
