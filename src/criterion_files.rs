//! The ONLY module that knows Criterion's on-disk format: its three files
//! as serde types ([`Estimates`], [`Sample`], [`Benchmark`]; [`Files`] for
//! the three), read here for the live results and written here for
//! `restore` (a baseline Criterion and critcmp read), `export` and the test
//! fixtures.
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
use lmbench_support::activity::Activity;
use lmbench_support::atomic_file::write_atomic;
use lmbench_support::catalog::all_metrics;
use serde::{Deserialize, Serialize};

use crate::run::MetricStats;

/// Where Criterion keeps its results for this workspace
/// ([`lmbench_support::target_dir::criterion_home`], `target/` of the
/// workspace without `$CARGO_TARGET_DIR`).
pub fn home() -> PathBuf {
    lmbench_support::target_dir::criterion_home(crate::workspace::default_target_dir)
}

/// An estimate's confidence interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfidenceInterval {
    #[serde(default = "ninety_five")]
    pub confidence_level: f64,
    pub lower_bound: f64,
    pub upper_bound: f64,
}

fn ninety_five() -> f64 {
    0.95
}

/// One estimate of `estimates.json`, in ns per iteration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub confidence_interval: ConfidenceInterval,
    pub point_estimate: f64,
    #[serde(default)]
    pub standard_error: f64,
}

impl Estimate {
    /// `point` with its 95% interval (`lo`, `hi`); the standard error is
    /// the one a normal interval of that width implies.
    pub fn new(point: f64, (lo, hi): (f64, f64)) -> Estimate {
        Estimate {
            confidence_interval: ConfidenceInterval {
                confidence_level: 0.95,
                lower_bound: lo,
                upper_bound: hi,
            },
            point_estimate: point,
            standard_error: (hi - lo) / (2.0 * 1.96),
        }
    }

    /// `point` with a zero-width interval: a figure a saved run keeps
    /// without one.
    pub fn point(point: f64) -> Estimate {
        Estimate::new(point, (point, point))
    }
}

/// `estimates.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Estimates {
    pub mean: Estimate,
    pub median: Estimate,
    pub median_abs_dev: Estimate,
    /// Criterion's regression slope (linear sampling only).
    #[serde(default)]
    pub slope: Option<Estimate>,
    pub std_dev: Estimate,
}

impl Estimates {
    /// A saved metric's estimates: only the mean carries a confidence
    /// interval; the others get a zero-width one, and there is no slope.
    pub fn of(s: &MetricStats) -> Estimates {
        Estimates {
            mean: Estimate::new(s.mean_ns, s.mean_ci_ns),
            median: Estimate::point(s.median_ns),
            median_abs_dev: Estimate::point(s.mad_ns),
            slope: None,
            std_dev: Estimate::point(s.std_dev_ns),
        }
    }
}

/// How Criterion chose the iteration counts of the samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SamplingMode {
    /// Counts grow linearly: 1d, 2d, 3d...
    Linear,
    /// Every sample runs the same count (slow benchmarks).
    Flat,
}

/// `sample.json`: each sample's iteration count and total time (ns).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    #[serde(default)]
    pub sampling_mode: Option<SamplingMode>,
    pub iters: Vec<f64>,
    pub times: Vec<f64>,
}

impl Sample {
    /// A saved metric's samples; flat sampling is recognised by equal
    /// iteration counts.
    pub fn of(s: &MetricStats) -> Sample {
        let flat = s.iters.windows(2).all(|w| w[0] == w[1]);
        Sample {
            sampling_mode: Some(if flat {
                SamplingMode::Flat
            } else {
                SamplingMode::Linear
            }),
            iters: s.iters.clone(),
            times: s.times_ns.clone(),
        }
    }
}

/// `benchmark.json`: the benchmark's ids and throughput. Only the
/// throughput is read; the ids are written for Criterion and critcmp.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Benchmark {
    #[serde(default)]
    pub group_id: String,
    #[serde(default)]
    pub function_id: Option<String>,
    #[serde(default)]
    pub value_str: Option<String>,
    #[serde(default)]
    pub throughput: Option<Throughput>,
    #[serde(default)]
    pub full_id: String,
    #[serde(default)]
    pub directory_name: String,
    #[serde(default)]
    pub title: String,
}

impl Benchmark {
    /// The file for catalog id `group/function[/param]`; bandwidths move
    /// `bytes_per_iter` (decimal MB, as the benches declare).
    pub fn for_id(id: &str, bytes_per_iter: Option<u64>) -> Benchmark {
        let mut parts = id.splitn(3, '/');
        let group = parts.next().unwrap_or(id);
        Benchmark {
            group_id: group.to_string(),
            function_id: parts.next().map(str::to_string),
            value_str: parts.next().map(str::to_string),
            throughput: bytes_per_iter.map(Throughput::BytesDecimal),
            full_id: id.to_string(),
            directory_name: id.to_string(),
            title: id.to_string(),
        }
    }

