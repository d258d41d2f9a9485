//! The catalog and the benches agree both ways: every id Criterion lists
//! is a catalog metric, and every catalog metric is benchmarked. So nothing
//! is measured without a column, nor shown without a bench. A metric a
//! bench cannot measure on this machine (a size it cannot hold) counts only
//! if the bench says so (`Group::skip`).

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
