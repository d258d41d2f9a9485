//! `lmbench serve` on loopback: every service answers a real client, and
//! bad input (an oversized line, garbage on the control port, a client
//! vanishing mid-transfer, a wrong token) closes that connection only,
//! with a log line; the server serves the next client, and the client
//! gets a clear error. SIGTERM stops it cleanly.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::time::Duration;

use common::serve::Served;
use common::*;
use lmbench_support::remote::client::{self, Session};
use lmbench_support::remote::proto::Service;
use lmbench_support::{bw, rpc};

fn start(args: &[&str]) -> Served {
    let mut a = vec!["--listen", "127.0.0.1:0", "--idle", "5"];
    a.extend_from_slice(args);
    Served::start(&[], &a)
}

/// A whole session with every service: what the remote benches do.
fn use_every_service(addr: &str, token: Option<&str>) {
    let mut s = Session::connect(addr, token).expect("session");
    assert!(
        !s.peer.host.is_empty() && !s.peer.os.is_empty(),
        "{:?}",
        s.peer
    );

    let echo = s.open_tcp(Service::TcpEcho, None).unwrap();
    for b in [7u8, 8] {
        (&echo).write_all(&[b]).unwrap();
        let mut got = [0u8];
        (&echo).read_exact(&mut got).unwrap();
        assert_eq!(got, [b]);
    }
    drop(echo);

    let udp = s
        .open_udp(Service::UdpEcho, client::UDP_RETRANSMIT)
        .unwrap();
    let mut resent = 0;
    client::udp_round_trips(&udp, 50, &mut resent).unwrap();
    client::end_udp(&udp);

    let u = s.open_udp(Service::RpcUdp, client::UDP_RETRANSMIT).unwrap();
    let mut c = rpc::Client::connected_udp(u.into()).unwrap();
    for i in 0..20u8 {
        c.call_char(i).unwrap();
    }
    let t = s.open_tcp(Service::RpcTcp, None).unwrap();
    let mut c = rpc::Client::connected_tcp(t.into()).unwrap();
    for i in 0..20u8 {
        c.call_char(i).unwrap();
    }
    drop(c);

    let at = s.open_accept().unwrap();
    for _ in 0..20 {
        client::connect_once(&at).unwrap();
    }

    let src = s.open_tcp(Service::Source, Some(bw::TCP_BUF)).unwrap();
    client::order(&src, 3 << 20).unwrap();
    let mut buf = vec![0u8; 1 << 20];
    bw::read_total(src.as_raw_fd(), &mut buf, 3 << 20).unwrap();
    drop(src);

    let sink = s.open_tcp(Service::Sink, Some(bw::TCP_BUF)).unwrap();
    client::write_total(sink.as_raw_fd(), &buf).unwrap();
    drop(sink);
    s.bye().unwrap();
}

#[test]
fn every_service_answers() {
    let srv = start(&[]);
    use_every_service(&srv.addr, None);
    let log = srv.wait_log("session closed (bye)");
    for svc in Service::ALL {
        assert!(log.contains(&format!(": {svc} on port ")), "{svc}: {log}");
    }
    assert!(log.contains("echoed 2 bytes"), "{log}");
    assert!(log.contains("sent 3145728 bytes"), "{log}");
    assert!(log.contains("read 1048576 bytes"), "{log}");
    assert!(log.contains("20 connections"), "{log}");
}

/// Sends raw bytes on a fresh control connection; returns the reply and
/// whether the server then closed the connection.
fn raw(addr: &str, bytes: &[u8]) -> (String, bool) {
    let mut c = TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    c.write_all(bytes).unwrap();
    let mut out = Vec::new();
    let closed = match c.read_to_end(&mut out) {
        Ok(_) => true,
        // The server may reset after refusing unread input.
        Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
    };
    (String::from_utf8_lossy(&out).into_owned(), closed)
}

