//! Shared test helpers: fixture Criterion trees and running the CLI.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// Writes Criterion 0.8's files for one benchmark whose every sample took
/// `ns_per_iter` (so median = mean = min = ns_per_iter).
pub fn write_benchmark(home: &Path, id: &str, ns_per_iter: f64, bytes: Option<u64>) {
    let dir = home.join(id).join("new");
    std::fs::create_dir_all(&dir).unwrap();
    let est = |v: f64| {
        format!(
            r#"{{"confidence_interval":{{"confidence_level":0.95,"lower_bound":{v},"upper_bound":{v}}},"point_estimate":{v},"standard_error":0.0}}"#
        )
    };
    std::fs::write(
        dir.join("estimates.json"),
        format!(
            r#"{{"mean":{m},"median":{m},"median_abs_dev":{z},"slope":null,"std_dev":{z}}}"#,
            m = est(ns_per_iter),
            z = est(0.0)
        ),
    )
    .unwrap();
    let iters: Vec<String> = (1..=10).map(|i| format!("{}.0", i * 100)).collect();
    let times: Vec<String> = (1..=10)
        .map(|i| format!("{}", (i * 100) as f64 * ns_per_iter))
        .collect();
    std::fs::write(
        dir.join("sample.json"),
        format!(
            r#"{{"sampling_mode":"Linear","iters":[{}],"times":[{}]}}"#,
            iters.join(","),
            times.join(",")
        ),
    )
    .unwrap();
    let throughput = bytes
        .map(|b| format!(r#"{{"BytesDecimal":{b}}}"#))
        .unwrap_or_else(|| "null".into());
    let mut parts = id.splitn(3, '/');
    let (g, f) = (parts.next().unwrap(), parts.next().unwrap());
    std::fs::write(
        dir.join("benchmark.json"),
        format!(
            r#"{{"group_id":"{g}","function_id":"{f}","value_str":null,"throughput":{throughput},"full_id":"{id}","directory_name":"{id}","title":"{id}"}}"#
        ),
    )
    .unwrap();
}

/// Runs the `lmbench` binary with `CRITERION_HOME` set to `home`.
pub fn lmbench(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lmbench"))
        .args(args)
        .env("CRITERION_HOME", home)
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .expect("running lmbench")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts a failure with exactly one line on stderr containing `needle`,
/// and no panic.
pub fn assert_one_line_error(o: &Output, needle: &str) {
    let err = stderr(o);
    assert!(!o.status.success(), "expected failure, got success:\n{err}");
    assert!(!err.contains("panicked"), "panicked:\n{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "want one line:\n{err}");
    assert!(err.contains(needle), "want {needle:?} in:\n{err}");
}