    /// Bytes one iteration moves, for a byte throughput.
    pub fn bytes_per_iter(&self) -> Option<u64> {
        match self.throughput {
            Some(Throughput::BytesDecimal(b)) | Some(Throughput::Bytes(b)) => Some(b),
            _ => None,
        }
    }
}

/// Criterion's throughput of one iteration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Throughput {
    Bytes(u64),
    BytesDecimal(u64),
    Elements(u64),
    /// Kinds the summary has no use for (bits, elements and bytes).
    #[serde(other)]
    Other,
}

/// The three files of one benchmark's results directory.
#[derive(Debug, Clone, PartialEq)]
pub struct Files {
    pub estimates: Estimates,
    pub sample: Sample,
    pub benchmark: Benchmark,
}

impl Files {
    /// A saved metric's statistics as Criterion's files.
    pub fn of(id: &str, s: &MetricStats) -> Files {
        Files {
            estimates: Estimates::of(s),
            sample: Sample::of(s),
            benchmark: Benchmark::for_id(id, s.bytes_per_iter),
        }
    }

    /// Writes them into `<home>/<id>/<name>/` (`name` is `new` for
    /// Criterion's latest results, else a baseline), each atomically.
    pub fn write(&self, home: &Path, id: &str, name: &str) -> Result<()> {
        let dir = home.join(id).join(name);
        let write = |file: &str, text: String| -> Result<()> {
            Ok(write_atomic(&dir.join(file), text.as_bytes())?)
        };
        write("sample.json", serde_json::to_string(&self.sample)?)?;
        write("estimates.json", serde_json::to_string(&self.estimates)?)?;
        write("benchmark.json", serde_json::to_string(&self.benchmark)?)
    }
}

