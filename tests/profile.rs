//! Flamegraphs from folded stacks (fixtures of a perf profile of
//! lat_syscall/null; no perf needed), and `lmbench profile`'s bad inputs.

mod common;

use std::path::Path;
use std::process::Command;

use lmbench_support::profile::flame::{self, Stacks};

fn fixture(name: &str) -> Stacks {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/profile")
        .join(name);
    Stacks::read(&p).unwrap()
}

#[test]
fn svg_holds_the_kernel_frames() {
    let stacks = fixture("lat_syscall_null.folded");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("profile/perf.svg");
    flame::write_svg(&stacks, "lat_syscall/null", Some("perf"), &out).unwrap();
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.contains("<svg"), "not an SVG");
    for frame in [
        "lat_syscall/null",
        "entry_SYSCALL_64_after_hwframe",
        "do_syscall_64",
        "__x64_sys_getppid",
        "__task_pid_nr_ns",
        "Bencher&lt;M&gt;::iter_custom",
    ] {
        assert!(svg.contains(frame), "SVG lacks {frame}");
    }
}

#[test]
fn summary_names_the_top_frames() {
    let stacks = fixture("lat_syscall_null.folded");
    let top = flame::top_self(&stacks, 3);
    let names: Vec<_> = top.iter().map(|r| r.frame.as_str()).collect();
    assert_eq!(names, ["syscall", "do_syscall_64", "__task_pid_nr_ns"]);
    let text = flame::summary(&stacks, 10);
    assert!(text.contains("788 samples"), "{text}");
    assert!(text.contains("entry_SYSCALL_64_after_hwframe"), "{text}");
}

#[test]
fn differential_svg_marks_growth() {
    let before = fixture("lat_syscall_null_before.folded");
    let after = fixture("lat_syscall_null.folded");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("diff-vs-box__before.svg");
    flame::write_diff_svg(
        &before,
        &after,
        "lat_syscall/null: now vs before",
        None,
        &out,
    )
    .unwrap();
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.contains("<svg"));
    assert!(svg.contains("__task_pid_nr_ns"));
    assert!(svg.contains("do_syscall_64"));
    // inferno's differential titles carry the change; the grown frame
    // has a positive one.
    let title = svg
        .split("<title>")
        .find(|t| t.starts_with("__task_pid_nr_ns"))
        .expect("a title for __task_pid_nr_ns");
    assert!(title.contains("+"), "{title}");

    let text = flame::diff_summary(&before, &after, 3);
    let first = text.lines().nth(2).unwrap();
    assert!(
        first.contains("__task_pid_nr_ns") && first.contains('+'),
        "{text}"
    );
}

#[test]
fn empty_profiles_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let empty = Stacks::default();
    assert!(flame::write_svg(&empty, "x", None, &dir.path().join("a.svg")).is_err());
    let some = fixture("lat_syscall_null.folded");
    assert!(flame::write_diff_svg(&empty, &some, "x", None, &dir.path().join("b.svg")).is_err());
}

fn lmbench(args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lmbench"));
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn profile_rejects_bad_input_in_one_line() {
    let (ok, err) = lmbench(&["profile", "lat_nothing/null"], &[]);
    assert!(!ok);
    assert!(err.contains("no such metric"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("lmbench: "), "{err}");

    let (ok, err) = lmbench(&["profile", "lat_syscall/null", "--seconds", "0"], &[]);
    assert!(!ok && err.contains("--seconds"), "{err}");

    let (ok, err) = lmbench(
        &["profile", "lat_syscall/null", "--vs", "/nonexistent/run"],
        &[],
    );
    assert!(!ok && err.contains("unknown run"), "{err}");

    // A saved run without the metric's profile.
    let env = common::Env::new();
    env.saved("noprof", 2, 100.0, 0.0);
    let out = env.lmbench(&["profile", "lat_syscall/null", "--vs", "vm/noprof"]);
    common::fails_with(&out, "has no profile of lat_syscall/null");

    let (ok, err) = lmbench(
        &["profile", "lat_syscall/null"],
        &[("LMBENCH_PROFILER", "gprof")],
    );
    assert!(!ok && err.contains("expected `perf` or `pprof`"), "{err}");
}
