//! Every fd-based metric is timed in a process with exactly one thread
//! (Linux): a second thread switches the kernel's fd table to its shared
//! path (an atomic get/put per fd lookup), which moved select on 100 fds
//! from 0.86 to 2.7 us here. Each bench runs in Criterion's test mode with
//! `LMBENCH_CHECK_THREADS=1`: the harness counts `/proc/self/task` right
//! before and right after every timed call, fails the metric if it is not
//! 1, and says so once per metric; this test wants that line for each.
#![cfg(target_os = "linux")]

use std::collections::BTreeSet;
use std::process::{Command, Stdio};

use lmbench_support::catalog::{self, Metric, Program};
use lmbench_support::harness::{thread_count, CHECK_THREADS_ENV, ONE_THREAD_LINE, SKIPPED};

mod common;
use common::bench_exe;

/// The bench files of the fd-based metrics, with the metrics that must be
/// measured (not skipped) in Criterion's test mode.
fn cases() -> Vec<(&'static Program, Vec<&'static Metric>)> {
    use catalog::*;
    vec![
        (&lat_syscall::PROGRAM, lat_syscall::PROGRAM.metrics.to_vec()),
        (&lat_select::PROGRAM, lat_select::PROGRAM.metrics.to_vec()),
        (&lat_pipe::PROGRAM, vec![&lat_pipe::PIPE]),
        (&lat_unix::PROGRAM, vec![&lat_unix::STREAM]),
        (&lat_udp::PROGRAM, vec![&lat_udp::UDP]),
        (&lat_tcp::PROGRAM, vec![&lat_tcp::TCP]),
        (&lat_connect::PROGRAM, vec![&lat_connect::TCP]),
        (&lat_rpc::PROGRAM, vec![&lat_rpc::UDP, &lat_rpc::TCP]),
        (&lat_fs::PROGRAM, lat_fs::PROGRAM.metrics.to_vec()),
        // Timed in lmbench-peer floor, single-threaded by construction,
        // which with the variable also checks its own count per request.
        (
            &floor::PROGRAM,
            vec![&floor::NULL, &floor::SELECT_100, &floor::READ],
        ),
    ]
}

#[test]
fn the_count_sees_a_second_thread() {
    // The check is real: this (multi-threaded) test process counts more.
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let t = std::thread::spawn(move || rx.recv());
    assert!(thread_count().unwrap() >= 2);
    drop(tx);
    t.join().unwrap().unwrap_err();
}

#[test]
fn fd_metrics_are_timed_with_one_thread() {
    let scratch = tempfile::tempdir().unwrap();
    let mut missing = Vec::new();
    for (program, wanted) in cases() {
        let out = Command::new(bench_exe(program.name))
            .arg("--test")
            .env(CHECK_THREADS_ENV, "1")
            .env("CRITERION_HOME", scratch.path().join("criterion"))
            .env("LMBENCH_FSDIR", scratch.path())
            .env_remove("LMBENCH_REMOTE")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{}:\n{err}", program.name);
        let single: BTreeSet<&str> = err
            .lines()
            .filter_map(|l| l.strip_prefix(ONE_THREAD_LINE))
            .collect();
        let skipped: BTreeSet<&str> = err
            .lines()
            .filter_map(|l| l.strip_prefix(SKIPPED))
            .filter_map(|l| l.split(':').next())
            .collect();
        for m in wanted {
            if !single.contains(m.id) {
                missing.push(format!("{} (skipped: {})", m.id, skipped.contains(m.id)));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not shown timed with one thread: {missing:?}"
    );
}
