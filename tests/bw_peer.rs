//! The bandwidth writer peer (`lmbench-peer bw_write`): delivers what it
//! promises over a pipe, a socketpair and loopback TCP, and goes away
//! when its reader does.

use std::os::fd::AsRawFd;
use std::time::Duration;

use lmbench_support::bw;
use lmbench_support::child::alive;

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

#[test]
fn pipe_writer_delivers_and_exits_when_the_reader_closes() {
    let (rd, wr) = bw::pipe().unwrap();
    let mut guard = bw::spawn_writer(PEER, &["fd1", "65536"], Some(wr)).unwrap();
    let mut buf = vec![0u8; 65536];
    bw::read_total(rd.as_raw_fd(), &mut buf, 1 << 20).unwrap();
    assert!(buf.iter().all(|&b| b == 0x5a));
    drop(rd);
    // EPIPE ends the writer normally.
    let status = guard.wait_timeout(Duration::from_secs(10)).unwrap();
    assert!(status.success(), "writer exited with {status}");
}

#[test]
fn socketpair_writer_is_reaped_by_its_guard() {
    let (rd, wr) = bw::socketpair().unwrap();
    let guard = bw::spawn_writer(PEER, &["fd1", "4096"], Some(wr)).unwrap();
    let pid = guard.id();
    let mut buf = vec![0u8; 4096];
    bw::read_total(rd.as_raw_fd(), &mut buf, 100_000).unwrap();
    drop(guard);
    assert!(!alive(pid), "writer {pid} survived its guard");
}

#[test]
fn tcp_writer_connects_and_delivers() {
    let l = bw::tcp_listen(bw::TCP_BUF).unwrap();
    let port = l.local_addr().unwrap().port().to_string();
    let mut guard = bw::spawn_writer(PEER, &["tcp", &port, "65536", "1048576"], None).unwrap();
    let sock = bw::accept_within(&l, Duration::from_secs(10)).unwrap();
    let mut buf = vec![0u8; 65536];
    bw::read_total(sock.as_raw_fd(), &mut buf, 1 << 20).unwrap();
    drop(sock);
    let status = guard.wait_timeout(Duration::from_secs(10)).unwrap();
    assert!(status.success(), "writer exited with {status}");
}

#[test]
fn bad_arguments_fail_cleanly() {
    let mut guard = bw::spawn_writer(PEER, &["fd1", "zero"], None).unwrap();
    let status = guard.wait_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(status.code(), Some(1));
}
