//! The peers of the communication benches: they echo, they die with a
//! clear error on our side (never a hang), and the RPC server survives
//! garbage.

use std::os::fd::{AsFd, AsRawFd};
use std::time::{Duration, Instant};

use lmbench_support::catalog::{lat_pipe, lat_tcp};
use lmbench_support::child::{alive, Peer};
use lmbench_support::harness::check;
use lmbench_support::ipc;
use lmbench_support::peer::ctx::Paired;
use lmbench_support::stall::Stall;
use lmbench_support::{rpc, sys};

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

/// Runs `body` (a bench's check of a timed loop) and returns its panic message.
fn panic_message(body: impl FnOnce()) -> String {
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body))
        .expect_err("the bench must fail");
    err.downcast_ref::<String>().cloned().unwrap_or_default()
}

#[test]
fn killed_tcp_peer_fails_the_bench_quickly_with_its_id() {
    let (ours, theirs) = ipc::tcp_pair().unwrap();
    let peer = ipc::spawn_with_fds(PEER, &["echo"], &[theirs.as_raw_fd()]).unwrap();
    drop(theirs);
    let fd = ours.as_fd();
    ipc::set_recv_timeout(fd, ipc::ANSWER_TIMEOUT).unwrap();
    ipc::echo_loop(fd, fd, 1, 100, None).unwrap();
    sys::kill(peer.id() as i32, libc::SIGKILL).unwrap();
    let start = Instant::now();
    let msg = panic_message(|| {
        // A long interval: the kill lands in the middle of it.
        check(
            &lat_tcp::TCP,
            "round trip",
            ipc::echo_loop(fd, fd, 1, u64::MAX, None),
        );
    });
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(msg.starts_with("lat_tcp/tcp: "), "{msg}");
}

#[test]
fn stopped_pipe_peer_fails_the_bench_by_its_deadline() {
    let (req_r, req_w) = ipc::pipe().unwrap();
    let (ans_r, ans_w) = ipc::pipe().unwrap();
    let peer = ipc::spawn_with_fds(
        PEER,
        &["echo", "split"],
        &[req_r.as_raw_fd(), ans_w.as_raw_fd()],
    )
    .unwrap();
    drop((req_r, ans_w));
    let deadline = Stall::new().unwrap();
    let (w, r) = (req_w.as_fd(), ans_r.as_fd());
    ipc::echo_loop(w, r, 1, 100, Some(&deadline)).unwrap();
    // A peer that stops answering (SIGSTOP) rather than dying.
    sys::kill(peer.id() as i32, libc::SIGSTOP).unwrap();
    let start = Instant::now();
    let msg = panic_message(|| {
        check(
            &lat_pipe::PIPE,
            "round trip",
            ipc::echo_loop(w, r, 1, u64::MAX, Some(&deadline)),
        );
    });
    // The deadline ticks every 3 s; the answer then gets 3 s more.
    assert!(start.elapsed() < Duration::from_secs(8));
    assert!(msg.starts_with("lat_pipe/pipe: "), "{msg}");
    assert!(msg.contains("no answer within"), "{msg}");
    let pid = peer.id();
    drop(peer);
    assert!(!alive(pid));
}

