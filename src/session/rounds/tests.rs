use super::*;

/// A live run of lat_syscall/null alone.
fn run_of(s: crate::run::MetricStats) -> Run {
    Run {
        machine: Default::default(),
        metrics: [("lat_syscall/null".to_string(), s)].into(),
        origin: crate::run::Origin::Live,
        meta: crate::store::current_meta(1),
        imported: None,
    }
}

#[test]
fn a_shuffle_keeps_programs_together_and_floors_after_their_metric() {
    let plan = super::super::plan::plan(None, false).unwrap();
    let mut rng = Rng::seeded(7);
    let order = shuffled(&plan.steps, &mut rng);
    assert_eq!(order.len(), plan.steps.len());
    // Every floor step follows a step of the metric it is the floor of.
    for (i, s) in order.iter().enumerate() {
        if std::ptr::eq(s.program, &floor::PROGRAM) && i > 0 {
            let prev = order[i - 1];
            assert!(
                std::ptr::eq(prev.program, &floor::PROGRAM) || prev.filter.is_some(),
                "{s:?} after {prev:?}"
            );
        }
    }
    // A program's steps are consecutive.
    let names: Vec<&str> = order
        .iter()
        .filter(|s| !std::ptr::eq(s.program, &floor::PROGRAM))
        .map(|s| s.program.name)
        .collect();
    let mut seen = BTreeSet::new();
    for w in names.windows(2) {
        if w[0] != w[1] {
            assert!(seen.insert(w[0]), "{} split", w[0]);
        }
    }
    // Another seed, another order.
    let other: Vec<&str> = shuffled(&plan.steps, &mut Rng::seeded(8))
        .iter()
        .map(|s| s.program.name)
        .collect();
    let first: Vec<&str> = order.iter().map(|s| s.program.name).collect();
    assert_ne!(first, other);
}

#[test]
fn a_round_takes_a_third_of_the_time_left() {
    assert_eq!(
        round_time(Duration::from_secs(600)),
        Duration::from_secs(200)
    );
    assert_eq!(
        round_time(Duration::from_secs(120)),
        Duration::from_secs(60)
    );
    assert_eq!(round_time(Duration::from_secs(30)), Duration::from_secs(30));
}

#[test]
fn a_round_takes_the_most_uncertain_that_fit() {
    let c = |id: &str, d: f64| Candidate {
        id: id.to_string(),
        tier: 0,
        detect_pct: d,
        runs_needed: None,
        single: false,
    };
    let cands = [
        c("lat_syscall/null", 20.0),
        c("bw_mem/frd/2g", 15.0),
        c("lat_syscall/read", 10.0),
    ];
    let mut costs = Costs::default();
    costs
        .0
        .insert("bw_mem/frd/2g".into(), Duration::from_secs(30));
    let r = fit_round(&cands, &costs, Duration::from_secs(4));
    // bw_mem does not fit in 4 s; both syscalls (1 s each, and 1 s to
    // start lat_syscall) do, grouped.
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].0.name, "lat_syscall");
    assert_eq!(r[0].1, ["lat_syscall/null", "lat_syscall/read"]);
    assert_eq!(exact(&r[0].1), "^(lat_syscall/null|lat_syscall/read)$");
}

#[test]
fn single_runs_of_lmbench_columns_come_first_then_the_nearest_to_settled() {
    let c = |id: &str, tier: u8, single: bool, runs_needed: Option<usize>, d: f64| Candidate {
        id: id.to_string(),
        tier,
        detect_pct: d,
        runs_needed,
        single,
    };
    let mut v = vec![
        c("hopeless", 0, false, None, 900.0),
        c("far", 0, false, Some(40), 30.0),
        c("near", 0, false, Some(3), 7.0),
        c("other column", 1, true, Some(2), 6.0),
        c("once", 0, true, None, 4.0),
    ];
    order(&mut v);
    let ids: Vec<&str> = v.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["once", "near", "far", "hopeless", "other column"]);
}

