//! Saved runs: the ONLY module that reads and writes `results/`.
//!
//! Layout: `results/<machine>/<label>/` holding `run.json` (schema version,
//! suite and tool versions, per-metric statistics and raw samples in ns per
//! iteration), `machine.json` (machine facts), `SUMMARY.txt` (the rendered
//! tables) and optionally `profiles/<metric id, '/' as '__'>.folded`.
//! The results directory is `$LMBENCH_RESULTS`, else `<workspace>/results`.
//!
//! A run name (`RUN` on the command line) is `latest` (Criterion's live
//! results), a directory holding a run.json, `machine/label`, or a bare
//! label that only one machine has. [`resolve`] turns one into a [`Run`];
//! every command (summary, compare, export, restore, plot, profile) uses it.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use lmbench_support::catalog::Metric;
use lmbench_support::machine::Facts;
use serde::{Deserialize, Serialize};

use crate::atomic::{self, write_file};
use crate::results::{Imported, Meta, MetricStats, Origin, Run};
use crate::{criterion_files, workspace};

/// The newest run.json format version this build reads. It writes 1 for
/// runs of ours and 2 for imported runs (which carry `imported` and no
/// samples), so a build that predates imports refuses those instead of
/// showing an empty run.
pub const SCHEMA: u32 = 2;
const SCHEMA_MEASURED: u32 = 1;

/// Where saved runs live.
pub fn results_root() -> PathBuf {
    match std::env::var_os("LMBENCH_RESULTS") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => workspace::root().join("results"),
    }
}

/// Machine names and labels become directory names: `[A-Za-z0-9._-]`, at
/// most 64 characters, starting with a letter or digit.
pub fn check_name(what: &str, s: &str) -> Result<()> {
    let ok = !s.is_empty()
        && s.len() <= 64
        && s.as_bytes()[0].is_ascii_alphanumeric()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if !ok {
        bail!("bad {what} {s:?}: use 1-64 of [A-Za-z0-9._-], starting with a letter or digit");
    }
    Ok(())
}

/// One metric in run.json: its unit and sample count for readers without
/// the catalog, then the statistics.
#[derive(Serialize, Deserialize)]
struct SavedMetric {
    unit: String,
    samples: usize,
    #[serde(flatten)]
    stats: MetricStats,
    /// Where the noise is, for a pooled run (derived from the samples,
    /// kept for readers of the file; not read back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    noise: Option<crate::verdict::noise::Noise>,
}

/// run.json.
#[derive(Serialize, Deserialize)]
struct RunFile {
    schema: u32,
    machine: String,
    label: String,
    #[serde(flatten)]
    meta: Meta,
    metrics: BTreeMap<String, SavedMetric>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    imported: Option<Imported>,
}

/// The file name a metric's folded stacks are saved under.
pub fn profile_file_name(metric_id: &str) -> String {
    format!("{}.folded", metric_id.replace('/', "__"))
}

/// The saved folded stacks of `metric_id` in a saved run, if it has them
/// (for `lmbench profile --vs RUN`).
pub fn saved_profile(run: &Run, metric_id: &str) -> Option<PathBuf> {
    let Origin::Saved { dir, .. } = &run.origin else {
        return None;
    };
    let p = dir.join("profiles").join(profile_file_name(metric_id));
    p.is_file().then_some(p)
}

/// The live run: Criterion's latest results and this machine's facts,
/// with the remote peer its remote metrics were measured against.
pub fn live() -> Result<Run> {
    let metrics = criterion_files::read_latest(&criterion_files::home())?;
    let mut machine = Facts::collect();
    name_remote_peer(&mut machine, &metrics);
    Ok(Run {
        machine,
        metrics,
        origin: Origin::Live,
        meta: current_meta(1),
        imported: None,
    })
}

/// The machine fact naming the remote peer of a run's remote metrics.
pub const REMOTE_PEER: &str = "remote_peer";

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
    machine.set(REMOTE_PEER, Some(named));
}

/// Resolves several run names, in order. A directory that holds saved
/// runs one or two levels down (`results/`, `results/vm`) stands for all
/// of them, sorted.
pub fn resolve_all(specs: &[String]) -> Result<Vec<Run>> {
    let mut out = Vec::new();
    for spec in specs {
        let p = Path::new(spec);
        if p.is_dir() && !p.join("run.json").is_file() {
            let dirs = run_dirs_under(p)?;
            if !dirs.is_empty() {
                for d in dirs {
                    out.push(load(&d)?);
                }
                continue;
            }
        }
        out.push(resolve(spec)?);
    }
    Ok(out)
}

