//! Two machines, for real: two network namespaces joined by a veth pair.
//! `lmbench serve` runs in one; the remote benches (lat_udp, lat_rpc,
//! lat_tcp, lat_connect, bw_tcp) run from the other in Criterion's test
//! mode, against it; the veth's counters prove the traffic crossed the
//! pair. Needs root and iproute2 (`.ci/run` installs it): skipped with the
//! reason otherwise, except under CI, where that is a failure. The
//! namespaces (and with them the veth pair) are removed even when the
//! test fails; ones left by a test that was killed are removed by the next.
//! Traffic stays inside the test's own namespaces.

mod common;

use std::path::Path;
use std::process::Command;

use common::serve::Served;

const SERVER_IP: &str = "10.216.16.1";
const CLIENT_IP: &str = "10.216.16.2";
const PREFIX: &str = "lmbrs-";

fn ip(args: &[&str]) -> Result<String, String> {
    let o = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("ip: {e}"))?;
    if o.status.success() {
        Ok(String::from_utf8_lossy(&o.stdout).into_owned())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&o.stderr).trim()
        ))
    }
}

/// The reason this machine cannot run the test, if it cannot.
fn cannot_run() -> Option<String> {
    if !nix::unistd::geteuid().is_root() {
        return Some("network namespaces need root".into());
    }
    if Command::new("ip").arg("-V").output().is_err() {
        return Some("iproute2's `ip` is not installed (apt-get install iproute2)".into());
    }
    None
}

/// Two namespaces and the veth pair between them, removed on drop.
struct Netns {
    srv: String,
    cli: String,
    veth_srv: String,
}

impl Netns {
    fn new() -> Result<Netns, String> {
        sweep_stale();
        let pid = std::process::id();
        let n = Netns {
            srv: format!("{PREFIX}srv-{pid}"),
            cli: format!("{PREFIX}cli-{pid}"),
            veth_srv: format!("lmbs{pid}"),
        };
        // Built first, so a failure half-way still removes what was made.
        n.setup(&format!("lmbc{pid}"))?;
        Ok(n)
    }

    fn setup(&self, veth_cli: &str) -> Result<(), String> {
        let n = self;
        ip(&["netns", "add", &n.srv])?;
        ip(&["netns", "add", &n.cli])?;
        ip(&[
            "link",
            "add",
            &n.veth_srv,
            "netns",
            &n.srv,
            "type",
            "veth",
            "peer",
            "name",
            veth_cli,
            "netns",
            &n.cli,
        ])?;
        for (ns, dev, addr) in [
            (n.srv.as_str(), n.veth_srv.as_str(), SERVER_IP),
            (n.cli.as_str(), veth_cli, CLIENT_IP),
        ] {
            ip(&["-n", ns, "addr", "add", &format!("{addr}/30"), "dev", dev])?;
            ip(&["-n", ns, "link", "set", dev, "up"])?;
            // The local benches beside the remote ones use loopback.
            ip(&["-n", ns, "link", "set", "lo", "up"])?;
        }
        Ok(())
    }

    /// The server end's counter (rx_bytes, tx_packets...).
    fn counter(&self, name: &str) -> u64 {
        let out = Command::new("ip")
            .args(["netns", "exec", &self.srv, "cat"])
            .arg(
                Path::new("/sys/class/net")
                    .join(&self.veth_srv)
                    .join("statistics")
                    .join(name),
            )
            .output()
            .expect("reading a veth counter");
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("counter {name}: {out:?}"))
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        // Deleting a namespace deletes its end of the veth, and the pair.
        let _ = ip(&["netns", "del", &self.srv]);
        let _ = ip(&["netns", "del", &self.cli]);
    }
}

/// Removes namespaces of earlier runs whose test process is gone.
fn sweep_stale() {
    let Ok(list) = ip(&["netns", "list"]) else {
        return;
    };
    for name in list.lines().filter_map(|l| l.split_whitespace().next()) {
        let Some(pid) = name
            .strip_prefix(PREFIX)
            .and_then(|r| r.rsplit('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = ip(&["netns", "del", name]);
        }
    }
}

const REMOTE_IDS: [&str; 7] = [
    "lat_udp/remote",
    "lat_rpc/remote_udp",
    "lat_rpc/remote_tcp",
    "lat_tcp/remote",
    "lat_connect/remote",
    "bw_tcp/remote_read/10m",
    "bw_tcp/remote_write/10m",
];

#[test]
fn remote_benches_cross_a_veth_pair() {
    if let Some(why) = cannot_run() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run the namespace test: {why}"
        );
        eprintln!("skipped remote_benches_cross_a_veth_pair: {why}");
        return;
    }
    let net = Netns::new().expect("setting up the namespaces");
    let srv = Served::start(
        &["ip", "netns", "exec", &net.srv],
        &[
            "--listen",
            &format!("{SERVER_IP}:0"),
            "--token",
            "veth-test",
        ],
    );
    assert!(srv.addr.starts_with(SERVER_IP), "{}", srv.addr);
    let before = ["rx_bytes", "tx_bytes", "rx_packets", "tx_packets"].map(|c| net.counter(c));
    let criterion_home = tempfile::tempdir().unwrap();
    // The remote benches, in Criterion's test mode, from the other side.
    let out = Command::new("ip")
        .args(["netns", "exec", &net.cli, "env"])
        .arg(format!("LMBENCH_REMOTE={}", srv.addr))
        .arg("LMBENCH_TOKEN=veth-test")
        .arg(format!(
            "CRITERION_HOME={}",
            criterion_home.path().display()
        ))
        .arg(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["test", "--offline", "--quiet"])
        .args([
            "--bench", "lat_udp", "--bench", "lat_rpc", "--bench", "lat_tcp",
        ])
        .args([
            "--bench",
            "lat_connect",
            "--bench",
            "bw_tcp",
            "--",
            "remote",
        ])
        .output()
        .expect("running the benches");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "benches failed:\n{stdout}\n{stderr}\nserver:\n{}",
        srv.log()
    );
    for id in REMOTE_IDS {
        assert!(
            stdout.contains(&format!("Testing {id}\nSuccess")),
            "{id} did not run:\n{stdout}\n{stderr}"
        );
    }
    let after = ["rx_bytes", "tx_bytes", "rx_packets", "tx_packets"].map(|c| net.counter(c));
    let d: Vec<u64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    // bw_tcp moved 10 MB each way untimed and 10 MB each way in its one
    // timed iteration; every round trip is a packet each way at least.
    assert!(d[0] >= 20 << 20, "server veth received only {} bytes", d[0]);
    assert!(d[1] >= 20 << 20, "server veth sent only {} bytes", d[1]);
    assert!(d[2] >= 100 && d[3] >= 100, "packets: {d:?}");
    // Each service was served over the veth, to the client's address.
    let log = srv.wait_log("sink on port");
    for svc in [
        "udp_echo", "rpc_udp", "rpc_tcp", "tcp_echo", "accept", "source", "sink",
    ] {
        assert!(
            log.contains(&format!("{CLIENT_IP}:")) && log.contains(&format!(": {svc} on port ")),
            "{svc} not served to {CLIENT_IP}:\n{log}"
        );
    }
    // The benches named the peer beside their results.
    let peer = std::fs::read_to_string(
        criterion_home
            .path()
            .join("lat_tcp/lmbench-remote-peer.json"),
    )
    .expect("the peer file");
    assert!(peer.contains(&srv.addr), "{peer}");
}
