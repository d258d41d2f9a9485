//! Bad input (unknown or corrupt runs, unreadable results, refused
//! saves): a clear one-line error, a non-zero exit, and nothing already
//! saved changed or lost.

mod common;

use common::{damage, fails_with, snapshot, Env};

/// A results dir holding `vm/good`, and a snapshot of it.
fn with_saved_run() -> (Env, std::collections::BTreeMap<std::path::PathBuf, Vec<u8>>) {
    let env = Env::new();
    env.saved("good", 2, 100.0, 0.01);
    let snap = snapshot(&env.results());
    (env, snap)
}

#[test]
fn unknown_run() {
    let (env, snap) = with_saved_run();
    for args in [
        &["summary", "vm/nope"][..],
        &["compare", "vm/good", "nope"],
        &["export", "other/good"],
        &["restore", "../etc"],
    ] {
        fails_with(&env.lmbench(args), "unknown run");
    }
    fails_with(&env.lmbench(&["summary", "nope"]), "saved runs: vm/good");
    assert_eq!(snap, snapshot(&env.results()));
}

#[test]
fn corrupt_or_truncated_run_json() {
    let (env, _) = with_saved_run();
    let path = env.results().join("vm/good/run.json");
    let full = std::fs::read(&path).unwrap();
    for (bytes, needle) in [
        (full[..full.len() / 2].to_vec(), "corrupt or truncated"),
        (b"{ not json".to_vec(), "corrupt or truncated"),
        (b"{\"schema\": 1, \"metrics\": 3}".to_vec(), "corrupt"),
        (b"[1, 2]".to_vec(), "no schema version"),
    ] {
        std::fs::write(&path, &bytes).unwrap();
        let snap = snapshot(&env.results());
        fails_with(&env.lmbench(&["summary", "vm/good"]), needle);
        fails_with(&env.lmbench(&["compare", "vm/good", "vm/good"]), needle);
        assert_eq!(snap, snapshot(&env.results()));
    }
}

