//! The Criterion results reader (`lmbench::criterion_files::parse_benchmark`):
//! the texts of one benchmark's `estimates.json`, `sample.json` and
//! `benchmark.json`, separated by NUL bytes, as a killed bench, another
//! Criterion version or a full disk may leave them.
//!
//! Checked beyond "no panic": statistics that read are usable: `lmbench
//! save` writes them into a run.json that loads back to the same figures,
//! and summary and compare can compute with them.
#![no_main]

use std::collections::BTreeMap;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use lmbench::run::{Meta, Origin, Run};
use lmbench::{criterion_files, stats, store};
use lmbench_support::catalog::{all_metrics, Lookup};
use lmbench_support::machine::Facts;

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |&b| b == 0);
    let mut next = || String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let (estimates, sample, benchmark) = (next(), next(), next());
    let dir = Path::new("/fuzz/criterion/x/new");
    let Ok(stats) = criterion_files::parse_benchmark(dir, &estimates, &sample, &benchmark) else {
        return;
    };
    let x = stats.per_iter_ns();
    let _ = stats::welch(&x, &x);
    let _ = stats::median(&x);
    let metric = all_metrics().next().unwrap();
    let run = Run {
        machine: Facts::default(),
        metrics: BTreeMap::from([(metric.id.to_string(), stats)]),
        origin: Origin::Live,
        meta: Meta {
            suite_version: "0".into(),
            commit: None,
            criterion_version: None,
            date: "2000-01-01T00:00:00Z".into(),
            runs_pooled: 1,
            failed: BTreeMap::new(),
        },
        imported: None,
    };
    let _ = run.value(metric);
    let (r, m) = store::to_json(&run, "vm", "x").expect("statistics serialise");
    let back = store::parse_run(
        Path::new("/fuzz/vm/x"),
        std::str::from_utf8(&r).unwrap(),
        std::str::from_utf8(&m).unwrap(),
    )
    .expect("what save writes from these statistics loads again");
    assert_eq!(back.metrics, run.metrics);
});
