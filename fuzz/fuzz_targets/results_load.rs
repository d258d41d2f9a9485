//! The saved-run loader (`lmbench_lib::store::parse_run`): the texts of a
//! `run.json` and a `machine.json`, separated by a NUL byte (JSON holds
//! none), as a user's results directory may hold them: hand-edited,
//! truncated, from another version.
//!
//! Checked beyond "no panic": a run that loads also goes through what the
//! commands do with it (every summary table, Welch's test of each metric
//! against itself, pooling), and saves to texts that load back to the same
//! run (a saved run must never become unreadable).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use lmbench::run::{MetricStats, Run};
use lmbench::{cells, stats, store, table};
use lmbench_support::catalog::TABLES;

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(2, |&b| b == 0);
    let run_json = String::from_utf8_lossy(parts.next().unwrap_or_default());
    let machine_json = String::from_utf8_lossy(parts.next().unwrap_or_default());
    let dir = Path::new("/fuzz/vm/label");
    let Ok(run) = store::parse_run(dir, &run_json, &machine_json) else {
        return;
    };
    use_run(&run);
    let (machine, label) = ("vm", "label");
    let (r, m) = store::to_json(&run, machine, label).expect("a loaded run serialises");
    let again = store::parse_run(
        dir,
        std::str::from_utf8(&r).unwrap(),
        std::str::from_utf8(&m).unwrap(),
    )
    .expect("a loaded run, saved, loads again");
    assert_eq!(run.metrics, again.metrics);
    assert_eq!(run.meta, again.meta);
});

/// What summary, compare and `--runs` do with a run's figures.
fn use_run(run: &Run) {
    let runs = std::slice::from_ref(run);
    for t in TABLES {
        for spread in [None, Some(cells::Spread::Iqr), Some(cells::Spread::Ci)] {
            let g = cells::grid(t, runs, 0.05, spread);
            let _ = table::model(t, runs, &g, spread.is_some());
        }
    }
    for s in run.metrics.values() {
        let x = s.per_iter_ns();
        let _ = stats::welch(&x, &x);
        let _ = stats::mad(&x);
        let _ = s.rounds();
        let _ = MetricStats::pool(&[s.clone(), s.clone()]);
    }
    // compare's verdicts on the run against itself: no panic on any input.
    let opts = lmbench::verdict::Options {
        threshold_pct: 5.0,
        busy_cpus: 0.05,
        filter: None,
        sittings: None,
    };
    let c = lmbench::verdict::compare(run, run, &opts);
    // And with that comparison read as an A/A pair's moves between sittings.
    let moves = lmbench::verdict::sittings::Sittings::from_aa(
        &[(&c, ["a".into(), "b".into()])],
        Some(1 << 20),
    );
    let _ = lmbench::verdict::compare(
        run,
        run,
        &lmbench::verdict::Options {
            sittings: Some(&moves),
            ..opts
        },
    );
}
