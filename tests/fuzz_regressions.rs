//! Every input that broke a parser, kept: each file under
//! `fuzz/regressions/<target>/` (which `fuzz/run` also replays before
//! fuzzing) has a test here asserting what the parser must do with it
//! now. How to add one: fuzz/README.md.

use std::path::{Path, PathBuf};

use lmbench::{criterion_files, store};

fn input(target: &str, name: &str) -> Vec<u8> {
    let p: PathBuf = [env!("CARGO_MANIFEST_DIR"), "fuzz/regressions", target, name]
        .iter()
        .collect();
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The NUL-separated texts a results target takes.
fn texts(data: &[u8]) -> Vec<String> {
    data.split(|&b| b == 0)
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect()
}

/// A Criterion sample whose iteration counts are all zero: every
/// per-iteration time was infinite, so the minimum was too, and `save`
/// wrote `"min_ns": null`, a run.json no command could load again.
/// (A directed input beside the fuzzer, which did not reach it: it needs
/// every count zeroed at once.) Now refused when read, naming the file.
#[test]
fn criterion_all_iters_zero_is_refused_when_read() {
    let t = texts(&input("criterion_estimates", "all_iters_zero"));
    let dir = Path::new("/x/lat_syscall/null/new");
    let err = criterion_files::parse_benchmark(dir, &t[0], &t[1], &t[2]).unwrap_err();
    let msg = format!("{err:#}");
    assert!(
        msg.starts_with("/x/lat_syscall/null/new is corrupt: ")
            && msg.contains("has iteration count 0"),
        "{msg}"
    );
}

/// The saved-run side of the same bug: a run holding a non-finite figure
/// is refused before anything is written, so no unreadable run.json exists.
#[test]
fn a_run_with_an_infinite_figure_is_not_saved() {
    let t = texts(&input("criterion_estimates", "all_iters_zero"));
    let mut sample: serde_json::Value = serde_json::from_str(&t[1]).unwrap();
    sample["iters"] = serde_json::json!([1.0]);
    let dir = Path::new("/x/lat_syscall/null/new");
    let mut stats =
        criterion_files::parse_benchmark(dir, &t[0], &sample.to_string(), &t[2]).unwrap();
    stats.min_ns = f64::INFINITY;
    let run = lmbench::run::Run {
        machine: Default::default(),
        metrics: [("lat_syscall/null".to_string(), stats)].into(),
        origin: lmbench::run::Origin::Live,
        meta: store::current_meta(1),
        imported: None,
    };
    let root = tempfile::tempdir().unwrap();
    let opts = store::SaveOptions {
        machine: "vm",
        label: "inf",
        force: false,
        summary: "",
        profiles: &[],
    };
    let err = store::save(root.path(), &run, &opts)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("lat_syscall/null") && err.contains("not a finite number"),
        "{err}"
    );
    assert!(!root.path().join("vm/inf").exists());
}
