//! Nothing a bench starts outlives it: peers are killed and reaped, scratch
//! files removed and fds closed when a bench panics (unwinding drops the
//! guards), and peers die with a bench that is killed outright (SIGKILL,
//! no unwinding: PR_SET_PDEATHSIG).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lmbench_support::child::{alive, Peer, REPLY_TIMEOUT};
use lmbench_support::fs::ScratchFile;

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

/// The tests of this file count the process's fds: one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn open_fds() -> usize {
    std::fs::read_dir("/dev/fd").map(|d| d.count()).unwrap_or(0)
}

fn wait_gone(pid: u32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

#[test]
fn a_panicking_bench_leaves_nothing_behind() {
    let _serial = serial();
    let fds_before = open_fds();
    let mut leftovers = (0u32, std::path::PathBuf::new());
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut peer = Peer::spawn(PEER, &["proc"]).unwrap();
        assert_eq!(peer.call("ping", REPLY_TIMEOUT).unwrap(), "pong");
        let file = ScratchFile::new(4096).unwrap();
        leftovers = (peer.pid(), file.dir().to_path_buf());
        panic!("lat_test/x: simulated failure inside a timed loop");
    }));
    assert!(result.is_err());
    let (pid, dir) = leftovers;
    assert!(wait_gone(pid), "peer {pid} outlived the panic");
    assert!(
        !dir.exists(),
        "scratch dir {} outlived the panic",
        dir.display()
    );
    assert_eq!(open_fds(), fds_before, "fds leaked");
}

#[test]
fn peers_die_with_a_killed_bench() {
    if std::env::var_os("LMBENCH_TEST_ROLE").is_some() {
        return; // (the role itself runs in role_spawn_peer_and_wait)
    }
    let _serial = serial();
    #[cfg(target_os = "linux")]
    {
        // Re-run this test binary in the role of a bench that starts a peer.
        let exe = std::env::current_exe().unwrap();
        let mut bench = Command::new(exe)
            .args([
                "--exact",
                "role_spawn_peer_and_wait",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("LMBENCH_TEST_ROLE", "1")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(bench.stdout.take().unwrap()).lines();
        let peer_pid: u32 = loop {
            let line = lines.next().expect("role printed no peer pid").unwrap();
            // libtest prints "test NAME ... " before the role's own output.
            if let Some((_, p)) = line.split_once("peer-pid ") {
                break p.trim().parse().unwrap();
            }
        };
        assert!(alive(peer_pid));
        bench.kill().unwrap(); // SIGKILL: no destructor runs in the bench
        bench.wait().unwrap();
        assert!(
            wait_gone(peer_pid),
            "peer {peer_pid} outlived its killed bench"
        );
    }
}

#[test]
fn role_spawn_peer_and_wait() {
    if std::env::var_os("LMBENCH_TEST_ROLE").is_none() {
        return;
    }
    let mut peer = Peer::spawn(PEER, &["proc"]).unwrap();
    assert_eq!(peer.call("ping", REPLY_TIMEOUT).unwrap(), "pong");
    println!("peer-pid {}", peer.pid());
    std::thread::sleep(Duration::from_secs(60));
}

#[test]
fn the_proc_peer_reaps_its_children_and_reports_failures() {
    let _serial = serial();
    let mut peer = Peer::spawn(PEER, &["proc"]).unwrap();
    let ns: u64 = peer.call_u64("fork 5", REPLY_TIMEOUT).unwrap();
    assert!(ns > 0);
    let hello = env!("LMBENCH_EXEC_HELLO");
    assert!(
        peer.call_u64(&format!("exec 2 {hello}"), REPLY_TIMEOUT)
            .unwrap()
            > 0
    );
    assert!(
        peer.call_u64(&format!("shell 2 {hello}"), REPLY_TIMEOUT)
            .unwrap()
            > 0
    );
    // A program that cannot be executed: the child exits 127, and the peer
    // must say so instead of timing a failure.
    let err = peer
        .call("exec 1 /nonexistent/hello", REPLY_TIMEOUT)
        .unwrap_err();
    assert!(err.to_string().contains("failed"), "{err}");
    let err = peer.call("bogus 1", REPLY_TIMEOUT).unwrap_err();
    assert!(err.to_string().contains("bad request"), "{err}");
    // No zombie children of the peer remain.
    #[cfg(target_os = "linux")]
    {
        let children = std::fs::read_to_string(format!("/proc/{0}/task/{0}/children", peer.pid()))
            .unwrap_or_default();
        assert!(children.trim().is_empty(), "peer has children: {children}");
    }
}
