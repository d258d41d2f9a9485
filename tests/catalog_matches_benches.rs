//! The catalog and the benches agree both ways: every id Criterion lists
//! is a catalog metric, and every catalog metric is benchmarked. So nothing
//! is measured without a column, nor shown without a bench. A metric a
//! bench cannot measure on this machine (a size it cannot hold) counts only
//! if the bench says so (`Group::skip`).

mod common;

use std::collections::BTreeSet;
use std::process::Command;

use lmbench_support::catalog::all_metrics;
use lmbench_support::harness::SKIPPED;

#[test]
fn criterion_lists_exactly_the_catalog() {
    // `cargo test --benches -- --list` runs each bench binary in Criterion's
    // list mode; under `cargo test --all-targets` they are already built.
    let out = Command::new(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["test", "--quiet", "--benches", "--", "--list"])
        .output()
        .expect("running cargo test --benches -- --list");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "listing benches failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: BTreeSet<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_suffix(": benchmark"))
        .collect();
    // A bench may skip a metric on this machine (a size it cannot hold),
    // but must say so: `Group::skip` prints the id on stderr.
    let stderr = String::from_utf8_lossy(&out.stderr);
    let skipped: BTreeSet<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix(SKIPPED)?.split(':').next())
        .collect();
    let catalog: BTreeSet<&str> = all_metrics().map(|m| m.id).collect();
    let unlisted: Vec<_> = catalog
        .iter()
        .filter(|id| !listed.contains(*id) && !skipped.contains(*id))
        .collect();
    let uncataloged: Vec<_> = listed.difference(&catalog).collect();
    assert!(
        unlisted.is_empty() && uncataloged.is_empty(),
        "catalog metrics without a bench: {unlisted:?}\nbenches not in the catalog: {uncataloged:?}"
    );
}

/// `run --budget` re-measures undecided metrics alone (an exact filter).
/// tlb places its finer counts by bisecting between the powers of two, so
/// asked for a finer count without the powers it once measured nothing,
/// and a last round that asked only for such points ended a 15-minute run
/// with an error. Asked for alone, they are measured.
#[test]
fn a_bisected_point_is_measured_when_asked_for_alone() {
    use lmbench_support::catalog::tlb::{counts, function, point};
    let finer: Vec<u64> = counts()
        .into_iter()
        .filter(|n| !n.is_power_of_two())
        .take(2)
        .collect();
    let asked = [
        point(function::PAGES, finer[0]).unwrap().id,
        point(function::LINES, finer[1]).unwrap().id,
    ];
    let criterion = tempfile::tempdir().unwrap();
    // Criterion's test mode (no --bench): each selected benchmark once.
    let out = Command::new(common::bench_exe("tlb"))
        .arg(format!("^({}|{})$", asked[0], asked[1]))
        .env("CRITERION_HOME", criterion.path())
        .output()
        .expect("running the tlb bench");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "tlb failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tested: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("Testing "))
        .collect();
    assert_eq!(tested, asked, "measured instead:\n{stdout}");
}