#[test]
fn ctx_ring_member_death_is_an_error() {
    let mut ring = Peer::spawn(PEER, &["ctx", "4", "0"]).unwrap();
    let t = Duration::from_secs(10);
    assert!(ring.call("ping", t).unwrap().starts_with("pong"));
    ring.call_u64("run 100", t).unwrap();
    // Kill one member (a child of the ring's driver).
    let children = std::fs::read_to_string(format!("/proc/{0}/task/{0}/children", ring.pid()));
    let Ok(children) = children else {
        return; // no /proc children list (not Linux): nothing more to check
    };
    let member: i32 = children.split_whitespace().next().unwrap().parse().unwrap();
    sys::kill(member, libc::SIGKILL).unwrap();
    let start = Instant::now();
    assert!(ring.call_u64("run 1000000000", t).is_err());
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[test]
fn ctx_pair_returns_a_ring_and_its_own_overhead() {
    let t = Duration::from_secs(10);
    let mut ring = Peer::spawn(PEER, &["ctx", "3", "16"]).unwrap();
    let reply = ring.call("pair 5 3", t).unwrap();
    let pair = Paired::parse(&reply, 3, 5, 3).unwrap();
    // 3 rounds of 5 trips of 3 hand-offs, and as many overhead passes.
    assert_eq!(pair.hops, 45);
    assert!(pair.ring_ns > 0 && pair.overhead_ns > 0, "{reply}");
    assert!(pair.switch_ns().is_finite());
    for bad in ["pair 0 1", "pair 1 0", "pair 1", "pair x 1"] {
        assert!(ring.call(bad, t).is_err(), "{bad} accepted");
    }
    // The peer still serves after refusing.
    Paired::parse(&ring.call("pair 1 1", t).unwrap(), 3, 1, 1).unwrap();
    // A ring of one has no switch to pair.
    let mut alone = Peer::spawn(PEER, &["ctx", "1", "0"]).unwrap();
    assert!(alone.call("pair 1 1", t).is_err());
}

#[test]
fn floor_chases_a_chain_of_each_shape_and_refuses_bad_ones() {
    let t = Duration::from_secs(10);
    let file = tempfile::NamedTempFile::new().unwrap();
    let path = file.path().to_str().unwrap();
    let mut floor = Peer::spawn(PEER, &["floor", path]).unwrap();
    for shape in ["thrash", "page", "inpage"] {
        // The first request builds the chain (and checks it is a cycle);
        // the next reuse it. Each answers the fastest chunk times N.
        for n in [1, 40_000] {
            let ns: u64 = floor
                .call(&format!("chase {n} {shape} 64k"), t)
                .unwrap()
                .parse()
                .unwrap();
            assert!(ns > 0, "{shape} {n}");
        }
    }
    for bad in [
        "chase 1 spiral 64k",
        "chase 1 thrash 4k",
        "chase 1 thrash 1x",
        "chase 1 thrash",
    ] {
        assert!(floor.call(bad, t).is_err(), "{bad} accepted");
    }
    assert!(
        floor.call("chase 10 inpage 16k", t).is_ok(),
        "serves after refusing"
    );
}

#[test]
fn ctx_ring_members_are_reaped() {
    let mut ring = Peer::spawn(PEER, &["ctx", "3", "16"]).unwrap();
    ring.call_u64("run 10", Duration::from_secs(10)).unwrap();
    let Ok(children) = std::fs::read_to_string(format!("/proc/{0}/task/{0}/children", ring.pid()))
    else {
        return;
    };
    let members: Vec<u32> = children
        .split_whitespace()
        .map(|s| s.parse().unwrap())
        .collect();
    assert_eq!(members.len(), 2);
    let driver = ring.pid();
    drop(ring);
    // SIGKILLed driver: members die by PDEATHSIG (asynchronously).
    let deadline = Instant::now() + Duration::from_secs(5);
    while members.iter().any(|&m| alive(m) && !zombie(m)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!alive(driver));
    assert!(
        members.iter().all(|&m| !alive(m) || zombie(m)),
        "ring members survived"
    );
}

#[test]
fn line_probe_times_adds_beside_its_partner_and_dies_with_it() {
    let t = Duration::from_secs(10);
    for bad in [
        vec!["line"],
        vec!["line", "12"],
        vec!["line", "8k"],
        vec!["line", "0"],
    ] {
        let mut p = Peer::spawn(PEER, &bad).unwrap();
        assert!(p.call("ping", t).is_err(), "{bad:?} accepted");
    }
    let mut probe = Peer::spawn(PEER, &["line", "8"]).unwrap();
    let cpus = lmbench_support::kpath::allowed_cpus().unwrap().len();
    let reply = probe.call("run 1000", t);
    if cpus < 2 || !cfg!(target_os = "linux") {
        let err = reply.unwrap_err().to_string();
        assert!(err.contains(lmbench_support::peer::UNAVAILABLE), "{err}");
        return;
    }
    // Each request waits for the partner's first add and checks that each
    // word moved by exactly the adds made; a second request reuses the
    // pair. Where the two CPUs never contend across cores meanwhile (two
    // hyperthreads of one core, or a CPU this test's neighbours keep
    // busy), the probe gives that reason instead of a figure.
    let figure_or_reason = |reply: std::io::Result<String>| match reply {
        Ok(ns) => assert!(ns.parse::<u64>().unwrap() > 0, "{ns}"),
        Err(e) => assert!(e.to_string().contains("contending across cores"), "{e}"),
    };
    figure_or_reason(reply);
    figure_or_reason(probe.call("run 20000", t));
    assert!(probe.call("run x", t).is_err());
    figure_or_reason(probe.call("run 10", t));
    let children =
        std::fs::read_to_string(format!("/proc/{0}/task/{0}/children", probe.pid())).unwrap();
    let partner: u32 = children.trim().parse().unwrap();
    let driver = probe.pid();
    drop(probe);
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(partner) && !zombie(partner) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!alive(driver));
    assert!(!alive(partner) || zombie(partner), "the partner survived");
}

