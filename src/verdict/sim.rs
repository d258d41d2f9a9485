//! Simulation tests of the verdicts: on synthetic runs spread as this
//! suite's are, A/A comparisons must rarely call a change, real shifts
//! must be found with the power the printed detectable change promises,
//! and the change's interval must hold the true shift.
//!
//! The spreads come from two idle 3-run A/A sittings of the whole suite
//! on a 2-vCPU AMD EPYC guest (556 metrics): the run-to-run spread of the
//! per-run minimum had a median of 1.5% over the metrics, 75th
//! percentile 5.5%, 90th 11.5%; within a run, the samples' spread had a
//! median of 3.6% with a right skew (3% of samples slowed by a further 2
//! to 6 times the spread: preemptions).

use lmbench_support::activity::BUSY_CPUS;
use lmbench_support::catalog::{all_metrics, Metric};
use lmbench_support::machine::Facts;
use lmbench_support::rng::SplitMix64;

use super::{compare, Comparison, Options, Verdict};
use crate::run::{Meta, MetricStats, Origin, Run};
use crate::stats;

mod host;

/// The suite's generator, with the normal deviates the simulations draw.
pub(crate) struct Rng(SplitMix64);

impl Rng {
    pub(crate) fn seeded(seed: u64) -> Rng {
        Rng(SplitMix64(seed))
    }
    fn uniform(&mut self) -> f64 {
        self.0.uniform()
    }
    /// Standard normal (Box-Muller).
    fn normal(&mut self) -> f64 {
        let u = self.uniform().max(f64::MIN_POSITIVE);
        let v = self.uniform();
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

/// How one side of a comparison is made, for one metric.
#[derive(Clone, Copy)]
struct Design {
    /// Runs of the suite pooled.
    runs: usize,
    /// Samples per run (10: quick).
    samples: usize,
    /// Spread of the per-run level (run to run), as a fraction.
    between: f64,
    /// Spread of the samples within a run, as a fraction.
    within: f64,
    /// The share of runs slowed whole by [`SLOWED_WHOLE`] (a host that
    /// steals a vCPU for a run's length).
    slowed: f64,
}

const QUICK: Design = Design {
    runs: 5,
    samples: 10,
    between: 0.015,
    within: 0.036,
    slowed: 0.0,
};

/// How much a run slowed whole is slower: lat_select/file/100 and
/// lat_sig/catch on an AMD EPYC guest read +26% to +46% in such runs.
const SLOWED_WHOLE: f64 = 1.3;

/// One metric's samples: `d.runs` runs around `ns`.
fn samples(rng: &mut Rng, d: Design, ns: f64) -> MetricStats {
    let (mut iters, mut times) = (Vec::new(), Vec::new());
    for _ in 0..d.runs {
        let mut level = ns * (d.between * rng.normal()).exp();
        if rng.uniform() < d.slowed {
            level *= SLOWED_WHOLE;
        }
        for i in 1..=d.samples {
            // Interference only slows: a floor with a right-skewed spread
            // above it, and a few preempted samples.
            let mut per = level * (1.0 + d.within * rng.normal().abs());
            if rng.uniform() < 0.03 {
                per *= 1.0 + d.within * (2.0 + 4.0 * rng.uniform());
            }
            let n = 100.0 * i as f64;
            iters.push(n);
            times.push(per * n);
        }
    }
    let per: Vec<f64> = iters.iter().zip(&times).map(|(n, t)| t / n).collect();
    MetricStats {
        median_ns: stats::median(&per),
        mean_ns: stats::mean(&per),
        mean_ci_ns: (0.0, 0.0),
        min_ns: per.iter().copied().fold(f64::INFINITY, f64::min),
        mad_ns: stats::mad(&per),
        std_dev_ns: stats::variance(&per).sqrt(),
        iters,
        times_ns: times,
        bytes_per_iter: None,
        round_sizes: if d.runs > 1 {
            vec![d.samples; d.runs]
        } else {
            vec![]
        },
        activity: vec![],
        clock_ns: vec![],
    }
}

/// A run of these metrics.
pub(crate) fn run_of(metrics: Vec<(&'static Metric, MetricStats)>) -> Run {
    let runs = metrics
        .first()
        .map_or(1, |(_, s)| s.round_sizes.len().max(1) as u32);
    Run {
        machine: Facts::default(),
        metrics: metrics
            .into_iter()
            .map(|(m, s)| (m.id.to_string(), s))
            .collect(),
        origin: Origin::Live,
        meta: Meta {
            suite_version: "0".into(),
            commit: None,
            criterion_version: None,
            date: "d".into(),
            runs_pooled: runs,
            failed: Default::default(),
        },
        imported: None,
    }
}

/// Metrics of the suite that compare fastest samples, `n` of them from
/// one program (so the moderation borrows across them).
fn metrics_of(program: &str, n: usize) -> Vec<&'static Metric> {
    let v: Vec<&'static Metric> = all_metrics()
        .filter(|m| m.program() == program)
        .filter(|m| super::Estimator::for_metric(m.id) == super::Estimator::Fastest)
        .take(n)
        .collect();
    assert_eq!(v.len(), n, "{program} has fewer than {n} metrics");
    v
}

/// One side: each metric's samples around 1000 ns times `scale(metric)`,
/// then `edit` applied to them.
fn side(
    rng: &mut Rng,
    metrics: &[(&'static Metric, Design)],
    scale: impl Fn(&Metric) -> f64,
    edit: impl Fn(&Metric, &Design, &mut MetricStats),
) -> Run {
    run_of(
        metrics
            .iter()
            .map(|(m, d)| {
                let mut s = samples(rng, *d, 1000.0 * scale(m));
                edit(m, d, &mut s);
                (*m, s)
            })
            .collect(),
    )
}

/// The comparison at `threshold` percent.
fn verdicts(old: &Run, new: &Run, threshold: f64) -> Comparison {
    compare(
        old,
        new,
        &Options {
            threshold_pct: threshold,
            busy_cpus: BUSY_CPUS,
            filter: None,
            sittings: None,
        },
    )
}

/// A comparison of `metrics` (each with its design), the new side's
/// times multiplied by `shift`.
fn trial(
    rng: &mut Rng,
    metrics: &[(&'static Metric, Design)],
    shift: f64,
    threshold: f64,
) -> Comparison {
    let old = side(rng, metrics, |_| 1.0, |_, _, _| ());
    let new = side(rng, metrics, |_| shift, |_, _, _| ());
    verdicts(&old, &new, threshold)
}

/// Metrics of three programs, their run-to-run spreads spread as the
/// suite's (0.5% to 12%).
fn suite_like() -> Vec<(&'static Metric, Design)> {
    let spreads = [0.005, 0.01, 0.015, 0.02, 0.03, 0.055, 0.08, 0.115];
    let mut v = Vec::new();
    for (k, program) in ["bw_mem", "lat_mem_rd", "tlb"].iter().enumerate() {
        for (i, m) in metrics_of(program, 16).into_iter().enumerate() {
            // Programs differ in level, and metrics of one a little.
            let between = spreads[(i + 3 * k) % spreads.len()];
            v.push((m, Design { between, ..QUICK }));
        }
    }
    v
}

#[test]
fn a_a_comparisons_rarely_call_a_change() {
    // 48 metrics a trial, 300 trials: Benjamini-Hochberg holds the chance
    // of any call in an A/A comparison to 5%, whatever the spreads.
    let metrics = suite_like();
    let mut rng = Rng::seeded(1);
    let (mut trials_with_calls, mut calls, mut unchanged) = (0, 0, 0);
    const TRIALS: usize = 300;
    for _ in 0..TRIALS {
        let c = trial(&mut rng, &metrics, 1.0, 5.0);
        let k = c.rows.iter().filter(|r| r.verdict.called()).count();
        calls += k;
        trials_with_calls += usize::from(k > 0);
        unchanged += c.count(Verdict::Unchanged);
    }
    let rate = trials_with_calls as f64 / TRIALS as f64;
    eprintln!(
        "A/A, 48 metrics, 5+5 runs: {trials_with_calls} of {TRIALS} trials called anything \
         ({calls} calls), {:.0}% of rows unchanged",
        100.0 * unchanged as f64 / (TRIALS * metrics.len()) as f64
    );
    assert!(
        rate <= 0.08,
        "{trials_with_calls} of {TRIALS} A/A trials called a change"
    );
}

#[test]
fn one_wild_run_calls_nothing() {
    // A run of one side 3.5 times slower (a neighbour evicting the cache
    // for a whole run): its metric keeps its own large spread.
    let metrics = suite_like();
    let mut rng = Rng::seeded(2);
    let mut calls = 0;
    let wild = metrics[0].0.id;
    for _ in 0..100 {
        let old = side(&mut rng, &metrics, |_| 1.0, |_, _, _| ());
        let new = side(
            &mut rng,
            &metrics,
            |_| 1.0,
            |m, d, s| {
                if m.id == wild {
                    for t in s.times_ns.iter_mut().take(d.samples) {
                        *t *= 3.5;
                    }
                }
            },
        );
        let c = verdicts(&old, &new, 5.0);
        calls += c.rows.iter().filter(|r| r.verdict.called()).count();
    }
    assert!(
        calls <= 5,
        "{calls} calls in 100 A/A trials with one wild run"
    );
}

#[test]
fn runs_slowed_whole_leave_the_test_and_a_small_shift_is_still_found() {
    // As on a shared host: a tenth of the runs of every metric slowed 30%
    // whole, 10 runs a side (a budgeted sitting), run-to-run spread 1%
    // otherwise. A/A: rarely a call. Every metric of one program 5%
    // slower: found on nearly all of them, the detectable change near
    // what the clean runs allow, the interval holding the shift.
    let design = Design {
        runs: 10,
        between: 0.01,
        slowed: 0.1,
        ..QUICK
    };
    let metrics: Vec<(&'static Metric, Design)> = ["bw_mem", "lat_mem_rd", "tlb"]
        .iter()
        .flat_map(|p| metrics_of(p, 8))
        .map(|m| (m, design))
        .collect();
    let shifted = |id: &str| id.starts_with("bw_mem");
    let mut rng = Rng::seeded(7);
    let (mut aa_trials_calling, mut found, mut shifted_rows, mut covered, mut false_calls) =
        (0, 0, 0, 0, 0);
    let mut detects = Vec::new();
    const TRIALS: usize = 200;
    for _ in 0..TRIALS {
        let aa = trial(&mut rng, &metrics, 1.0, 5.0);
        aa_trials_calling += usize::from(aa.rows.iter().any(|r| r.verdict.called()));
        let old = side(&mut rng, &metrics, |_| 1.0, |_, _, _| ());
        let new = side(
            &mut rng,
            &metrics,
            |m| if shifted(m.id) { 1.05 } else { 1.0 },
            |_, _, _| (),
        );
        for r in &verdicts(&old, &new, 5.0).rows {
            let t = r.test.as_ref().unwrap();
            if shifted(&r.id) {
                shifted_rows += 1;
                found += usize::from(r.verdict.called() && t.ratio > 1.0);
                covered += usize::from(t.interval.0 <= 1.05 && 1.05 <= t.interval.1);
                detects.push(t.detect_pct);
            } else {
                false_calls += usize::from(r.verdict.called());
            }
        }
    }
    let power = found as f64 / shifted_rows as f64;
    let coverage = covered as f64 / shifted_rows as f64;
    let detect = stats::median(&detects);
    eprintln!(
        "runs slowed whole: A/A trials calling {aa_trials_calling} of {TRIALS}; 5% shift found \
         {power:.2}, interval holds it {coverage:.2}, median detect {detect:.1}%, false calls \
         {false_calls}"
    );
    assert!(aa_trials_calling as f64 <= 0.08 * TRIALS as f64);
    assert!(power >= 0.9, "power {power}");
    assert!(coverage >= 0.9, "coverage {coverage}");
    assert!(detect <= 3.0, "median detectable change {detect}%");
    assert!(false_calls as f64 <= 0.05 * (TRIALS * 16) as f64);
}

#[test]
fn a_shift_is_found_and_its_interval_holds_it() {
    // Every metric of one program 10% slower (a kernel path got dearer),
    // the others unchanged: found on nearly every shifted metric whose
    // spread allows it, seldom elsewhere, and the 95% interval holds the
    // true shift about 95% of the time.
    let metrics = suite_like();
    let shifted = |id: &str| id.starts_with("bw_mem");
    let mut rng = Rng::seeded(3);
    let (mut found, mut eligible, mut false_calls, mut others, mut covered, mut intervals) =
        (0, 0, 0, 0, 0, 0);
    for _ in 0..100 {
        let old = side(&mut rng, &metrics, |_| 1.0, |_, _, _| ());
        let new = side(
            &mut rng,
            &metrics,
            |m| if shifted(m.id) { 1.10 } else { 1.0 },
            |_, _, _| (),
        );
        let c = verdicts(&old, &new, 5.0);
        for r in &c.rows {
            let t = r.test.as_ref().unwrap();
            if shifted(&r.id) {
                intervals += 1;
                covered += usize::from(t.interval.0 <= 1.10 && 1.10 <= t.interval.1);
                // A 10% shift is within reach where the detectable change
                // (at 80% power) is at most 10%.
                if t.detect_pct <= 10.0 {
                    eligible += 1;
                    found += usize::from(r.verdict == Verdict::Slower);
                }
            } else {
                others += 1;
                false_calls += usize::from(r.verdict.called());
            }
        }
    }
    let power = found as f64 / eligible as f64;
    let coverage = covered as f64 / intervals as f64;
    let false_rate = false_calls as f64 / others as f64;
    eprintln!(
        "10% shift: found {found} of {eligible} within reach ({power:.2}); intervals hold it \
         {coverage:.3}; false calls {false_calls} of {others}"
    );
    assert!(power >= 0.8, "power {power}");
    assert!((0.9..=0.99).contains(&coverage), "coverage {coverage}");
    assert!(false_rate <= 0.05, "false calls {false_rate}");
}

#[test]
fn the_printed_detectable_change_has_about_80_percent_power() {
    // One metric alone (no borrowing, no multiplicity): shifted by the
    // detectable change compare prints for its design, it is called in
    // about 80% of trials.
    let metric = metrics_of("lat_syscall", 1)[0];
    let d = Design {
        between: 0.02,
        ..QUICK
    };
    let mut rng = Rng::seeded(4);
    let detect: f64 = (0..200)
        .map(|_| {
            let c = trial(&mut rng, &[(metric, d)], 1.0, 5.0);
            c.rows[0].test.as_ref().unwrap().detect_pct
        })
        .sum::<f64>()
        / 200.0;
    let mut found = 0;
    const TRIALS: usize = 1000;
    for _ in 0..TRIALS {
        let c = trial(&mut rng, &[(metric, d)], 1.0 + detect / 100.0, 1.0);
        found += usize::from(c.rows[0].verdict.called());
    }
    let rate = found as f64 / TRIALS as f64;
    eprintln!("shift of the detectable ±{detect:.2}%: found in {rate:.3} of trials");
    assert!(
        (0.65..=0.92).contains(&rate),
        "a shift of the detectable {detect:.2}% was found in {rate:.2} of trials"
    );
}

#[test]
fn single_runs_are_tested_on_their_samples_and_say_so() {
    let metric = metrics_of("lat_syscall", 1)[0];
    let d = Design { runs: 1, ..QUICK };
    let mut rng = Rng::seeded(5);
    let c = trial(&mut rng, &[(metric, d)], 1.3, 5.0);
    let r = &c.rows[0];
    assert_eq!(r.level, super::Level::Samples);
    assert_eq!(r.runs, [1, 1]);
    assert_eq!(r.verdict, Verdict::Slower);
}

#[test]
fn single_runs_beside_a_quieter_programs_runs_are_neither_called_nor_decided() {
    // Half of one program's metrics measured five times a side and quiet
    // (0.1% from run to run, as the TLB sizes that hit L1), the rest once
    // a side and noisy (8%, as the sizes that miss): the prior the single
    // runs borrow is the quiet half's. Called on it, A/A trials call most
    // of the noisy half; instead none is called or decided, each asks for
    // a second run, and the quiet half is still decided.
    let all = metrics_of("bw_mem", 16);
    let design = |i: usize| {
        if i.is_multiple_of(2) {
            Design {
                runs: 5,
                between: 0.001,
                ..QUICK
            }
        } else {
            Design {
                runs: 1,
                between: 0.08,
                within: 0.002,
                ..QUICK
            }
        }
    };
    let metrics: Vec<(&'static Metric, Design)> = all
        .iter()
        .enumerate()
        .map(|(i, m)| (*m, design(i)))
        .collect();
    let single = |id: &str| metrics.iter().any(|(m, d)| m.id == id && d.runs == 1);
    let mut rng = Rng::seeded(6);
    let (mut borrowed_calls, mut singles, mut quiet_decided, mut quiet) = (0, 0, 0, 0);
    for _ in 0..100 {
        let c = trial(&mut rng, &metrics, 1.0, 5.0);
        for r in &c.rows {
            let t = r.test.as_ref().expect("tested");
            if single(&r.id) {
                assert_eq!(r.level, super::Level::Borrowed, "{}", r.id);
                assert_eq!(r.verdict, Verdict::CannotTell, "{}", r.id);
                assert!(t.runs_needed.is_some_and(|k| k >= 2), "{}", r.id);
                assert!(!r.detects(5.0), "{}", r.id);
                singles += 1;
                // What the borrowed spread alone would have called.
                borrowed_calls += usize::from(t.p < super::ALPHA);
            } else {
                quiet += 1;
                quiet_decided += usize::from(r.verdict == Verdict::Unchanged);
            }
        }
    }
    let fa = borrowed_calls as f64 / singles as f64;
    let decided = quiet_decided as f64 / quiet as f64;
    eprintln!("single runs on a quieter program's spread: p < 0.05 in {fa:.2}, none called; quiet ones decided {decided:.2}");
    assert!(fa > 0.3, "the borrowed spread was not too small here: {fa}");
    assert!(decided > 0.9, "{decided}");
}