/// Directories with a run.json at `dir/*` or `dir/*/*`.
fn run_dirs_under(dir: &Path) -> Result<Vec<PathBuf>> {
    let subdirs = |d: &Path| -> Result<Vec<PathBuf>> {
        let mut v: Vec<PathBuf> = fs::read_dir(d)
            .with_context(|| format!("cannot read results directory {}", d.display()))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.is_dir()
                    && !p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .collect();
        v.sort();
        Ok(v)
    };
    let mut out = Vec::new();
    for d in subdirs(dir)? {
        if d.join("run.json").is_file() {
            out.push(d);
        } else {
            out.extend(
                subdirs(&d)?
                    .into_iter()
                    .filter(|e| e.join("run.json").is_file()),
            );
        }
    }
    Ok(out)
}

/// Resolves a run name (see the module doc) to its run.
pub fn resolve(spec: &str) -> Result<Run> {
    if spec == "latest" {
        return live();
    }
    let as_path = Path::new(spec);
    if as_path.join("run.json").is_file() {
        return load(as_path);
    }
    let root = results_root();
    if let Some((machine, label)) = spec.split_once('/') {
        if check_name("machine", machine).is_ok() && check_name("label", label).is_ok() {
            let dir = root.join(machine).join(label);
            if dir.join("run.json").is_file() {
                return load(&dir);
            }
        }
    }
    let saved = list(&root)?;
    if check_name("label", spec).is_ok() {
        let hits: Vec<_> = saved.iter().filter(|(_, l)| l == spec).collect();
        match hits.as_slice() {
            [(m, l)] => return load(&root.join(m).join(l)),
            [] => {}
            many => bail!(
                "run {spec:?} is ambiguous: {}; name it as machine/label",
                many.iter()
                    .map(|(m, l)| format!("{m}/{l}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
    let known = if saved.is_empty() {
        format!("no saved runs in {}", root.display())
    } else {
        let names: Vec<String> = saved.iter().map(|(m, l)| format!("{m}/{l}")).collect();
        format!("saved runs: {}", names.join(", "))
    };
    bail!("unknown run {spec:?} (RUN is `latest`, machine/label, or a directory with run.json; {known})")
}

/// Every saved run under `root` as (machine, label), sorted. A missing
/// root has none; an unreadable one is an error.
pub fn list(root: &Path) -> Result<Vec<(String, String)>> {
    if !root.exists() {
        return Ok(Vec::new());
    }
    let read = |dir: &Path| -> Result<Vec<String>> {
        let mut names = Vec::new();
        let entries = fs::read_dir(dir)
            .with_context(|| format!("cannot read results directory {}", dir.display()))?;
        for e in entries {
            let e =
                e.with_context(|| format!("cannot read results directory {}", dir.display()))?;
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.starts_with('.') && e.path().is_dir() {
                names.push(name);
            }
        }
        names.sort();
        Ok(names)
    };
    let mut out = Vec::new();
    for machine in read(root)? {
        for label in read(&root.join(&machine))? {
            if root.join(&machine).join(&label).join("run.json").is_file() {
                out.push((machine.clone(), label));
            }
        }
    }
    Ok(out)
}

/// Loads a saved run from its directory.
pub fn load(dir: &Path) -> Result<Run> {
    let run_path = dir.join("run.json");
    let text = fs::read_to_string(&run_path)
        .with_context(|| format!("cannot read {}", run_path.display()))?;
    let facts_path = dir.join("machine.json");
    let facts_text = fs::read_to_string(&facts_path)
        .with_context(|| format!("cannot read {}", facts_path.display()))?;
    parse_run(dir, &text, &facts_text)
}

/// A saved run from the texts of its `run.json` and `machine.json` (read
/// from `dir`, which errors name): what [`load`] checks, without the file
/// system. Any text gives a run or an error, never a panic.
pub fn parse_run(dir: &Path, run_json: &str, machine_json: &str) -> Result<Run> {
    let run_path = dir.join("run.json");
    let value: serde_json::Value = serde_json::from_str(run_json)
        .map_err(|e| anyhow::anyhow!("{} is corrupt or truncated ({e})", run_path.display()))?;
    match value.get("schema").and_then(|s| s.as_u64()) {
        None => bail!(
            "{} is not an lmbench-rs run (no schema version)",
            run_path.display()
        ),
        Some(v) if v > SCHEMA as u64 => bail!(
            "{} has schema version {v}, newer than this lmbench-rs reads ({SCHEMA}): update lmbench-rs",
            run_path.display()
        ),
        Some(_) => {}
    }
    let file: RunFile = serde_json::from_value(value)
        .map_err(|e| anyhow::anyhow!("{} is corrupt ({e})", run_path.display()))?;
    let facts_path = dir.join("machine.json");
    let machine: Facts = serde_json::from_str(machine_json)
        .map_err(|e| anyhow::anyhow!("{} is corrupt or truncated ({e})", facts_path.display()))?;
    for (id, m) in &file.metrics {
        if m.stats.iters.len() != m.stats.times_ns.len() || m.stats.iters.is_empty() {
            bail!(
                "{} is corrupt: {id} has no samples or mismatched iters and times",
                run_path.display()
            );
        }
    }
    Ok(Run {
        machine,
        metrics: file
            .metrics
            .into_iter()
            .map(|(id, m)| (id, m.stats))
            .collect(),
        origin: Origin::Saved {
            machine: file.machine,
            label: file.label,
            dir: dir.to_path_buf(),
        },
        meta: file.meta,
        imported: file.imported,
    })
}

/// What `save` writes besides the run itself.
pub struct SaveOptions<'a> {
    pub machine: &'a str,
    pub label: &'a str,
    pub force: bool,
    /// SUMMARY.txt, complete.
    pub summary: &'a str,
    /// (metric id, folded-stack file) to copy into profiles/.
    pub profiles: &'a [(String, PathBuf)],
}

/// How long a save waits for another save to the same machine directory.
const SAVE_LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);

/// Saves `run` as `<root>/<machine>/<label>/`, atomically (see
/// `crate::atomic`): a reader, a kill at any moment, or a full disk leaves
/// the old run or the new one, complete. Saves to one machine directory
/// take turns (a lock), so of two saves of one label the second finds it
/// taken and fails; an existing label is replaced only with `force`.
pub fn save(root: &Path, run: &Run, opts: &SaveOptions) -> Result<PathBuf> {
    check_name("machine", opts.machine)?;
    check_name("label", opts.label)?;
    let imported_cells = run.imported.as_ref().map_or(0, |i| i.cells.len());
    if run.metrics.is_empty() && imported_cells == 0 {
        bail!("nothing to save: the run has no metric results");
    }
    check_finite(run)?;
    if root.exists() && !root.is_dir() {
        bail!("results directory {} is not a directory", root.display());
    }
    let mdir = root.join(opts.machine);
    fs::create_dir_all(&mdir)
        .with_context(|| format!("cannot write results directory {}", mdir.display()))?;
    let _lock = crate::lock::Lock::acquire(
        &mdir,
        SAVE_LOCK_PATIENCE,
        &format!("another `lmbench save` to {}", mdir.display()),
    )?;
    atomic::sweep_stale(&mdir);
    atomic::crash_point();
    let dest = mdir.join(opts.label);
    if dest.exists() && !opts.force {
        bail!(
            "{} already exists: choose another label or pass --force to replace it",
            dest.display()
        );
    }
    let tmp = atomic::tmp_dir(&mdir, opts.label);
    let _ = fs::remove_dir_all(&tmp);
    if let Err(e) = write_run_dir(&tmp, run, opts) {
        let _ = fs::remove_dir_all(&tmp);
        return Err(e);
    }
    atomic::publish(&tmp, &dest, opts.force)?;
    Ok(dest)
}

/// JSON has no NaN or infinity (serde_json would write `null`, which no
/// reader takes back): a run holding one is refused before anything is
/// written, naming the metric.
fn check_finite(run: &Run) -> Result<()> {
    for (id, s) in &run.metrics {
        let figures = [
            s.median_ns,
            s.mean_ns,
            s.mean_ci_ns.0,
            s.mean_ci_ns.1,
            s.min_ns,
            s.mad_ns,
            s.std_dev_ns,
        ];
        if !figures
            .iter()
            .chain(&s.iters)
            .chain(&s.times_ns)
            .all(|v| v.is_finite())
        {
            bail!("cannot save {id}: its results hold a value that is not a finite number (re-run the bench)");
        }
    }
    Ok(())
}

/// The texts of `run.json` and `machine.json` for `run` saved as
/// `machine/label`: what [`parse_run`] reads back.
pub fn to_json(run: &Run, machine: &str, label: &str) -> Result<(Vec<u8>, Vec<u8>)> {
    let metrics = run
        .metrics
        .iter()
        .map(|(id, s)| {
            let unit = Metric::by_id(id).map_or("ns", |m| m.unit.label());
            let saved = SavedMetric {
                unit: unit.to_string(),
                samples: s.iters.len(),
                stats: s.clone(),
                noise: crate::verdict::noise::split(s),
            };
            (id.clone(), saved)
        })
        .collect();
    let file = RunFile {
        schema: if run.imported.is_some() {
            SCHEMA
        } else {
            SCHEMA_MEASURED
        },
        machine: machine.to_string(),
        label: label.to_string(),
        meta: run.meta.clone(),
        metrics,
        imported: run.imported.clone(),
    };
    Ok((
        to_metric_lines(&file)?,
        serde_json::to_vec_pretty(&run.machine)?,
    ))
}

/// run.json's layout: one line per top-level field and per metric (its
/// statistics and samples compact on that line), so a diff of two saves
/// shows which metrics changed and the file stays small. Readers see plain
/// JSON: files written pretty by older versions load the same.
struct MetricLines {
    depth: usize,
    has_value: bool,
}

impl MetricLines {
    /// Objects this deep or shallower get one line per key: the file and
    /// its `metrics` (and `imported.cells`) maps.
    const LINE_DEPTH: usize = 2;

    fn newline<W: ?Sized + std::io::Write>(w: &mut W, depth: usize) -> std::io::Result<()> {
        w.write_all(b"\n")?;
        for _ in 0..depth {
            w.write_all(b"  ")?;
        }
        Ok(())
    }
}

impl serde_json::ser::Formatter for MetricLines {
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        let depth = self.depth;
        self.depth -= 1;
        if self.has_value && depth <= Self::LINE_DEPTH {
            Self::newline(w, self.depth)?;
        }
        w.write_all(b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        if self.depth <= Self::LINE_DEPTH {
            Self::newline(w, self.depth)?;
        }
        Ok(())
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(if self.depth <= Self::LINE_DEPTH {
            b": "
        } else {
            b":"
        })
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// `value` as JSON in run.json's layout ([`MetricLines`]), ending in a newline.
fn to_metric_lines<T: Serialize>(value: &T) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let fmt = MetricLines {
        depth: 0,
        has_value: false,
    };
    value.serialize(&mut serde_json::Serializer::with_formatter(&mut out, fmt))?;
    out.push(b'\n');
    Ok(out)
}

fn write_run_dir(tmp: &Path, run: &Run, opts: &SaveOptions) -> Result<()> {
    fs::create_dir(tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
    atomic::crash_point();
    let (run_json, machine_json) = to_json(run, opts.machine, opts.label)?;
    write_file(&tmp.join("run.json"), &run_json)?;
    write_file(&tmp.join("machine.json"), &machine_json)?;
    write_file(&tmp.join("SUMMARY.txt"), opts.summary.as_bytes())?;
    if !opts.profiles.is_empty() {
        let pdir = tmp.join("profiles");
        fs::create_dir(&pdir).with_context(|| format!("cannot write {}", pdir.display()))?;
        for (id, src) in opts.profiles {
            let bytes =
                fs::read(src).with_context(|| format!("cannot read profile {}", src.display()))?;
            write_file(&pdir.join(profile_file_name(id)), &bytes)?;
        }
    }
    Ok(())
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
    fn names_are_restricted() {
        for ok in ["vm", "before-6.8", "a_1", "X.Y"] {
            assert!(check_name("label", ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            ".",
            "..",
            "a/b",
            "-x",
            "a b",
            ".hidden",
            &"x".repeat(65),
        ] {
            assert!(check_name("label", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn run_json_has_one_line_per_metric() {
        let mut metrics = BTreeMap::new();
        for (id, ns) in [("lat_syscall/null", 100.0), ("lat_syscall/read", 150.0)] {
            metrics.insert(id.to_string(), MetricStats::single(ns));
        }
        let run = Run {
            machine: Facts::default(),
            metrics,
            origin: Origin::Live,
            meta: current_meta(1),
            imported: None,
        };
        let (text, facts) = to_json(&run, "vm", "a").unwrap();
        let text = String::from_utf8(text).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "{");
        assert_eq!(lines[1], "  \"schema\": 1,");
        let metric_lines: Vec<&&str> = lines
            .iter()
            .filter(|l| l.starts_with("    \"lat_syscall/"))
            .collect();
        assert_eq!(metric_lines.len(), 2, "{text}");
        assert!(metric_lines[0].ends_with("},"), "{text}");
        assert_eq!(lines[lines.len() - 2], "  }");
        assert_eq!(lines[lines.len() - 1], "}");
        let back = parse_run(Path::new("/x"), &text, &String::from_utf8(facts).unwrap()).unwrap();
        assert_eq!(back.metrics, run.metrics);
    }

    #[test]
    fn profile_names_flatten_ids() {
        assert_eq!(
            profile_file_name("lat_fs/create/10k"),
            "lat_fs__create__10k.folded"
        );
    }

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
