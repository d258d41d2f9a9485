//! `lmbench run` past a program that fails and past Ctrl-C: the rounds
//! that finished are saved as they finish, a failed program costs the run
//! only its own metrics, and the progress lines estimate the time left.
//!
//! A script stands in for cargo: the build is a no-op and each bench is
//! the test-profile bench binary in bench mode, so the real benches run
//! (quick preset, one metric) without a release build.

mod common;

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use common::{bench_exe, GroupGuard};

/// A scratch world: Criterion's home, results, the run's target dir (its
/// lock, log and durations) and the fake cargo.
struct World {
    dir: tempfile::TempDir,
}

impl World {
    /// `fail`: the program the fake cargo fails; `sleep_at`: the bench
    /// invocation (1-based) it holds for two minutes first (a marker file
    /// says it has started holding).
    fn new(fail: &str, sleep_at: u32) -> World {
        let w = World {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir(w.path("fs")).unwrap();
        let exe = |name: &str| bench_exe(name).display().to_string();
        let script = format!(
            "#!/bin/sh\n\
             case \"$*\" in *--no-run*) exit 0;; esac\n\
             # cargo bench --quiet --bench NAME -- [FILTER]\n\
             name=$4; shift 5\n\
             n=$(cat {count} 2>/dev/null || echo 0); n=$((n + 1)); echo $n > {count}\n\
             [ \"$name\" = {fail} ] && exit 3\n\
             if [ $n = {sleep_at} ]; then touch {holding}; sleep 120; fi\n\
             case $name in\n\
               lat_syscall) exec {syscall} --bench \"$@\";;\n\
               lat_sig) exec {sig} --bench \"$@\";;\n\
               floor) exec {floor} --bench \"$@\";;\n\
             esac\n\
             exit 4\n",
            count = w.path("count").display(),
            holding = w.path("holding").display(),
            syscall = exe("lat_syscall"),
            sig = exe("lat_sig"),
            floor = exe("floor"),
        );
        std::fs::write(w.path("cargo"), script).unwrap();
        std::fs::set_permissions(w.path("cargo"), std::fs::Permissions::from_mode(0o755)).unwrap();
        w
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn lmbench(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_lmbench"));
        c.args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("CARGO", self.path("cargo"))
            .env("CARGO_TARGET_DIR", self.path("target"))
            .env("CRITERION_HOME", self.path("criterion"))
            .env("LMBENCH_RESULTS", self.path("results"))
            .env("LMBENCH_FSDIR", self.path("fs"))
            .stdin(Stdio::null());
        c
    }

    fn saved(&self, label: &str) -> Option<serde_json::Value> {
        let text = std::fs::read(self.path("results").join("vm").join(label).join("run.json"));
        text.ok().map(|t| serde_json::from_slice(&t).unwrap())
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn ctrl_c_in_the_second_of_three_rounds_keeps_the_first() {
    // Round one runs lat_syscall/null and its floor: two benches.
    let world = World::new("none", 3);
    let mut run = world.lmbench(&[
        "run",
        "--quick",
        "--runs",
        "3",
        "--save",
        "first",
        "--machine",
        "vm",
        "^lat_syscall/null$",
    ]);
    run.stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0);
    // Ctrl-C as a terminal delivers it: SIGINT at its default action. A
    // test started in the background of a non-interactive shell inherits
    // SIGINT ignored, and the run would then go on past it.
    // SAFETY: between fork and exec only `signal`, which is
    // async-signal-safe, runs; no allocation or lock is touched.
    unsafe {
        run.pre_exec(|| {
            nix::sys::signal::signal(
                nix::sys::signal::Signal::SIGINT,
                nix::sys::signal::SigHandler::SigDfl,
            )
            .map(drop)
            .map_err(std::io::Error::from)
        });
    }
    let mut run = run.spawn().unwrap();
    let _guard = GroupGuard(run.id());
    // Read the progress until the second round's bench holds.
    let mut lines = Vec::new();
    let stderr = BufReader::new(run.stderr.take().unwrap());
    for line in stderr.lines() {
        let line = line.unwrap();
        let second_round =
            line.starts_with("[1/") && lines.iter().any(|l: &String| l == "round 2 of 3");
        lines.push(line);
        if second_round {
            break;
        }
    }
    let holding = world.path("holding");
    for _ in 0..200 {
        if holding.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(
        holding.exists(),
        "the second round never started: {lines:#?}"
    );
    // Ctrl-C: SIGINT to the terminal's foreground process group.
    nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(run.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let status = run.wait().unwrap();
    assert_eq!(
        status.signal(),
        Some(nix::sys::signal::Signal::SIGINT as i32),
        "{status:?}: Ctrl-C did not stop the run"
    );
    let saved = world.saved("first").expect("the first round was saved");
    assert_eq!(saved["runs_pooled"], 1, "{saved:#}");
    assert!(saved["metrics"]["lat_syscall/null"].is_object());
    // The second round was estimated from the first.
    let progress = lines.last().unwrap();
    assert!(progress.ends_with(" s left"), "{lines:#?}");
}

fn run_two_programs(world: &World, flags: &[&str], label: &str, fail: Option<&str>) -> Output {
    let mut args = vec![
        "run",
        "--quick",
        "--save",
        label,
        "--machine",
        "vm",
        "^(lat_syscall/null|lat_sig/install)$",
    ];
    args.extend_from_slice(flags);
    let mut cmd = world.lmbench(&args);
    if let Some(id) = fail {
        cmd.env("LMBENCH_FAIL_METRIC", id);
    }
    cmd.output().unwrap()
}

/// A failure injected in one real bench (the harness's own failure path):
/// the run goes on by default, saves the rest with the failed metric and
/// its one-line reason, lists it at the end and exits 3.
#[test]
fn a_failed_program_leaves_the_others_measured_and_saved() {
    let world = World::new("none", 0);
    let out = run_two_programs(&world, &[], "kept", Some("lat_sig/install"));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    let reason = "lat_sig: lat_sig/install: failed on purpose (LMBENCH_FAIL_METRIC)";
    assert!(
        err.contains(&format!("failed programs:\n  {reason}\n")),
        "{err}"
    );
    let last = err.lines().last().unwrap();
    assert!(
        last.starts_with("lmbench: a program failed (lat_sig); the rest was measured and saved"),
        "{err}"
    );
    assert!(!last.contains("panicked"), "{err}");
    // The summary of what ran is printed, and saved with the failure.
    assert!(text(&out.stdout).contains("null"), "{}", text(&out.stdout));
    let saved = world.saved("kept").expect("the run is saved");
    assert!(saved["metrics"]["lat_syscall/null"].is_object());
    assert!(saved["metrics"].get("lat_sig/install").is_none());
    assert_eq!(
        saved["failed"]["lat_sig/install"], "failed on purpose (LMBENCH_FAIL_METRIC)",
        "{saved:#}"
    );
    // The older spelling of the default still runs.
    let out = run_two_programs(&world, &["--keep-going"], "kept-2", Some("lat_sig/install"));
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));

    // --fail-fast: the first failure ends the run and nothing is saved.
    let out = run_two_programs(&world, &["--fail-fast"], "stopped", Some("lat_sig/install"));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(world.saved("stopped").is_none());
    assert!(err.lines().last().unwrap().contains(reason), "{err}");
}

/// A program that dies without the harness's line (here the stand-in
/// cargo exits 3) is reported by how it exited.
#[test]
fn a_program_that_dies_silently_is_reported_by_its_exit_status() {
    let world = World::new("lat_sig", 0);
    let out = run_two_programs(&world, &[], "silent", None);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("  lat_sig: exited with exit status: 3\n"),
        "{err}"
    );
    let saved = world.saved("silent").expect("the run is saved");
    assert!(saved["metrics"]["lat_syscall/null"].is_object());
    assert_eq!(
        saved["failed"]["lat_sig/install"],
        "not measured: lat_sig failed: exited with exit status: 3"
    );
}