#[test]
fn a_column_metric_short_of_its_runs_is_measured_again_even_if_decided() {
    use crate::run::MetricStats;
    // One run of tight samples: against itself it is "unchanged" on
    // its samples, but one run shows no run-to-run noise.
    let mut s = MetricStats::single(100.0);
    s.iters = vec![1.0; 10];
    s.times_ns = (0..10).map(|i| 100.0 + 0.01 * f64::from(i)).collect();
    assert!(Metric::by_id("lat_syscall/null").is_some());
    let run = run_of(s.clone());
    let u = undecided(&run, None, 5.0);
    assert_eq!(u.len(), 1);
    assert!(u[0].single && u[0].tier == 0);
    // With two runs of its own it is decided, but short of the runs
    // a column's metric is given: measured again, ordered as one that
    // needs that many.
    let two = MetricStats::pool(&[s.clone(), s.clone()]).unwrap();
    let u = undecided(&run_of(two), None, 5.0);
    assert_eq!(u.len(), 1);
    assert!(!u[0].single);
    assert_eq!(u[0].runs_needed, Some(COLUMN_RUNS));
    // With that many it is left alone.
    let full = MetricStats::pool(&vec![s.clone(); COLUMN_RUNS]).unwrap();
    assert!(undecided(&run_of(full), None, 5.0).is_empty());
}

#[test]
fn a_decided_column_that_cannot_see_the_threshold_is_unresolved_not_undecided() {
    use crate::run::MetricStats;
    // Rounds that differ by a few percent, the new side 30% slower:
    // called, but with an interval far wider than 1%.
    let rounds = |scale: f64| {
        let parts: Vec<MetricStats> = [100.0, 106.0, 97.0, 103.0, 99.0, 104.0, 95.0, 102.0]
            .iter()
            .take(COLUMN_RUNS.max(4))
            .map(|v| {
                let mut s = MetricStats::single(v * scale);
                s.iters = vec![1.0; 10];
                s.times_ns = (0..10).map(|i| v * scale + 0.01 * f64::from(i)).collect();
                s
            })
            .collect();
        MetricStats::pool(&parts).unwrap()
    };
    let (old, new) = (run_of(rounds(1.0)), run_of(rounds(1.3)));
    assert!(undecided(&new, Some(&old), 1.0).is_empty());
    let u = unresolved(&new, Some(&old), 1.0, COLUMN_RUNS);
    assert_eq!(u.len(), 1, "{u:?}");
    assert!(u[0].tier == 0 && u[0].detect_pct > 1.0, "{u:?}");
    // At a threshold it can see, it is resolved.
    assert!(unresolved(&new, Some(&old), 50.0, COLUMN_RUNS).is_empty());
}

#[test]
fn a_metric_the_other_side_measured_once_gets_a_second_run_and_no_more() {
    use crate::run::MetricStats;
    // Behind no column, so no floor of runs: only its verdict counts.
    let id = "lat_mem_rd/s128/16m";
    assert!(Metric::by_id(id).is_some());
    let mut s = MetricStats::single(100.0);
    s.iters = vec![1.0; 10];
    s.times_ns = (0..10).map(|i| 100.0 + 0.01 * f64::from(i)).collect();
    let run_of = |s: MetricStats| Run {
        machine: Default::default(),
        metrics: [(id.to_string(), s)].into(),
        origin: crate::run::Origin::Live,
        meta: crate::store::current_meta(1),
        imported: None,
    };
    let once = run_of(s.clone());
    let twice = run_of(MetricStats::pool(&[s.clone(), s.clone()]).unwrap());
    // Against a side of one run, two here: nothing more to gain.
    assert!(undecided(&twice, Some(&once), 5.0).is_empty());
    // Against a side of two, one run here is a lone run: measured again.
    let u = undecided(&once, Some(&twice), 5.0);
    assert_eq!(u.len(), 1, "{u:?}");
    assert!(u[0].single);
}

#[test]
fn a_metric_costs_its_own_time_when_its_result_was_seen() {
    let p = program_of("bw_mem/rd/4k").unwrap();
    let ids: Vec<&'static Metric> = p
        .metrics
        .iter()
        .copied()
        .filter(|m| m.id == "bw_mem/rd/4k" || m.id == "bw_mem/rd/2g")
        .collect();
    let timed = [("bw_mem/rd/2g".to_string(), Duration::from_secs(9))];
    let mut costs = Costs::default();
    costs.record(&ids, Duration::from_secs(10), &timed);
    assert_eq!(costs.of("bw_mem/rd/2g"), Duration::from_secs(9));
    // The one not seen shares the step's time out.
    assert_eq!(costs.of("bw_mem/rd/4k"), Duration::from_secs(5));
    assert_eq!(costs.of("lat_syscall/null"), Duration::from_secs(1));
}