#[test]
fn schema_from_the_future() {
    let (env, _) = with_saved_run();
    let path = env.results().join("vm/good/run.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    v["schema"] = 99.into();
    std::fs::write(&path, v.to_string()).unwrap();
    let snap = snapshot(&env.results());
    fails_with(&env.lmbench(&["summary", "vm/good"]), "schema version 99");
    fails_with(&env.lmbench(&["restore", "vm/good"]), "update lmbench-rs");
    assert_eq!(snap, snapshot(&env.results()));
}

#[test]
fn no_metric_in_common() {
    let env = Env::new();
    let ms = common::metrics(2);
    env.bench(ms[0], 100.0, 0.01);
    let save = |label: &str| {
        let out = env.lmbench(&["save", "--label", label, "--machine", "vm"]);
        assert!(out.status.success(), "{}", common::stderr(&out));
    };
    save("one");
    std::fs::remove_dir_all(env.criterion()).unwrap();
    env.bench(ms[1], 100.0, 0.01);
    save("two");
    let snap = snapshot(&env.results());
    fails_with(
        &env.lmbench(&["compare", "vm/one", "vm/two"]),
        "no metric in common",
    );
    fails_with(
        &env.lmbench(&["compare", "vm/one", "vm/one", "--filter", "^nothing$"]),
        "no metric in common",
    );
    assert_eq!(snap, snapshot(&env.results()));
}

#[test]
fn unreadable_results_dir() {
    let env = Env::new();
    env.bench(common::metrics(1)[0], 100.0, 0.01);
    // A regular file where the results directory should be.
    let file = env.dir.path().join("results-file");
    std::fs::write(&file, "not a directory").unwrap();
    fails_with(
        &env.lmbench_results(&file, &["summary", "vm/x"]),
        "cannot read results directory",
    );
    fails_with(
        &env.lmbench_results(&file, &["save", "--label", "x", "--machine", "vm"]),
        "is not a directory",
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a directory");
}

/// A results directory that cannot be written. Tests run as root in CI,
/// where permission bits do not stop writes, so the root case uses a
/// machine directory that is a regular file (mkdir fails as for a
/// read-only file system); a normal user also gets a chmod 0555 directory.
#[test]
fn read_only_results_dir() {
    let (env, _) = with_saved_run();
    let blocker = env.results().join("ro");
    std::fs::write(&blocker, "a file where a machine directory goes").unwrap();
    let snap = snapshot(&env.results());
    fails_with(
        &env.lmbench(&["save", "--label", "x", "--machine", "ro"]),
        "cannot write results directory",
    );
    assert_eq!(snap, snapshot(&env.results()));

    if !nix::unistd::geteuid().is_root() {
        use std::os::unix::fs::PermissionsExt;
        let vm = env.results().join("vm");
        std::fs::set_permissions(&vm, std::fs::Permissions::from_mode(0o555)).unwrap();
        let out = env.lmbench(&["save", "--label", "x", "--machine", "vm"]);
        std::fs::set_permissions(&vm, std::fs::Permissions::from_mode(0o755)).unwrap();
        fails_with(&out, "cannot write");
        assert_eq!(snap, snapshot(&env.results()));
    }
}

#[test]
fn bad_saves_are_refused() {
    let (env, snap) = with_saved_run();
    for (args, needle) in [
        (
            &["save", "--label", "../x", "--machine", "vm"][..],
            "bad label",
        ),
        (
            &["save", "--label", "x", "--machine", "a b"],
            "bad machine name",
        ),
        (
            &["save", "--label", "x", "--filter", "(", "--machine", "vm"],
            "bad filter",
        ),
        (
            &["compare", "vm/good", "vm/good", "--threshold=-1"],
            "--threshold",
        ),
    ] {
        common::refused_by_parser(&env.lmbench(args), needle);
    }
    fails_with(
        &env.lmbench(&[
            "save",
            "--label",
            "x",
            "--filter",
            "^none$",
            "--machine",
            "vm",
        ]),
        "nothing to save",
    );
    // No Criterion results at all.
    std::fs::remove_dir_all(env.criterion()).unwrap();
    fails_with(
        &env.lmbench(&["save", "--label", "x", "--machine", "vm"]),
        "no Criterion results",
    );
    assert_eq!(snap, snapshot(&env.results()));
}

#[test]
fn mixed_suite_versions_are_refused() {
    let env = Env::new();
    // Two programs' results, stamped by different suite versions.
    let programs: Vec<_> = lmbench_support::catalog::PROGRAMS.iter().take(2).collect();
    if programs.len() < 2 {
        return; // one program in the catalog: nothing to mix
    }
    for (p, version) in programs.iter().zip(["0.1.0", "0.2.0"]) {
        env.bench(p.metrics[0], 100.0, 0.01);
        std::fs::write(
            env.criterion().join(p.name).join("lmbench-suite.json"),
            format!("{{\"suite_version\": \"{version}\"}}"),
        )
        .unwrap();
    }
    fails_with(
        &env.lmbench(&["save", "--label", "x", "--machine", "vm"]),
        "mix suite versions",
    );
    assert!(!env.results().join("vm/x").exists());
}

/// A bad flag ends at once, before any build: exit 2, one `error:` line
/// naming the flag, no panic, and no `cargo` started (CARGO points at a
/// program that would leave a mark).
#[test]
fn bad_flags_end_before_anything_is_built() {
    let (env, snap) = with_saved_run();
    let mark = env.dir.path().join("cargo-ran");
    let cargo = env.dir.path().join("cargo");
    std::fs::write(&cargo, format!("#!/bin/sh\ntouch {}\n", mark.display())).unwrap();
    std::fs::set_permissions(&cargo, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    for (args, flag) in [
        (
            &["run", "lat_syscall", "--budget", "99999999999999999999h"][..],
            "--budget",
        ),
        (&["run", "--budget", "0s"], "--budget"),
        (
            &["run", "--budget", "1m", "--threshold", "NaN"],
            "--threshold",
        ),
        (
            &["check", "vm/good", "--new", "vm/good", "--budget", "abc"],
            "--budget",
        ),
        (
            &["check", "vm/good", "--new", "vm/good", "--budget", "5m"],
            "--budget",
        ),
        (&["check", "vm/good", "--threshold", "inf"], "--threshold"),
        (
            &["compare", "vm/good", "vm/good", "--busy-threshold=-5"],
            "--busy-threshold",
        ),
        (&["run", "--runs", "0"], "--runs"),
        (&["run", "--save", "../x"], "--save"),
    ] {
        let started = std::time::Instant::now();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_lmbench"))
            .args(args)
            .env("CARGO", &cargo)
            .env("CRITERION_HOME", env.criterion())
            .env("LMBENCH_RESULTS", env.results())
            .output()
            .expect("running lmbench");
        let err = common::stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: {err}");
        assert!(lines[0].contains(flag), "{args:?}: {err}");
        assert!(lines[0].starts_with("lmbench: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!mark.exists(), "{args:?} ran cargo");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "{args:?}"
        );
    }
    assert_eq!(snap, snapshot(&env.results()));
}

/// A saved run whose figures are damaged (negative sample times, zero
/// iteration counts, lengths that differ...) is refused by every command
/// that reads it, naming the metric, before anything is shown.
#[test]
fn damaged_figures_are_refused_as_corrupt() {
    let (env, _) = with_saved_run();
    let path = env.results().join("vm/good/run.json");
    let good: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let id = damage::first_metric(&good);
    let metric = &good["metrics"][&id];
    for d in damage::damages()
        .into_iter()
        .filter(|d| d.named && d.applies_to(metric))
    {
        let mut v = good.clone();
        (d.mutate)(&mut v["metrics"][&id]);
        std::fs::write(&path, v.to_string()).unwrap();
        let want = format!("is corrupt: {id} has ");
        for args in [
            &["summary", "vm/good"][..],
            &["compare", "vm/good", "vm/good"],
            &["check", "vm/good", "--new", "vm/good"],
        ] {
            let o = env.lmbench(args);
            assert_eq!(
                o.status.code(),
                Some(2),
                "{}: {}",
                d.what,
                common::stderr(&o)
            );
            fails_with(&o, &want);
            fails_with(&o, d.needle);
        }
    }
}
