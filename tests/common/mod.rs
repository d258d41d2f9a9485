//! Fixtures for the CLI tests: a Criterion tree (what Criterion 0.8 leaves
//! in `target/criterion`, written with the CLI's own model of its files), a results directory, and a
//! runner for the built `lmbench` binary pointed at both by environment.
#![allow(dead_code)] // each test file uses its own subset

pub mod damage;
pub mod import;
pub mod serve;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use lmbench::criterion_files::{Benchmark, Estimate, Estimates, Files, Sample, SamplingMode};
use lmbench_support::catalog::{all_metrics, Metric};

/// The first `n` catalog metrics (tests never spell an id).
pub fn metrics(n: usize) -> Vec<&'static Metric> {
    let all: Vec<_> = all_metrics().collect();
    assert!(all.len() >= n, "the catalog has fewer than {n} metrics");
    all.into_iter().take(n).collect()
}

pub struct Env {
    pub dir: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Env {
        Env {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }
    pub fn criterion(&self) -> PathBuf {
        self.dir.path().join("criterion")
    }
    pub fn results(&self) -> PathBuf {
        self.dir.path().join("results")
    }

    /// Writes Criterion's `new` results for `metric`: ten linear samples
    /// around `ns` per iteration, with a deterministic ±`jitter` fraction.
    pub fn bench(&self, metric: &Metric, ns: f64, jitter: f64) {
        let iters: Vec<f64> = (1..=10).map(|i| (i * 100) as f64).collect();
        let per: Vec<f64> = (0..10)
            .map(|i| ns * (1.0 + jitter * (if i % 2 == 0 { 1.0 } else { -1.0 })))
            .collect();
        let times: Vec<f64> = iters.iter().zip(&per).map(|(i, p)| i * p).collect();
        let est = |v: f64| Estimate {
            standard_error: v * 0.005,
            ..Estimate::new(v, (v * 0.99, v * 1.01))
        };
        let files = Files {
            estimates: Estimates {
                mean: est(ns),
                median: est(ns),
                median_abs_dev: est(ns * jitter),
                slope: Some(est(ns)),
                std_dev: est(ns * jitter),
            },
            sample: Sample {
                sampling_mode: Some(SamplingMode::Linear),
                iters,
                times,
            },
            benchmark: Benchmark::for_id(metric.id, None),
        };
        files.write(&self.criterion(), metric.id, "new").unwrap();
    }

    /// Runs `lmbench ARGS` with this fixture's Criterion and results dirs.
    pub fn lmbench(&self, args: &[&str]) -> Output {
        self.lmbench_results(&self.results(), args)
    }

    pub fn lmbench_results(&self, results: &Path, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_lmbench"))
            .args(args)
            .env("CRITERION_HOME", self.criterion())
            .env("LMBENCH_RESULTS", results)
            .output()
            .expect("running lmbench")
    }

    /// Saves a run of the first `n` metrics at `ns` as `vm/<label>`.
    pub fn saved(&self, label: &str, n: usize, ns: f64, jitter: f64) {
        let _ = std::fs::remove_dir_all(self.criterion());
        for m in metrics(n) {
            self.bench(m, ns, jitter);
        }
        let out = self.lmbench(&["save", "--label", label, "--machine", "vm"]);
        assert!(out.status.success(), "save: {}", stderr(&out));
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts a value refused by the command line's parser: exit 2 and the
/// one `lmbench:` line every error prints, containing `needle`.
pub fn refused_by_parser(o: &Output, needle: &str) {
    assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
    fails_with(o, needle);
}

/// Asserts the promised failure: non-zero exit, one line on stderr that
/// starts with `lmbench:` and contains `needle`, no panic.
pub fn fails_with(o: &Output, needle: &str) {
    let err = stderr(o);
    assert!(!o.status.success(), "expected failure, got success: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "want one line: {err:?}");
    assert!(err.starts_with("lmbench: "), "{err:?}");
    assert!(!err.contains("panicked"), "{err:?}");
    assert!(err.contains(needle), "want {needle:?} in {err:?}");
}

/// Every file under `dir` with its bytes: compared before and after a
/// failing command to prove nothing saved changed.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap_or_default());
            }
        }
    }
    out
}

/// The test profile's binary of bench `name`, built if needed.
pub fn bench_exe(name: &str) -> PathBuf {
    let out = Command::new(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "test",
            "--no-run",
            "--quiet",
            "--message-format=json",
            "--bench",
            name,
        ])
        .output()
        .expect("cargo test --no-run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["target"]["name"] == name)
        .find_map(|v| v["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("no executable for bench {name}"))
}

/// Kills the process group this pid leads when dropped, so a failed assertion
/// leaves no bench, peer or child of a test's process running (the child
/// was spawned with `process_group(0)`).
pub struct GroupGuard(pub u32);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(self.0 as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}
