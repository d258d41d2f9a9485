//! Simulations of the host moving under the verdicts: a clock that swings
//! between turbo bins, memory that slowed between sittings, an A/A pair
//! across sittings, and the rounds of one interleaved sitting.

use super::*;

/// The core clock's range on a Xeon guest, ns a cycle: the host moves a
/// vCPU between turbo bins in it every few tens of milliseconds.
const CLOCK_RANGE: (f64, f64) = (0.245, 0.272);

/// Gives every sample of `s` a clock drawn from `CLOCK_RANGE` (times
/// `slow`) and the time that clock makes of it: the samples' time in
/// cycles is what `samples` drew, at 0.25 ns a cycle.
fn on_swinging_clock(rng: &mut Rng, s: &mut MetricStats, slow: f64) {
    let (lo, hi) = CLOCK_RANGE;
    s.clock_ns = s
        .times_ns
        .iter_mut()
        .map(|t| {
            let c = (lo + (hi - lo) * rng.uniform()) * slow;
            *t *= c / 0.25;
            [c, c]
        })
        .collect();
}

#[test]
fn a_swinging_clock_is_compared_per_cycle() {
    // System-call-like metrics, steady in cycles (0.5% run to run), on a
    // clock that swings 11% sample to sample and, on the new side, runs
    // 6% slower throughout: compared in time, the clock is a slowdown;
    // per cycle, nothing changed, and a real 5% is found.
    let metrics: Vec<(&'static Metric, Design)> = metrics_of("lat_ops", 12)
        .into_iter()
        .map(|m| {
            (
                m,
                Design {
                    runs: 3,
                    between: 0.005,
                    within: 0.01,
                    ..QUICK
                },
            )
        })
        .collect();
    let mut rng = Rng::seeded(11);
    let (mut aa_calls, mut found, mut in_time_calls, mut rows) = (0, 0, 0, 0);
    for _ in 0..50 {
        let old = side(&mut rng, &metrics, |_| 1.0, |_, _, _| ());
        let mut new = side(&mut rng, &metrics, |_| 1.0, |_, _, _| ());
        let mut shifted = side(&mut rng, &metrics, |_| 1.05, |_, _, _| ());
        let mut old = old;
        for s in old.metrics.values_mut() {
            on_swinging_clock(&mut rng, s, 1.0);
        }
        for run in [&mut new, &mut shifted] {
            for s in run.metrics.values_mut() {
                on_swinging_clock(&mut rng, s, 1.06);
            }
        }
        let c = verdicts(&old, &new, 5.0);
        assert!(c
            .rows
            .iter()
            .all(|r| r.per_cycle && r.stat_label().ends_with("/c")));
        let k = c.clock.as_ref().expect("both sides probed");
        assert!(
            (k.change_pct() + 100.0 * (1.0 - 1.0 / 1.06)).abs() < 2.0,
            "{k:?}"
        );
        aa_calls += c.rows.iter().filter(|r| r.verdict.called()).count();
        rows += c.rows.len();
        found += verdicts(&old, &shifted, 5.0)
            .rows
            .iter()
            .filter(|r| r.verdict == Verdict::Slower || r.verdict == Verdict::Small)
            .count();
        // The same runs without probes: the clock is all the test sees.
        for s in new.metrics.values_mut() {
            s.clock_ns.clear();
        }
        let mut bare = old.clone();
        for s in bare.metrics.values_mut() {
            s.clock_ns.clear();
        }
        in_time_calls += verdicts(&bare, &new, 5.0)
            .rows
            .iter()
            .filter(|r| r.verdict.called())
            .count();
    }
    let (fa, power, in_time) = (
        aa_calls as f64 / rows as f64,
        found as f64 / rows as f64,
        in_time_calls as f64 / rows as f64,
    );
    eprintln!("swinging clock: per cycle A/A calls {fa:.3}, 5% found {power:.2}; in time A/A calls {in_time:.2}");
    assert!(fa <= 0.05, "A/A calls {fa}");
    assert!(power >= 0.8, "power {power}");
    assert!(
        in_time >= 0.5,
        "in time the clock should read as a change: {in_time}"
    );
}

#[test]
fn a_host_whose_memory_slowed_is_reported_beside_the_verdicts() {
    // Main-memory metrics spread 10% run to run, two runs a side: a 12%
    // slowdown of all of them is called on few, but they move together.
    let metrics: Vec<(&'static Metric, Design)> = all_metrics()
        .filter(|m| crate::verdict::main_memory(m.id))
        .take(24)
        .map(|m| {
            (
                m,
                Design {
                    runs: 2,
                    between: 0.10,
                    ..QUICK
                },
            )
        })
        .collect();
    assert_eq!(metrics.len(), 24);
    let mut rng = Rng::seeded(5);
    let c = trial(&mut rng, &metrics, 1.12, 5.0);
    assert!(c.memory.machine_changed(), "{:?}", c.memory);
    assert!(c.memory.median_pct > 5.0, "{:?}", c.memory);
    assert!(!c.drift.machine_changed());
    let same = trial(&mut rng, &metrics, 1.0, 5.0);
    assert!(!same.memory.machine_changed(), "{:?}", same.memory);
}

#[test]
fn an_a_a_pair_keeps_the_hosts_moves_between_sittings_from_being_called() {
    // Each sitting moves every metric by its own factor (tau 10%, as the
    // host's memory placement moves main memory from one sitting to the
    // next), over runs that agree within 1%, 10 runs a side. Without a
    // calibration most metrics are called; with one from an independent
    // A/A pair of the same host few are, and a change four times the
    // host's move is still found.
    let design = Design {
        runs: 10,
        between: 0.01,
        ..QUICK
    };
    let metrics: Vec<(&'static Metric, Design)> = ["bw_mem", "lat_mem_rd"]
        .iter()
        .flat_map(|p| metrics_of(p, 12))
        .map(|m| (m, design))
        .collect();
    const TAU: f64 = 0.10;
    let mut rng = Rng::seeded(11);
    let sitting = |rng: &mut Rng, shift: f64| {
        let moves: std::collections::BTreeMap<&str, f64> = metrics
            .iter()
            .map(|(m, _)| (m.id, (TAU * rng.normal()).exp()))
            .collect();
        side(rng, &metrics, |m| moves[m.id] * shift, |_, _, _| ())
    };
    let (mut plain_calls, mut calibrated_calls, mut found, mut rows) = (0, 0, 0, 0);
    const TRIALS: usize = 40;
    for _ in 0..TRIALS {
        let (a1, a2) = (sitting(&mut rng, 1.0), sitting(&mut rng, 1.0));
        let aa = verdicts(&a1, &a2, 5.0);
        let s =
            crate::verdict::sittings::Sittings::from_aa(&[(&aa, ["a1".into(), "a2".into()])], None);
        let (old, new) = (sitting(&mut rng, 1.0), sitting(&mut rng, 1.0));
        let opts = |sittings| Options {
            threshold_pct: 5.0,
            busy_cpus: BUSY_CPUS,
            filter: None,
            sittings,
        };
        let called = |c: &Comparison| c.rows.iter().filter(|r| r.verdict.called()).count();
        plain_calls += called(&compare(&old, &new, &opts(None)));
        calibrated_calls += called(&compare(&old, &new, &opts(Some(&s))));
        let slower = sitting(&mut rng, 1.5);
        found += compare(&old, &slower, &opts(Some(&s)))
            .rows
            .iter()
            .filter(|r| r.verdict == Verdict::Slower)
            .count();
        rows += metrics.len();
    }
    let (plain, calibrated, power) = (
        plain_calls as f64 / rows as f64,
        calibrated_calls as f64 / rows as f64,
        found as f64 / rows as f64,
    );
    eprintln!(
        "host moves between sittings: A/B with nothing changed called {plain:.2} of metrics \
         plain, {calibrated:.3} with an A/A pair; a 50% change found {power:.2}"
    );
    assert!(plain >= 0.5, "plain {plain}");
    assert!(calibrated <= 0.05, "calibrated {calibrated}");
    assert!(power >= 0.6, "power {power}");
}

#[test]
fn a_lone_run_beside_several_is_not_called_until_it_has_a_second() {
    // Ten runs against one, a tenth of all runs slowed whole: a lone slow
    // run would be called on the ten's tight spread. It is not; two runs
    // that agree on a real 20% change are.
    let many = Design {
        runs: 10,
        between: 0.01,
        slowed: 0.1,
        ..QUICK
    };
    let metrics: Vec<(&'static Metric, Design)> = metrics_of("bw_mem", 16)
        .into_iter()
        .map(|m| (m, many))
        .collect();
    let lone: Vec<(&'static Metric, Design)> = metrics
        .iter()
        .map(|(m, d)| (*m, Design { runs: 1, ..*d }))
        .collect();
    let two: Vec<(&'static Metric, Design)> = metrics
        .iter()
        .map(|(m, d)| {
            (
                *m,
                Design {
                    runs: 2,
                    slowed: 0.0,
                    ..*d
                },
            )
        })
        .collect();
    let mut rng = Rng::seeded(13);
    let (mut lone_calls, mut found, mut rows) = (0, 0, 0);
    for _ in 0..50 {
        let old = side(&mut rng, &metrics, |_| 1.0, |_, _, _| ());
        let c = verdicts(&old, &side(&mut rng, &lone, |_| 1.0, |_, _, _| ()), 5.0);
        for r in &c.rows {
            assert_eq!(r.runs[1], 1);
            lone_calls += usize::from(r.verdict.called());
            if r.test.as_ref().is_some_and(|t| t.q < crate::verdict::ALPHA) {
                // Uncalled: "cannot tell", or "unchanged" where even the
                // lone run's interval lies within the threshold.
                assert!(
                    matches!(r.verdict, Verdict::CannotTell | Verdict::Unchanged),
                    "{}",
                    r.id
                );
                assert!(r.test.as_ref().unwrap().runs_needed >= Some(2));
            }
        }
        let c = verdicts(&old, &side(&mut rng, &two, |_| 1.2, |_, _, _| ()), 5.0);
        found += c
            .rows
            .iter()
            .filter(|r| r.verdict == Verdict::Slower)
            .count();
        rows += metrics.len();
    }
    let power = found as f64 / rows as f64;
    eprintln!("lone runs: {lone_calls} calls; two runs a 20% change found {power:.2}");
    assert_eq!(lone_calls, 0);
    assert!(power >= 0.9, "power {power}");
}

/// Two sides of one interleaved sitting, each round's level moved by the
/// host alike for both (a 5% spread from round to round), the new side
/// 1% slower: paired over the rounds the 1% is found, inside its
/// interval; the same runs taken as two samples cannot tell.
#[test]
fn rounds_of_one_sitting_are_paired_and_cancel_the_hosts_moves() {
    let mut rng = Rng::seeded(47);
    let metrics = metrics_of("lat_syscall", 4);
    let rounds = 4;
    let mut old = Vec::new();
    let mut new = Vec::new();
    for m in &metrics {
        let levels: Vec<f64> = (0..rounds).map(|_| (0.05 * rng.normal()).exp()).collect();
        let side = |shift: f64, rng: &mut Rng| {
            let mut s = samples(
                rng,
                Design {
                    runs: rounds,
                    within: 0.001,
                    between: 0.0,
                    ..QUICK
                },
                1000.0 * shift,
            );
            for (r, level) in levels.iter().enumerate() {
                for t in &mut s.times_ns[r * 10..(r + 1) * 10] {
                    *t *= level;
                }
            }
            s
        };
        old.push((*m, side(1.0, &mut rng)));
        new.push((*m, side(1.01, &mut rng)));
    }
    let (mut old, mut new) = (run_of(old), run_of(new));
    let unpaired = verdicts(&old, &new, 5.0);
    assert!(unpaired.rows.iter().all(|r| !r.paired));
    for (run, side) in [(&mut old, "a"), (&mut new, "b")] {
        run.machine
            .set("sitting", Some("2026-12-07T04:00:00Z".into()));
        run.machine.set("sitting_side", Some(side.into()));
    }
    let paired = verdicts(&old, &new, 5.0);
    for (p, u) in paired.rows.iter().zip(&unpaired.rows) {
        assert!(p.paired, "{}", p.id);
        let t = p.test.as_ref().unwrap();
        assert!(
            t.interval.0 < 1.01 && 1.01 < t.interval.1,
            "{}: {:?}",
            p.id,
            t.interval
        );
        assert!(
            t.interval.0 > 1.0,
            "{}: paired, 1% is found: {:?}",
            p.id,
            t.interval
        );
        let w = |t: &crate::verdict::Test| t.interval.1 / t.interval.0;
        assert!(
            w(t) < w(u.test.as_ref().unwrap()),
            "{}: paired {:?} not narrower than unpaired {:?}",
            p.id,
            t.interval,
            u.test.as_ref().unwrap().interval
        );
    }
}