#[test]
fn bad_input_closes_that_connection_only() {
    let srv = start(&[]);
    // An oversized line (no newline within the limit).
    let (reply, closed) = raw(&srv.addr, &[b'a'; 256]);
    assert!(
        reply.starts_with("err line longer than 256 bytes"),
        "{reply:?}"
    );
    assert!(closed);
    // Binary garbage, an HTTP request, a command before hello, a service
    // that does not exist.
    for (input, want) in [
        (
            &b"\x00\xff\xfe\x7f\n"[..],
            "err line is not printable ASCII",
        ),
        (b"GET / HTTP/1.1\r\n", "err unknown message \"GET\""),
        (b"open tcp_echo\n", "err say hello first"),
        (b"hello 1\nopen shell\n", "err bad arguments"),
        (b"hello 99\n", "err protocol version 99"),
    ] {
        let (reply, closed) = raw(&srv.addr, input);
        assert!(
            reply.lines().last().unwrap_or("").starts_with(want),
            "{input:?}: {reply:?}"
        );
        assert!(closed, "{input:?}");
    }
    srv.wait_log_count("bad input", 4);
    // The server is still there for a proper client.
    use_every_service(&srv.addr, None);
}

#[test]
fn a_client_vanishing_mid_transfer() {
    let srv = start(&[]);
    {
        let mut s = Session::connect(&srv.addr, None).unwrap();
        let src = s.open_tcp(Service::Source, Some(bw::TCP_BUF)).unwrap();
        client::order(&src, 512 << 20).unwrap();
        let mut buf = vec![0u8; 1 << 20];
        bw::read_total(src.as_raw_fd(), &mut buf, 4 << 20).unwrap();
        // Gone without a word: a reset, with 500 MB still ordered.
        socket2::SockRef::from(&src)
            .set_linger(Some(Duration::ZERO))
            .unwrap();
    }
    srv.wait_log("session closed");
    {
        let mut s = Session::connect(&srv.addr, None).unwrap();
        let sink = s.open_tcp(Service::Sink, Some(bw::TCP_BUF)).unwrap();
        client::write_total(sink.as_raw_fd(), &vec![1u8; 2 << 20]).unwrap();
        socket2::SockRef::from(&sink)
            .set_linger(Some(Duration::ZERO))
            .unwrap();
        drop(sink);
        let echo = s.open_tcp(Service::TcpEcho, None);
        // The sink ended with the reset; the next service opens.
        assert!(echo.is_ok(), "{echo:?}");
    }
    let log = srv.wait_log("tcp_echo on port");
    assert!(log.contains("source on port"), "{log}");
    assert!(log.contains("sink on port"), "{log}");
    use_every_service(&srv.addr, None);
}

#[test]
fn a_wrong_token_is_refused_clearly() {
    let srv = start(&["--token", "s3cret"]);
    for bad in [None, Some("nope"), Some("s3cre"), Some("s3cret2")] {
        let e = Session::connect(&srv.addr, bad).err().expect("refused");
        assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied, "{e}");
        assert!(e.to_string().contains("refused: bad token"), "{e}");
    }
    let log = srv.wait_log_count("refused: bad or missing token", 4);
    assert!(!log.contains("nope"), "the log must not echo tokens: {log}");
    use_every_service(&srv.addr, Some("s3cret"));
}

#[test]
fn an_absent_server_is_a_clear_error() {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    drop(l);
    let e = Session::connect(&addr, None).err().expect("no server");
    assert!(e.to_string().contains("cannot reach lmbench serve"), "{e}");
    let e = Session::connect("no-port-here", None)
        .err()
        .expect("bad spec");
    assert!(e.to_string().contains("LMBENCH_REMOTE"), "{e}");
}

#[test]
fn sigterm_stops_it_cleanly() {
    let mut srv = start(&[]);
    let s = Session::connect(&srv.addr, None).unwrap();
    lmbench_support::sys::kill(srv.guard.id() as libc::pid_t, libc::SIGTERM).unwrap();
    let st = srv.guard.wait_timeout(Duration::from_secs(5)).unwrap();
    assert!(st.success(), "{st}");
    assert!(srv
        .wait_log("stopped")
        .contains("session closed (server stopping)"));
    drop(s);
}

#[test]
fn it_listens_only_where_told() {
    let env = Env::new();
    let o = env.lmbench(&["serve", "--listen", "7000"]);
    common::refused_by_parser(&o, "invalid value '7000' for '--listen");
    let o = env.lmbench(&["serve", "--listen", "127.0.0.1:1", "--token", "two words"]);
    common::refused_by_parser(&o, "bad token");
    let o = env.lmbench(&["serve"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--listen"), "{}", stderr(&o));
}
