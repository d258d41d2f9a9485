//! A run made now: its suite, tools and date (the provenance saved with
//! it), this machine's facts and the remote peer of its remote metrics.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use anyhow::Result;
use lmbench_support::machine::Facts;

use crate::run::{Meta, MetricStats, Origin, Run};
use crate::{criterion_files, workspace};

/// The live run: Criterion's latest results and this machine's facts,
/// with the remote peer its remote metrics were measured against.
pub fn live() -> Result<Run> {
    let metrics = criterion_files::read_latest(&criterion_files::home())?;
    Ok(live_run(metrics, Facts::collect(), 1))
}

/// A run measured now of `metrics` (pooled from `rounds` rounds) on the
/// machine of `machine`, naming the remote peer of its remote metrics.
pub fn live_run(metrics: BTreeMap<String, MetricStats>, mut machine: Facts, rounds: u32) -> Run {
    name_remote_peer(&mut machine, &metrics);
    Run {
        machine,
        metrics,
        origin: Origin::Live,
        meta: current_meta(rounds),
        imported: None,
    }
}

/// Records, for a run with remote metrics, the peer they were measured
/// against (as the benches left it beside Criterion's results).
pub fn name_remote_peer(machine: &mut Facts, metrics: &BTreeMap<String, MetricStats>) {
    let remote = lmbench_support::catalog::tables::remote_metrics();
    if !metrics.keys().any(|id| remote.iter().any(|m| m.id == id)) {
        return;
    }
    let peers = criterion_files::read_remote_peers(&criterion_files::home());
    let named = if peers.is_empty() {
        "not recorded".to_string()
    } else {
        peers.join("; ")
    };
    machine.set(lmbench_support::machine::REMOTE_PEER, Some(named));
}

/// The suite, tools and time of a run made now.
pub fn current_meta(runs_pooled: u32) -> Meta {
    let root = workspace::root();
    Meta {
        suite_version: env!("CARGO_PKG_VERSION").to_string(),
        commit: git_commit(&root),
        criterion_version: criterion_version(&root),
        date: utc_now(),
        runs_pooled,
        failed: Default::default(),
    }
}

fn git_commit(root: &Path) -> Option<String> {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let head = git(&["rev-parse", "HEAD"])?;
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Some(if dirty { format!("{head}-dirty") } else { head })
}

/// Criterion's version as locked in Cargo.lock: what the benches built with.
fn criterion_version(root: &Path) -> Option<String> {
    let lock = fs::read_to_string(root.join("Cargo.lock")).ok()?;
    let mut lines = lock.lines();
    while let Some(l) = lines.next() {
        if l.trim() == "name = \"criterion\"" {
            let v = lines.next()?.trim().strip_prefix("version = ")?;
            return Some(v.trim_matches('"').to_string());
        }
    }
    None
}

/// The current time as RFC 3339 UTC to the second, as `2024-11-30T10:00:00Z`
/// (saved runs hold dates in this form); a clock set before 1970 reads as
/// 1970's first second.
pub fn utc_now() -> String {
    utc_date(jiff::Timestamp::now().max(jiff::Timestamp::UNIX_EPOCH))
}

/// `t` as RFC 3339 UTC, the seconds truncated.
fn utc_date(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_rfc3339() {
        let d = utc_now();
        assert_eq!(d.len(), 20, "{d}");
        assert!(d.starts_with("20") && d.ends_with('Z'));
        let at =
            |secs: i64, nanos: i32| utc_date(jiff::Timestamp::new(secs, nanos).expect("in range"));
        assert_eq!(at(0, 0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400, 0), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_700_000_000, 999_999_999), "2023-11-14T22:13:20Z");
        assert_eq!(at(4_102_444_799, 0), "2099-12-31T23:59:59Z");
    }
}