/// A zombie whose parent died is reparented and reaped by init; until
/// then it holds no resources.
fn zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(false)
}

#[test]
fn rpc_server_survives_garbage_and_truncated_records() {
    let (udp, udp_port) = ipc::udp_socket().unwrap();
    let (listener, tcp_port) = ipc::tcp_listener().unwrap();
    let server =
        ipc::spawn_with_fds(PEER, &["rpc"], &[udp.as_raw_fd(), listener.as_raw_fd()]).unwrap();
    drop((udp, listener));

    // UDP garbage and a truncated call: dropped, no crash.
    let (junk, _) = ipc::udp_socket().unwrap();
    ipc::connect(&junk, udp_port).unwrap();
    for msg in [
        &b"garbage!"[..],
        &[0u8; 3],
        &rpc::encode_call(1, rpc::PROG, 1, 1, &[])[..20],
    ] {
        sys::write(junk.as_raw_fd(), msg).unwrap();
    }
    // TCP: an oversized record header, then a truncated record and hang-up.
    let big = ipc::tcp_connect(tcp_port).unwrap();
    sys::write(big.as_raw_fd(), &0xffff_ffffu32.to_be_bytes()).unwrap();
    let cut = ipc::tcp_connect(tcp_port).unwrap();
    let framed = rpc::frame(&rpc::encode_call(1, rpc::PROG, 1, 1, &rpc::xdr_char(1)));
    sys::write(cut.as_raw_fd(), &framed[..10]).unwrap();
    drop(cut);
    // A well-framed call with bad arguments gets GARBAGE_ARGS, not silence.
    let bad = ipc::tcp_connect(tcp_port).unwrap();
    ipc::set_recv_timeout(&bad, Duration::from_secs(3)).unwrap();
    sys::write(
        bad.as_raw_fd(),
        &rpc::frame(&rpc::encode_call(9, rpc::PROG, 1, 1, &[1])),
    )
    .unwrap();
    let mut buf = [0u8; 64];
    let n = sys::read(bad.as_raw_fd(), &mut buf).unwrap();
    assert_eq!(n, 4 + 24);
    assert_eq!(
        u32::from_be_bytes(buf[4 + 20..4 + 24].try_into().unwrap()),
        rpc::GARBAGE_ARGS
    );

    // Still serving both transports.
    assert!(alive(server.id()));
    let mut u = rpc::Client::udp(udp_port).unwrap();
    let mut t = rpc::Client::tcp(tcp_port).unwrap();
    for c in [0u8, b'a', 255] {
        u.call_char(c).unwrap();
        t.call_char(c).unwrap();
    }
    drop(big);
}
