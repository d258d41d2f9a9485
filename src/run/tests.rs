use super::*;

fn stats(iters: &[f64], times: &[f64]) -> MetricStats {
    MetricStats {
        median_ns: 0.0,
        mean_ns: 0.0,
        mean_ci_ns: (0.0, 0.0),
        min_ns: 0.0,
        mad_ns: 0.0,
        std_dev_ns: 0.0,
        iters: iters.to_vec(),
        times_ns: times.to_vec(),
        bytes_per_iter: Some(8),
        round_sizes: vec![],
        activity: vec![],
        clock_ns: vec![],
    }
}

#[test]
fn cycles_keep_the_samples_run_at_one_clock_run_by_run() {
    // Two runs of two samples, 10 ns an iteration at 0.25 ns a cycle
    // (40 cycles), but the second run's second sample saw the clock
    // change inside it; the other part has no probes.
    let mut a = stats(&[1.0, 1.0], &[10.0, 10.0]);
    a.clock_ns = vec![[0.25, 0.25], [0.25, 0.25]];
    let mut b = stats(&[2.0, 1.0], &[22.0, 10.0]);
    b.clock_ns = vec![[0.275, 0.275], [0.245, 0.272]];
    let p = MetricStats::pool(&[a.clone(), b.clone()]).unwrap();
    let c = p.reps_in_cycles().unwrap();
    assert_eq!(c.len(), 2);
    assert_eq!(c[0], vec![40.0, 40.0]);
    assert_eq!(c[1].len(), 1);
    assert!((c[1][0] - 40.0).abs() < 1e-9);
    assert_eq!(p.steady_cycles_ns().len(), 3);
    let bare = stats(&[1.0], &[10.0]);
    let mixed = MetricStats::pool(&[a, bare.clone()]).unwrap();
    assert_eq!(mixed.clock_ns.len(), 3);
    assert_eq!(mixed.reps_in_cycles().unwrap()[1], Vec::<f64>::new());
    assert!(bare.reps_in_cycles().is_none());
    // A sample longer than the clock holds still counts in time only.
    let mut long = stats(&[1.0], &[1e9]);
    long.clock_ns = vec![[0.25, 0.25]];
    assert_eq!(long.reps_in_cycles().unwrap(), vec![Vec::<f64>::new()]);
}

#[test]
fn probed_cycles_keep_every_probed_sample_over_its_probes_mean() {
    // A 1-s sample whose clock moved inside it, and one without probes.
    let mut long = stats(&[1.0, 1.0], &[1e9, 1e9]);
    long.clock_ns = vec![[0.24, 0.26], [0.0, 0.0]];
    assert_eq!(long.reps_in_cycles().unwrap(), vec![Vec::<f64>::new()]);
    assert_eq!(long.reps_in_probed_cycles().unwrap(), vec![vec![4e9]]);
    assert_eq!(long.probed_cycles_ns(), vec![0.25]);
    assert!(long.steady_cycles_ns().is_empty());
}

#[test]
fn pooling_uses_every_sample() {
    let a = stats(&[1.0, 2.0], &[10.0, 40.0]); // 10, 20 ns/iter
    let b = stats(&[1.0], &[30.0]); // 30 ns/iter
    let p = MetricStats::pool(&[a, b]).unwrap();
    assert_eq!(p.iters.len(), 3);
    assert_eq!(p.mean_ns, 20.0);
    assert_eq!(p.median_ns, 20.0);
    assert_eq!(p.min_ns, 10.0);
    assert_eq!(p.std_dev_ns, 10.0);
    assert!(p.mean_ci_ns.0 < 20.0 && p.mean_ci_ns.1 > 20.0);
    assert_eq!(p.bytes_per_iter, Some(8));
    assert_eq!(p.round_sizes, vec![2, 1]);
    assert_eq!(p.rounds(), vec![vec![10.0, 20.0], vec![30.0]]);
    assert!(MetricStats::pool(&[]).is_none());
}
