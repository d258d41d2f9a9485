//! Bench processes under attack, in Criterion's bench mode (the test
//! profile's bench binaries, built by `cargo test --all-targets`):
//! - every peer mode stopped (SIGSTOP) mid-measurement: the bench fails
//!   within seconds, its panic naming the metric;
//! - a bench killed (SIGKILL) mid-measurement of IPC, context switch, RPC
//!   and file create: no child or peer survives, no socket of theirs is
//!   left, its stale scratch is removed by the next run, and the latest
//!   Criterion results still read;
//! - `lmbench run` killed with cargo and the bench below it: all die;
//! - the file benches on a full disk: one failure line naming the metric,
//!   scratch removed.
//!
//! Slow (about two minutes): run when LMBENCH_SLOW_TESTS=1 (`.ci/run` sets
//! it), else each test says it was skipped.

use std::collections::BTreeSet;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use lmbench_support::child::TIMED_SLACK;
use lmbench_support::fs::SCRATCH_PREFIX;

mod common;
use common::{bench_exe, GroupGuard};

fn slow_tests() -> bool {
    let on = std::env::var_os("LMBENCH_SLOW_TESTS").is_some_and(|v| v == "1");
    if !on {
        eprintln!("skipped: set LMBENCH_SLOW_TESTS=1 to run (`.ci/run` does)");
    }
    on
}

/// A scratch world for one bench process: Criterion's home and the file
/// benches' directory.
struct World {
    dir: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        let w = World {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir(w.fsdir()).unwrap();
        w
    }
    fn criterion(&self) -> PathBuf {
        self.dir.path().join("criterion")
    }
    fn fsdir(&self) -> PathBuf {
        self.dir.path().join("fs")
    }
    /// `bench ARGS` in this world, its own process group leader (so a
    /// failed test can kill what it left), output captured.
    fn bench(&self, name: &str, args: &[&str]) -> Command {
        let mut c = Command::new(bench_exe(name));
        c.args(args)
            .env("CRITERION_HOME", self.criterion())
            .env("LMBENCH_FSDIR", self.fsdir())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0);
        c
    }
}

/// Bench mode, one metric, warming up long enough to be interrupted.
fn long(filter: &str) -> Vec<&str> {
    vec![
        "--bench",
        "--warm-up-time",
        "120",
        "--measurement-time",
        "120",
        filter,
    ]
}

fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for t in tasks.flatten() {
            let list = std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
            out.extend(
                list.split_whitespace()
                    .filter_map(|p| p.parse::<u32>().ok()),
            );
        }
    }
    out
}

fn descendants(pid: u32) -> Vec<u32> {
    let mut all = Vec::new();
    let mut todo = children(pid);
    while let Some(p) = todo.pop() {
        todo.extend(children(p));
        all.push(p);
    }
    all
}

fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        !s.rsplit(')')
            .next()
            .is_some_and(|r| r.trim_start().starts_with(['Z', 'X']))
    })
}

/// Waits until `pid` has `n` descendants (its peers are up) and a moment
/// more (it is inside the timed loop).
fn peers_up(pid: u32, n: usize) -> Vec<u32> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let d = descendants(pid);
        if d.len() >= n {
            std::thread::sleep(Duration::from_millis(1500));
            return descendants(pid);
        }
        assert!(
            Instant::now() < deadline,
            "bench {pid} never started {n} peers"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The socket inodes `pids` hold.
fn sockets(pids: &[u32]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for p in pids {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{p}/fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if let Ok(t) = std::fs::read_link(fd.path()) {
                let t = t.display().to_string();
                if let Some(ino) = t.strip_prefix("socket:[").and_then(|s| s.strip_suffix(']')) {
                    out.insert(ino.to_string());
                }
            }
        }
    }
    out
}

/// Those of `inodes` that still exist as sockets on this machine.
fn sockets_left(inodes: &BTreeSet<String>) -> Vec<String> {
    let mut left = Vec::new();
    for table in ["tcp", "tcp6", "udp", "udp6", "unix"] {
        let text = std::fs::read_to_string(format!("/proc/net/{table}")).unwrap_or_default();
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            // The inode column: 10th in tcp/udp, 7th in unix.
            let ino = if table == "unix" {
                cols.get(6)
            } else {
                cols.get(9)
            };
            if ino.is_some_and(|i| inodes.contains(*i)) {
                left.push(format!("{table}: {line}"));
            }
        }
    }
    left
}

fn wait_gone(pids: &[u32]) -> Vec<u32> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let alive: Vec<u32> = pids.iter().copied().filter(|&p| running(p)).collect();
        if alive.is_empty() || Instant::now() >= deadline {
            return alive;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn stderr_of(child: &mut Child) -> String {
    let mut s = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut s);
    }
    s
}

