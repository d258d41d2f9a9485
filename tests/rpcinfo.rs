//! Interop: our ONC RPC server (`lmbench-peer rpc`) answers Debian's
//! `rpcinfo` (package rpcbind), a client nobody here wrote, pinging program
//! 404040 version 1 (its NULL procedure) by address over TCP and UDP.
//!
//! Why `-a ADDRESS -T tcp|udp` and not `-n PORT -t|-u`: Debian's rpcinfo
//! (libtirpc) still asks the rpcbind daemon on port 111 first under `-n`,
//! and fails with "Connection refused" when no rpcbind runs (as in CI);
//! `-a` takes the server's universal address (`127.0.0.1.P1.P2`, port =
//! P1*256+P2) and needs no portmapper. `.ci/run` installs rpcbind;
//! with `CI` set a missing rpcinfo fails the test, otherwise it is skipped
//! with a note. Linux only: other systems' rpcinfo differ in options.
#![cfg(target_os = "linux")]

use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::process::Command;

use lmbench_support::ipc;

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

fn rpcinfo() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/bin"].map(PathBuf::from))
        .map(|d| d.join("rpcinfo"))
        .find(|p| p.is_file())
}

#[test]
fn rpcinfo_pings_our_server_over_tcp_and_udp() {
    let Some(rpcinfo) = rpcinfo() else {
        if std::env::var_os("CI").is_some() {
            panic!("rpcinfo not found but CI is set: install package rpcbind (.ci/run does)");
        }
        eprintln!("note: rpcinfo not found (package rpcbind); skipping the RPC interop test");
        return;
    };
    let (udp, udp_port) = ipc::udp_socket().unwrap();
    let (listener, tcp_port) = ipc::tcp_listener().unwrap();
    let _server =
        ipc::spawn_with_fds(PEER, &["rpc"], &[udp.as_raw_fd(), listener.as_raw_fd()]).unwrap();
    drop((udp, listener));
    for (transport, port) in [("tcp", tcp_port), ("udp", udp_port)] {
        let addr = uaddr(port);
        let out = Command::new(&rpcinfo)
            .args(["-a", &addr, "-T", transport, "404040", "1"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        println!("rpcinfo -a {addr} -T {transport} 404040 1: {}", text.trim());
        assert!(
            out.status.success() && text.contains("ready and waiting"),
            "rpcinfo -T {transport} failed: {} {text} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A version we do not serve: rpcinfo must report the mismatch we send.
    let out = Command::new(&rpcinfo)
        .args(["-a", &uaddr(tcp_port), "-T", "tcp", "404040", "2"])
        .output()
        .unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("rpcinfo ... 404040 2: {}", all.trim());
    assert!(!out.status.success(), "version 2 must not be ready: {all}");
}

/// An RPC universal address for 127.0.0.1:port (RFC 5665).
fn uaddr(port: u16) -> String {
    format!("127.0.0.1.{}.{}", port >> 8, port & 0xff)
}
