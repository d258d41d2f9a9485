//! lat_pagefault's ratio on the file systems this machine has, as a run
//! samples it: the bench binary in bench mode, one iteration per sample
//! (a sample's call takes longer than the measurement time's share), on
//! a file in the temporary directory (ext4 with large folios on Linux
//! 6.16+) and on a tmpfs. Each figure is non-zero and finite, and
//! `faults_per_page` reads the ratio the program's own line prints: on a
//! kernel that maps more than a page a fault (fault-around, large
//! folios), below one. A ratio rounded through whole nanoseconds read 0
//! here and Criterion discarded the metric.

mod common;

use std::path::Path;
use std::process::Command;

fn samples(home: &Path, id: &str) -> Vec<f64> {
    let path = home.join(id).join("new").join("sample.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let v: serde_json::Value = serde_json::from_str(&text).expect("sample.json");
    let iters = v["iters"].as_array().expect("iters");
    let times = v["times"].as_array().expect("times");
    assert_eq!(iters.len(), times.len());
    iters
        .iter()
        .zip(times)
        .map(|(n, t)| {
            let n = n.as_f64().expect("iters");
            assert_eq!(
                n, 1.0,
                "{id}: one iteration per sample is the case under test"
            );
            t.as_f64().expect("times") / n
        })
        .collect()
}

/// `(pages, faults per page pass)` from the program's own setup line.
fn own_line(stderr: &str) -> (f64, f64) {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("lat_pagefault: ") && l.contains("faults per `page` pass"))
        .unwrap_or_else(|| panic!("no setup line in: {stderr}"));
    let pages: f64 = line["lat_pagefault: ".len()..]
        .split_whitespace()
        .next()
        .and_then(|w| w.parse().ok())
        .expect("pages");
    let faults: f64 = line
        .rsplit("; ")
        .next()
        .and_then(|t| t.split_whitespace().next())
        .and_then(|w| w.parse().ok())
        .expect("faults per page pass");
    (pages, faults)
}

fn measure_in(fsdir: &Path) {
    let home = tempfile::tempdir().expect("criterion home");
    let out = Command::new(common::bench_exe("lat_pagefault"))
        .args([
            "--bench",
            "^lat_pagefault/(page|faults_per_page)$",
            "--warm-up-time",
            "0.001",
            "--measurement-time",
            "0.001",
            "--sample-size",
            "10",
        ])
        .env("LMBENCH_PRESET", "quick")
        .env("LMBENCH_PAGEFAULT_SIZE", "8m")
        .env("LMBENCH_FSDIR", fsdir)
        .env("CRITERION_HOME", home.path())
        .output()
        .expect("run the bench");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}: {stderr}", fsdir.display());
    for id in ["lat_pagefault/page", "lat_pagefault/faults_per_page"] {
        for v in samples(home.path(), id) {
            assert!(v.is_finite() && v > 0.0, "{} {id}: {v}", fsdir.display());
        }
    }
    let (pages, faults) = own_line(&stderr);
    let said = faults / pages;
    for r in samples(home.path(), "lat_pagefault/faults_per_page") {
        // Whole passes, so the same ratio up to a stray fault or two.
        assert!(
            (r - said).abs() <= said * 0.05,
            "{}: faults_per_page {r}, the program's line {said}",
            fsdir.display()
        );
        if faults < pages {
            assert!(r < 1.0, "{}: {r}", fsdir.display());
        }
    }
}

#[test]
fn faults_per_page_is_the_true_ratio_in_the_temp_dir() {
    measure_in(&std::env::temp_dir());
}

#[test]
fn faults_per_page_is_the_true_ratio_on_a_tmpfs() {
    // /dev/shm is a tmpfs on Linux; elsewhere there is none to test.
    let shm = Path::new("/dev/shm");
    if !cfg!(target_os = "linux") || !shm.is_dir() {
        eprintln!("skipped: no /dev/shm");
        return;
    }
    measure_in(shm);
}