#[test]
fn a_stopped_peer_fails_its_bench_within_seconds_naming_the_metric() {
    if !slow_tests() {
        return;
    }
    // (bench, metric, peers to wait for): every peer mode.
    let cases = [
        ("lat_pipe", "lat_pipe/pipe", 1),      // echo split (pipes)
        ("lat_unix", "lat_unix/stream", 1),    // echo (AF_UNIX)
        ("lat_udp", "lat_udp/udp", 1),         // echo (UDP)
        ("lat_tcp", "lat_tcp/tcp", 1),         // echo (TCP)
        ("lat_connect", "lat_connect/tcp", 1), // accept
        ("lat_rpc", "lat_rpc/udp", 1),         // rpc over UDP
        ("lat_rpc", "lat_rpc/tcp", 1),         // rpc over TCP
        ("lat_ctx", "lat_ctx/switch_unpinned/2p_0k", 2), // ctx ring
        ("lat_proc", "lat_proc/fork", 1),      // proc
        ("bw_pipe", "bw_pipe/read/64k", 1),    // bw_write fd1 (pipe)
        ("bw_unix", "bw_unix/read/64k", 1),    // bw_write fd1 (socketpair)
        ("bw_tcp", "bw_tcp/read/64k", 1),      // bw_write tcp
    ];
    let mut report = Vec::new();
    for (bench, metric, n) in cases {
        let world = World::new();
        let filter = format!("^{metric}$");
        let started = Instant::now();
        let mut child = world.bench(bench, &long(&filter)).spawn().unwrap();
        let _guard = GroupGuard(child.id());
        let peers = peers_up(child.id(), n);
        for &p in &peers {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(p as i32),
                nix::sys::signal::Signal::SIGSTOP,
            );
        }
        let stopped = Instant::now();
        // A peer-driven bench (lat_proc) waits for a batch's answer up to
        // TIMED_SLACK plus 10x the batch's expected time; Criterion's
        // warm-up doubles the batch, so the batch in flight took at most
        // about as long as the bench has run. On a loaded machine the
        // peers may be seen late: allow for that, never under 25 s.
        let ran = stopped - started;
        let limit = Duration::from_secs(25).max(TIMED_SLACK + ran * 10 + Duration::from_secs(5));
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            assert!(
                stopped.elapsed() < limit,
                "{metric}: still running {limit:?} after its peers stopped ({ran:?} after its start)"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let took = stopped.elapsed();
        let err = stderr_of(&mut child);
        assert!(
            !status.success(),
            "{metric}: succeeded with its peers stopped"
        );
        assert!(
            err.lines().any(|l| l.starts_with(&format!("{metric}: "))),
            "{metric}: no failure naming it:\n{err}"
        );
        let left = wait_gone(&peers);
        assert!(
            left.is_empty(),
            "{metric}: peers {left:?} outlived the bench"
        );
        report.push(format!("{metric} {:.1}s", took.as_secs_f64()));
        eprintln!(
            "{metric}: failed {:.1}s after its peers stopped",
            took.as_secs_f64()
        );
    }
    eprintln!(
        "stopped peers failed their benches in: {}",
        report.join(", ")
    );
}

