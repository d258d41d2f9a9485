//! Simulation tests of `compare`'s statistics: on synthetic runs spread as
//! the suite's own are, an A/A comparison must rarely call a change (at
//! most 5% of 1,000 trials) and a real 10% shift must be found (at least
//! 80%), and the detectable change it prints must be what it detects with
//! 80% power.
//!
//! The spreads are the coefficients of variation of the per-sample times
//! in `results/vm/default` (434 metrics of a default run on the 2-vCPU VM):
//! 10th percentile 1.4%, median 3.6%, 75th 8.3%, 90th 15.5%, with a right
//! skew (a few slow samples: preemptions, page faults). Samples here are
//! log-normal with that spread, 3% of them slowed by a further 2 to 6
//! times the spread (skewness about 1, as measured).

use lmbench_support::activity::BUSY_CPUS;
use lmbench_support::catalog::all_metrics;
use lmbench_support::machine::Facts;

use super::{compare, Verdict};
use crate::results::{Meta, MetricStats, Origin, Run};
use crate::stats;

/// The suite's within-run spreads (see the module doc).
const SPREADS: [f64; 4] = [0.014, 0.036, 0.083, 0.155];
const TRIALS: usize = 1000;

/// SplitMix64: a small, good, seeded generator (no dependency).
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Standard normal (Box-Muller).
    fn normal(&mut self) -> f64 {
        let u = self.uniform().max(f64::MIN_POSITIVE);
        let v = self.uniform();
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

/// How one side of a comparison is made.
#[derive(Clone, Copy)]
struct Design {
    /// Runs of the suite pooled (1: a single run).
    runs: usize,
    /// Samples per run (10: quick; 100: a default fast metric).
    samples: usize,
    /// Spread of the per-run level (run to run), as a fraction.
    between: f64,
    /// Spread of the samples within a run, as a fraction.
    within: f64,
    /// Add the slow outliers.
    outliers: bool,
}

/// One side: `design.runs` runs of linear samples around `ns`.
fn side(rng: &mut Rng, d: Design, ns: f64) -> Run {
    let (mut iters, mut times) = (Vec::new(), Vec::new());
    for _ in 0..d.runs {
        let level = ns * (1.0 + d.between * rng.normal());
        for i in 1..=d.samples {
            let mut per = level * (d.within * rng.normal() - d.within * d.within / 2.0).exp();
            if d.outliers && rng.uniform() < 0.03 {
                per *= 1.0 + d.within * (2.0 + 4.0 * rng.uniform());
            }
            let n = 100.0 * i as f64;
            iters.push(n);
            times.push(per * n);
        }
    }
    let rep_sizes = if d.runs > 1 {
        vec![d.samples; d.runs]
    } else {
        vec![]
    };
    one_metric_run(iters, times, rep_sizes)
}

/// A run of the first catalog metric with these samples (`rep_sizes`: how
/// many samples each pooled run gave; empty for one run).
pub(super) fn one_metric_run(iters: Vec<f64>, times: Vec<f64>, rep_sizes: Vec<usize>) -> Run {
    let per: Vec<f64> = iters.iter().zip(&times).map(|(n, t)| t / n).collect();
    let runs_pooled = rep_sizes.len().max(1) as u32;
    let s = MetricStats {
        median_ns: stats::median(&per),
        mean_ns: stats::mean(&per),
        mean_ci_ns: (0.0, 0.0),
        min_ns: per.iter().copied().fold(f64::INFINITY, f64::min),
        mad_ns: stats::mad(&per),
        std_dev_ns: stats::variance(&per).sqrt(),
        iters,
        times_ns: times,
        bytes_per_iter: None,
        rep_sizes,
        activity: vec![],
    };
    let id = all_metrics().next().unwrap().id.to_string();
    Run {
        machine: Facts::default(),
        metrics: [(id, s)].into_iter().collect(),
        origin: Origin::Live,
        meta: Meta {
            suite_version: "0".into(),
            commit: None,
            criterion_version: None,
            date: "d".into(),
            runs_pooled,
        },
        imported: None,
    }
}

/// How many of `TRIALS` comparisons of `old` against `shift` times it end
/// in a verdict of "changed" (faster or slower), and the mean detectable
/// change printed.
fn called_changed(seed: u64, d: Design, shift: f64) -> (usize, f64) {
    let mut rng = Rng(seed);
    let (mut changed, mut detect) = (0, 0.0);
    for _ in 0..TRIALS {
        let old = side(&mut rng, d, 1000.0);
        let new = side(&mut rng, d, 1000.0 * (1.0 + shift));
        let row = &compare(&old, &new, 1.0, BUSY_CPUS, None)[0];
        if matches!(row.verdict, Verdict::Faster | Verdict::Slower) {
            changed += 1;
        }
        detect += row.detectable_pct.unwrap();
    }
    (changed, detect / TRIALS as f64)
}

#[test]
fn a_a_comparisons_rarely_call_a_change() {
    // Single runs: the test knows only within-run noise, so the A/A runs
    // here have none between them (the report says a single run cannot
    // see run-to-run noise; `--runs N` can).
    for (k, &within) in SPREADS.iter().enumerate() {
        for samples in [10, 100] {
            let d = Design {
                runs: 1,
                samples,
                between: 0.0,
                within,
                outliers: true,
            };
            let (changed, detect) = called_changed(k as u64 * 7 + samples as u64, d, 0.0);
            eprintln!("A/A single run, spread {within}, {samples} samples: {changed}/{TRIALS} called changed, detectable ±{detect:.1}%");
            assert!(
                changed <= TRIALS / 20,
                "spread {within}, {samples} samples: {changed} of {TRIALS} A/A called changed"
            );
        }
    }
    // Pooled runs (`--runs 3`) with run-to-run noise: tested on run means.
    for between in [0.01, 0.03] {
        let d = Design {
            runs: 3,
            samples: 10,
            between,
            within: SPREADS[1],
            outliers: true,
        };
        let (changed, detect) = called_changed(99, d, 0.0);
        eprintln!("A/A 3 pooled runs, run-to-run spread {between}: {changed}/{TRIALS} called changed, detectable ±{detect:.1}%");
        assert!(
            changed <= TRIALS / 20,
            "pooled, between-run spread {between}: {changed} of {TRIALS} A/A called changed"
        );
    }
}

#[test]
fn a_ten_percent_shift_is_found() {
    // Where the spread allows it: the suite's median spread, a quick run
    // (10 samples) or three pooled runs with 2% run-to-run noise.
    let single = Design {
        runs: 1,
        samples: 10,
        between: 0.0,
        within: SPREADS[1],
        outliers: true,
    };
    let pooled = Design {
        runs: 3,
        between: 0.02,
        ..single
    };
    for (what, d) in [("single", single), ("pooled", pooled)] {
        for shift in [0.10, -0.10] {
            let (found, detect) = called_changed(5, d, shift);
            eprintln!("{what}, shift {shift}: found {found}/{TRIALS}, detectable ±{detect:.1}%");
            assert!(
                found >= TRIALS * 8 / 10,
                "{what}, shift {shift}: found in {found} of {TRIALS} (detectable ±{detect:.1}%)"
            );
            assert!(detect < 10.0, "{what}: detectable ±{detect:.1}%");
        }
    }
}

#[test]
fn the_printed_detectable_change_has_80_percent_power() {
    // Shift by the detectable change compare prints for this design (its
    // mean over A/A trials): about 80% of trials must find it.
    let d = Design {
        runs: 1,
        samples: 10,
        between: 0.0,
        within: SPREADS[1],
        outliers: false,
    };
    let (_, detect) = called_changed(11, d, 0.0);
    let (found, _) = called_changed(12, d, detect / 100.0);
    let rate = found as f64 / TRIALS as f64;
    eprintln!("shift of the detectable ±{detect:.2}%: found in {rate:.3} of trials");
    assert!(
        (0.70..=0.90).contains(&rate),
        "a shift of the detectable ±{detect:.2}% was found in {rate:.2} of trials, want ~0.8"
    );
}
