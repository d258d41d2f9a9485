//! The ONLY module that knows Criterion's on-disk format.
//!
//! Criterion 0.8 writes, per benchmark, `<home>/<group>/<function>[/<param>]/new/`
//! holding `estimates.json` (mean, median, median_abs_dev, std_dev, slope:
//! each `{confidence_interval: {confidence_level, lower_bound, upper_bound},
//! point_estimate, standard_error}` in ns per iteration), `sample.json`
//! (`{sampling_mode, iters: [f64], times: [f64 ns]}`) and `benchmark.json`
//! (ids and `throughput`, e.g. `{"BytesDecimal": N}`). `<home>` is
//! `$CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`, else
//! `target/criterion` of the workspace — the order Criterion itself uses.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use lmbench_support::catalog::all_metrics;
use serde::Deserialize;

use crate::run::MetricStats;

/// Where Criterion keeps its results for this workspace.
pub fn home() -> PathBuf {
    if let Some(h) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(h);
    }
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(t).join("criterion");
    }
    crate::workspace::root().join("target").join("criterion")
}

#[derive(Deserialize)]
struct Interval {
    lower_bound: f64,
    upper_bound: f64,
}

#[derive(Deserialize)]
struct Estimate {
    confidence_interval: Interval,
    point_estimate: f64,
}

#[derive(Deserialize)]
struct Estimates {
    mean: Estimate,
    median: Estimate,
    median_abs_dev: Estimate,
    std_dev: Estimate,
}

#[derive(Deserialize)]
struct Sample {
    iters: Vec<f64>,
    times: Vec<f64>,
}

#[derive(Deserialize)]
struct Benchmark {
    throughput: Option<Throughput>,
}

#[derive(Deserialize)]
enum Throughput {
    BytesDecimal(u64),
    Bytes(u64),
    Elements(serde::de::IgnoredAny),
    #[serde(other)]
    Other,
}

fn load<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not valid Criterion output (delete it or re-run the bench)",
            path.display()
        )
    })
}

/// Reads one benchmark's latest (`new`) results; `None` if it never ran.
pub fn read_benchmark(home: &Path, id: &str) -> Result<Option<MetricStats>> {
    let dir = home.join(id).join("new");
    if !dir.join("estimates.json").exists() {
        return Ok(None);
    }
    let est: Estimates = load(&dir.join("estimates.json"))?;
    let sample: Sample = load(&dir.join("sample.json"))?;
    let bench: Benchmark = load(&dir.join("benchmark.json"))?;
    if sample.iters.len() != sample.times.len() || sample.iters.is_empty() {
        bail!(
            "{}: iters and times differ in length or are empty",
            dir.join("sample.json").display()
        );
    }
    let min_ns = sample
        .iters
        .iter()
        .zip(&sample.times)
        .map(|(i, t)| t / i)
        .fold(f64::INFINITY, f64::min);
    let bytes_per_iter = match bench.throughput {
        Some(Throughput::BytesDecimal(b)) | Some(Throughput::Bytes(b)) => Some(b),
        _ => None,
    };
    Ok(Some(MetricStats {
        median_ns: est.median.point_estimate,
        mean_ns: est.mean.point_estimate,
        mean_ci_ns: (
            est.mean.confidence_interval.lower_bound,
            est.mean.confidence_interval.upper_bound,
        ),
        min_ns,
        mad_ns: est.median_abs_dev.point_estimate,
        std_dev_ns: est.std_dev.point_estimate,
        iters: sample.iters,
        times_ns: sample.times,
        bytes_per_iter,
    }))
}

/// Reads the latest results of every catalog metric that has any.
pub fn read_latest(home: &Path) -> Result<BTreeMap<String, MetricStats>> {
    if !home.is_dir() {
        bail!(
            "no Criterion results at {}: run `lmbench run` (or `cargo bench`) first",
            home.display()
        );
    }
    let mut out = BTreeMap::new();
    for m in all_metrics() {
        if let Some(stats) = read_benchmark(home, m.id)? {
            out.insert(m.id.to_string(), stats);
        }
    }
    if out.is_empty() {
        bail!(
            "{} holds no results of lmbench-rs metrics: run `lmbench run` first",
            home.display()
        );
    }
    Ok(out)
}