fn parse<T: for<'de> Deserialize<'de>>(path: &Path, text: &str) -> Result<T> {
    serde_json::from_str(text).with_context(|| {
        format!(
            "{} is not valid Criterion output (delete it or re-run the bench)",
            path.display()
        )
    })
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

/// Reads one benchmark's latest (`new`) results; `None` if it never ran.
/// True when Criterion wrote benchmark `id`'s results at or after `since`
/// (its `new/sample.json`, the file every measurement rewrites). A metric
/// a bench skipped or a filter left out keeps its old directory, which a
/// run must not take for its own.
pub fn written_since(home: &Path, id: &str, since: std::time::SystemTime) -> bool {
    std::fs::metadata(home.join(id).join("new").join("sample.json"))
        .and_then(|m| m.modified())
        .is_ok_and(|t| t >= since)
}

pub fn read_benchmark(home: &Path, id: &str) -> Result<Option<MetricStats>> {
    let dir = home.join(id).join("new");
    if !dir.join("estimates.json").exists() {
        return Ok(None);
    }
    let estimates = read(&dir.join("estimates.json"))?;
    let sample = read(&dir.join("sample.json"))?;
    let benchmark = read(&dir.join("benchmark.json"))?;
    let mut stats = parse_benchmark(&dir, &estimates, &sample, &benchmark)?;
    stats.activity = read_activity(&home.join(id), &dir.join("estimates.json"))
        .into_iter()
        .collect();
    if let Some(a) = stats.activity.first_mut() {
        stats.clock_ns = sample_clocks(&stats.times_ns, &std::mem::take(&mut a.clock));
    }
    // A damaged record of the harness's is treated as absent: it never
    // costs the figures.
    if stats.defect().is_some() {
        stats.activity.clear();
        stats.clock_ns.clear();
    }
    Ok(Some(stats))
}

/// The clock probes of each sample (`[before, after]` ns a cycle), found
/// among the harness's calls by the time the call returned, which
/// Criterion stores unchanged as the sample's time; the measurement calls
/// come last, so equal times are matched latest first. Empty when any
/// sample has no call: probes the run cannot place are not guessed.
pub fn sample_clocks(
    times_ns: &[f64],
    calls: &[lmbench_support::clock::CallClock],
) -> Vec<[f64; 2]> {
    let mut by_time: BTreeMap<u64, Vec<[f64; 2]>> = BTreeMap::new();
    for [took, before, after] in calls {
        by_time
            .entry(took.to_bits())
            .or_default()
            .push([*before, *after]);
    }
    let mut out = vec![[0.0; 2]; times_ns.len()];
    for (slot, t) in out.iter_mut().zip(times_ns).rev() {
        match by_time.get_mut(&t.to_bits()).and_then(Vec::pop) {
            Some(c) => *slot = c,
            None => return Vec::new(),
        }
    }
    out
}

/// One benchmark's statistics from the texts of its `estimates.json`,
/// `sample.json` and `benchmark.json` (read from `dir`, which errors name).
/// Any text gives statistics or an error, never a panic.
pub fn parse_benchmark(
    dir: &Path,
    estimates: &str,
    sample: &str,
    benchmark: &str,
) -> Result<MetricStats> {
    let est: Estimates = parse(&dir.join("estimates.json"), estimates)?;
    let sample: Sample = parse(&dir.join("sample.json"), sample)?;
    let bench: Benchmark = parse(&dir.join("benchmark.json"), benchmark)?;
    let min_ns = sample
        .iters
        .iter()
        .zip(&sample.times)
        .map(|(i, t)| t / i)
        .fold(f64::INFINITY, f64::min);
    let bytes_per_iter = bench.bytes_per_iter();
    let stats = MetricStats {
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
        round_sizes: Vec::new(),
        activity: Vec::new(),
        clock_ns: Vec::new(),
    };
    // Criterion writes positive counts and times and finite estimates;
    // anything else (a hand edit, another tool) is refused here, once.
    if let Some(d) = stats.defect() {
        bail!(
            "{} is corrupt: {} has {d} (delete it or re-run the bench)",
            dir.display(),
            if bench.full_id.is_empty() {
                "the benchmark"
            } else {
                &bench.full_id
            }
        );
    }
    Ok(stats)
}

/// What else the machine did while the benchmark ran, as the harness
/// recorded it beside Criterion's results (`lmbench-activity.json`); only
/// if it is not older than the estimates (else it belongs to an earlier
/// run). An unreadable record is treated as absent: it never costs the
/// figures.
fn read_activity(bench_dir: &Path, estimates: &Path) -> Option<Activity> {
    let path = bench_dir.join(lmbench_support::activity::ACTIVITY_FILE);
    let modified = |p: &Path| p.metadata().and_then(|m| m.modified()).ok();
    if modified(&path)? < modified(estimates)? {
        return None;
    }
    serde_json::from_str(&std::fs::read_to_string(&path).ok()?).ok()
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

/// The file `lmbench run` leaves in each program's group directory, naming
/// the suite version that produced its results, so `save` can refuse a mix
/// of results from two versions. (Criterion itself records no version.)
const STAMP: &str = "lmbench-suite.json";

/// Records that `program`'s results in `home` come from this suite version.
pub fn write_stamp(home: &Path, program: &str) -> Result<()> {
    let dir = home.join(program);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let body = serde_json::json!({ "suite_version": env!("CARGO_PKG_VERSION") });
    Ok(write_atomic(&dir.join(STAMP), body.to_string().as_bytes())?)
}

/// The suite version that produced each program's results, where
/// `lmbench run` recorded one (plain `cargo bench` records none).
pub fn read_stamps(home: &Path, programs: &[&str]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for p in programs {
        let v: Option<serde_json::Value> = std::fs::read_to_string(home.join(p).join(STAMP))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        if let Some(ver) = v.as_ref().and_then(|v| v["suite_version"].as_str()) {
            out.insert(p.to_string(), ver.to_string());
        }
    }
    out
}

/// The remote peers the programs' remote metrics were measured against,
/// as the benches recorded them (`remote::PEER_FILE` in each program's
/// directory), distinct, in program order: the machine fact `remote_peer`.
pub fn read_remote_peers(home: &Path) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in lmbench_support::catalog::PROGRAMS {
        let path = home.join(p.name).join(lmbench_support::remote::PEER_FILE);
        let peer: Option<lmbench_support::remote::client::PeerInfo> =
            std::fs::read_to_string(&path)
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok());
        if let Some(s) = peer.map(|p| p.to_string()) {
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    out
}

/// The folded stacks `lmbench profile` left for each of `ids`, at
/// `<home>/<id>/profile/*.folded` (the newest file if there are several).
pub fn folded_profiles(home: &Path, ids: &[&str]) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for id in ids {
        let Ok(entries) = std::fs::read_dir(home.join(id).join("profile")) else {
            continue;
        };
        let newest = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "folded") && p.is_file())
            .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok());
        if let Some(p) = newest {
            out.push((id.to_string(), p));
        }
    }
    out
}

/// Writes one metric's saved statistics as Criterion baseline `name`
/// (`<home>/<id>/<name>/`): `sample.json` and `estimates.json`, which
/// `--baseline` reads, and `benchmark.json`, which critcmp reads.
pub fn write_baseline(home: &Path, id: &str, name: &str, s: &MetricStats) -> Result<()> {
    Files::of(id, s).write(home, id, name)
}

#[cfg(test)]
mod tests;
