//! Golden files for what users read: `lmbench summary` in its four formats
//! and with `--spread` and `--floors`, and `lmbench compare` as text,
//! markdown and CSV (its JSON is read by jq instead), rendered from the
//! two small runs committed under `tests/fixtures/runs/` and compared byte
//! for byte with the files in `tests/fixtures/golden/`. A layout change is
//! thus a reviewed diff: after an intended change, rewrite the expected
//! files with
//!
//! ```text
//! UPDATE_GOLDEN=1 cargo test --test golden
//! ```
//!
//! and read the diff before committing it. Also here: every example run
//! under `results/` (the baselines users compare with and the runs the
//! README shows) loads and renders its summary.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::stderr;

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `lmbench ARGS` over the saved runs in `results` (and no live results).
fn lmbench(results: &Path, args: &[&str]) -> Output {
    let none = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_lmbench"))
        .args(args)
        .env("LMBENCH_RESULTS", results)
        .env("CRITERION_HOME", none.path().join("criterion"))
        .output()
        .expect("running lmbench")
}

/// Renders `args` over the fixture runs and compares stdout with
/// `tests/fixtures/golden/<name>` (or rewrites it under UPDATE_GOLDEN=1).
fn golden(name: &str, args: &[&str]) {
    let out = lmbench(&manifest().join("tests/fixtures/runs"), args);
    assert!(out.status.success(), "lmbench {args:?}: {}", stderr(&out));
    let path = manifest().join("tests/fixtures/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| !v.is_empty()) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &out.stdout).unwrap();
        return;
    }
    let want = std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (create it with UPDATE_GOLDEN=1 cargo test --test golden)",
            path.display()
        )
    });
    if out.stdout != want {
        let got = String::from_utf8_lossy(&out.stdout);
        let want = String::from_utf8_lossy(&want);
        let first = got
            .lines()
            .zip(want.lines())
            .position(|(g, w)| g != w)
            .unwrap_or_else(|| got.lines().count().min(want.lines().count()));
        panic!(
            "`lmbench {}` differs from {} at line {}:\n  got:  {:?}\n  want: {:?}\n\
             If the change is intended: UPDATE_GOLDEN=1 cargo test --test golden, and review the diff.",
            args.join(" "),
            path.display(),
            first + 1,
            got.lines().nth(first).unwrap_or("(end)"),
            want.lines().nth(first).unwrap_or("(end)"),
        );
    }
}

const RUNS: [&str; 2] = ["vm/old", "vm/new"];

/// `lmbench compare A B --format json | jq`: the JSON a script reads is
/// whole and valid to jq itself (not only to our own parser), and holds a
/// row per compared metric. Without jq the test says so and passes, unless
/// `CI` is set (`.ci/run` installs jq).
#[test]
fn compare_json_reads_in_jq() {
    use std::io::Write;
    let out = lmbench(
        &manifest().join("tests/fixtures/runs"),
        &["compare", RUNS[0], RUNS[1], "--format", "json"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let jq = Command::new("jq")
        .args(["-e", "[.rows[] | select(.verdict == \"slower\")] | length"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn();
    let mut jq = match jq {
        Ok(jq) => jq,
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("skipped: no jq ({e})");
            return;
        }
        Err(e) => panic!("jq is needed under CI: {e}"),
    };
    jq.stdin.take().unwrap().write_all(&out.stdout).unwrap();
    let got = jq.wait_with_output().unwrap();
    assert!(got.status.success(), "jq refused the JSON");
    // The fixture's one slower metric (lat_syscall/null, +20%).
    assert_eq!(String::from_utf8_lossy(&got.stdout).trim(), "1");
}

fn summary(name: &str, extra: &[&str]) {
    let mut args = vec!["summary"];
    args.extend(RUNS);
    args.extend(extra);
    golden(name, &args);
}

#[test]
fn summary_text() {
    summary("summary.txt", &[]);
}

#[test]
fn summary_markdown() {
    summary("summary.md", &["--format", "markdown"]);
}

#[test]
fn summary_csv() {
    summary("summary.csv", &["--format", "csv"]);
}

#[test]
fn summary_json() {
    summary("summary.json", &["--format", "json"]);
}

#[test]
fn summary_with_spread() {
    summary("summary-spread.txt", &["--spread"]);
}

#[test]
fn summary_floors() {
    summary("summary-floors.txt", &["--floors"]);
}

#[test]
fn compare() {
    golden("compare.txt", &["compare", RUNS[0], RUNS[1]]);
    golden(
        "compare.md",
        &["compare", RUNS[0], RUNS[1], "--format", "markdown"],
    );
    golden(
        "compare.csv",
        &["compare", RUNS[0], RUNS[1], "--format", "csv"],
    );
}

/// Directories holding a run.json under `dir`, at any depth.
fn run_dirs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.join("run.json").is_file() {
                out.push(p.clone());
            }
            run_dirs(&p, out);
        }
    }
}

/// The runs kept under `results/` are users' baselines and the README's
/// examples: a change to the run format or the summary must keep each one
/// loading and rendering.
#[test]
fn every_example_run_renders() {
    let results = manifest().join("results");
    let mut dirs = Vec::new();
    run_dirs(&results, &mut dirs);
    dirs.sort();
    assert!(!dirs.is_empty(), "no runs under {}", results.display());
    for d in &dirs {
        let out = lmbench(&results, &["summary", d.to_str().unwrap()]);
        assert!(
            out.status.success() && !out.stdout.is_empty(),
            "{}: {}",
            d.display(),
            stderr(&out)
        );
    }
}