/// Every file below `dir` (for a failure's message: what a bench left).
fn files_under(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.path().is_dir() {
            out.extend(files_under(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

#[test]
fn a_killed_bench_leaves_no_peer_socket_or_scratch_and_results_still_read() {
    if !slow_tests() {
        return;
    }
    let cases = [
        ("lat_pipe", "lat_pipe/pipe", 1),
        ("lat_ctx", "lat_ctx/switch_unpinned/8p_16k", 8),
        ("lat_rpc", "lat_rpc/tcp", 1),
        ("lat_fs", "lat_fs/create/0k", 0),
    ];
    for (bench, metric, n) in cases {
        let world = World::new();
        let filter = format!("^{metric}$");
        // A finished measurement first: the latest results to keep.
        let quick = [
            "--bench",
            "--warm-up-time",
            "0.01",
            "--measurement-time",
            "0.05",
            "--sample-size",
            "10",
            &filter,
        ];
        let out = world.bench(bench, &quick).output().unwrap();
        assert!(
            out.status.success(),
            "{metric}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let saved = lmbench::criterion_files::read_benchmark(&world.criterion(), metric).unwrap();
        assert!(
            saved.is_some(),
            "{metric}: the quick run saved no results: {}",
            String::from_utf8_lossy(&out.stderr)
        );

        let mut child = world.bench(bench, &long(&filter)).spawn().unwrap();
        let _guard = GroupGuard(child.id());
        let pid = child.id();
        let mut tree = peers_up(pid, n);
        tree.push(pid);
        let socks = sockets(&tree);
        let scratch: Vec<PathBuf> = std::fs::read_dir(world.fsdir())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        child.kill().unwrap(); // SIGKILL: no destructor runs
        child.wait().unwrap();
        let left = wait_gone(&tree);
        assert!(
            left.is_empty(),
            "{metric}: {left:?} outlived the killed bench"
        );
        let left = sockets_left(&socks);
        assert!(left.is_empty(), "{metric}: sockets left: {left:?}");
        if bench == "lat_fs" {
            assert!(!scratch.is_empty(), "lat_fs made no scratch directory");
        }
        // The next run of any file bench sweeps the dead bench's scratch.
        let out = world
            .bench("lat_syscall", &["--test", "^lat_syscall/stat$"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stale: Vec<_> = std::fs::read_dir(world.fsdir())
            .unwrap()
            .flatten()
            .collect();
        assert!(stale.is_empty(), "{metric}: stale scratch {stale:?}");
        // The results of the finished measurement still read.
        let out = Command::new(env!("CARGO_BIN_EXE_lmbench"))
            .args(["summary", "--format", "json"])
            .env("CRITERION_HOME", world.criterion())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{metric}: {}\nfiles under its results directory: {:?}",
            String::from_utf8_lossy(&out.stderr),
            files_under(&world.criterion().join(metric))
        );
        let live = lmbench::criterion_files::read_benchmark(&world.criterion(), metric).unwrap();
        assert!(live.is_some(), "{metric}: its latest results are gone");
    }
}

#[test]
fn a_killed_lmbench_run_takes_cargo_the_bench_and_its_peers_along() {
    if !slow_tests() {
        return;
    }
    let world = World::new();
    // Stands in for cargo in `lmbench run`: the build is a no-op, the bench
    // is the real cargo running the test-profile bench in bench mode.
    let script = world.dir.path().join("cargo");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncase \"$*\" in *--no-run*) exit 0;; esac\n\
             CARGO_TARGET_DIR={} exec {} test --quiet --bench lat_tcp -- --bench --warm-up-time 120 --measurement-time 120 lat_tcp/tcp\n",
            target.display(),
            env!("CARGO")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    bench_exe("lat_tcp");
    let mut run = Command::new(env!("CARGO_BIN_EXE_lmbench"))
        .args(["run", "lat_tcp/tcp"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CARGO", &script)
        .env("CRITERION_HOME", world.criterion())
        .env("LMBENCH_FSDIR", world.fsdir())
        .env(
            "CARGO_TARGET_DIR",
            Path::new(env!("CARGO_MANIFEST_DIR")).join("target"),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let _guard = GroupGuard(run.id());
    // lmbench -> cargo -> lat_tcp bench -> echo peer.
    let tree = peers_up(run.id(), 3);
    let socks = sockets(&tree);
    run.kill().unwrap();
    run.wait().unwrap();
    let left = wait_gone(&tree);
    assert!(
        left.is_empty(),
        "{left:?} outlived the killed `lmbench run`"
    );
    let left = sockets_left(&socks);
    assert!(left.is_empty(), "sockets left: {left:?}");
}

#[test]
fn file_benches_on_a_full_disk_fail_naming_the_metric_and_clean_up() {
    if !slow_tests() {
        return;
    }
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: mounting a small tmpfs needs root");
        return;
    }
    for (bench, filter, metric) in [
        ("lat_fs", "^lat_fs/create/10k$", "lat_fs/"),
        ("bw_file_rd", "^bw_file_rd/io_only/8m$", "bw_file_rd/"),
    ] {
        let world = World::new();
        let fs = world.fsdir();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=256k", "tmpfs"])
            .arg(&fs)
            .status()
            .unwrap();
        assert!(mounted.success());
        let out = world
            .bench(
                bench,
                &[
                    "--bench",
                    "--warm-up-time",
                    "1",
                    "--measurement-time",
                    "1",
                    filter,
                ],
            )
            .output()
            .unwrap();
        let left: Vec<_> = std::fs::read_dir(&fs)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(SCRATCH_PREFIX))
            .collect();
        let _ = Command::new("umount").arg(&fs).status();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{bench} succeeded on a full disk");
        let line = err
            .lines()
            .find(|l| l.starts_with(metric))
            .unwrap_or_else(|| panic!("{bench}: no line naming the metric:\n{err}"));
        // ENOSPC, or the short write a full tmpfs gives first.
        assert!(
            line.contains("No space left on device") || line.contains("short write"),
            "{line}"
        );
        assert!(
            left.is_empty(),
            "{bench}: scratch left on the full disk: {left:?}"
        );
    }
}
