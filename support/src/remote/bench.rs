//! The Criterion bodies of the remote modes, one per service, shared by the
//! five bench files. Each opens its service on the session (untimed),
//! checks one operation untimed, then times the same loop shape as its
//! local twin: one thread, no allocation, every failure panics with the
//! metric id. The data socket is closed at the end, which ends the
//! service on the server.

use std::os::fd::AsRawFd;
use std::time::Instant;

use super::client::{self, PeerInfo, Session, REMOTE_ENV, TOKEN_ENV, UDP_RETRANSMIT};
use super::proto::Service;
use crate::bw::{self, kernels::Buf};
use crate::catalog::{Metric, Program};
use crate::harness::{check, failed, Group};
use crate::{ipc, sys};

/// The session for `program`'s remote `metrics`, or `None` after declaring
/// each of them skipped because LMBENCH_REMOTE is not set. A peer that is
/// named but cannot be reached fails the bench: a configured remote run
/// must not quietly become a local one.
pub fn session(g: &mut Group, program: &Program, metrics: &[&'static Metric]) -> Option<Session> {
    let Some(spec) = client::remote_from_env() else {
        for m in metrics {
            g.skip(
                m,
                format_args!("{REMOTE_ENV} is not set (HOST:PORT of a running `lmbench serve`)"),
            );
        }
        return None;
    };
    let token = std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty());
    let s = check(
        metrics[0],
        "remote peer",
        Session::connect(&spec, token.as_deref()),
    );
    record_peer(program, &s.peer);
    Some(s)
}

/// Where Criterion writes this program's results (the harness's one
/// lookup of Criterion's home).
fn criterion_dir(program: &Program) -> std::path::PathBuf {
    crate::harness::criterion_home().join(program.name)
}

/// Writes who the peer was beside the program's results, so `lmbench
/// summary` and `save` can name it. A failure is reported, not fatal.
fn record_peer(program: &Program, peer: &PeerInfo) {
    let dir = criterion_dir(program);
    let write = || -> std::io::Result<()> {
        let json = serde_json::to_vec_pretty(peer).map_err(std::io::Error::other)?;
        crate::atomic_file::write_atomic(&dir.join(super::PEER_FILE), &json)
    };
    if let Err(e) = write() {
        eprintln!(
            "{}: cannot record the remote peer in {}: {e}",
            program.name,
            dir.display()
        );
    }
}

/// lat_tcp remote: 1-byte round trips on a TCP connection to the echo.
pub fn tcp_echo(g: &mut Group, m: &'static Metric, s: &mut Session) {
    let conn = check(m, "open tcp_echo", s.open_tcp(Service::TcpEcho, None));
    let fd = conn.as_raw_fd();
    let trip = |seq: u64| -> std::io::Result<()> {
        let msg = [seq as u8];
        let mut got = [0u8; 1];
        if sys::write(fd, &msg)? != 1 {
            return Err(std::io::Error::other("short write"));
        }
        match sys::read(fd, &mut got) {
            Ok(1) if got == msg => Ok(()),
            Ok(0) => Err(std::io::Error::other("the server closed the connection")),
            Ok(_) => Err(std::io::Error::other(format!(
                "echo {got:?} differs from {msg:?}"
            ))),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Err(std::io::Error::other(
                format!("no echo within {:?}", ipc::ANSWER_TIMEOUT),
            )),
            Err(e) => Err(e),
        }
    };
    check(m, "untimed round trip", trip(0));
    g.bench(m, |iters| {
        let start = Instant::now();
        for i in 0..iters {
            if let Err(e) = trip(i) {
                failed(m, e);
            }
        }
        start.elapsed()
    });
}

/// lat_udp remote: 4-byte sequence numbers, resent after 100 ms.
pub fn udp_echo(g: &mut Group, m: &'static Metric, s: &mut Session) {
    let sock = check(
        m,
        "open udp_echo",
        s.open_udp(Service::UdpEcho, UDP_RETRANSMIT),
    );
    let mut resent = 0u64;
    check(
        m,
        "untimed round trip",
        client::udp_round_trips(&sock, 1, &mut resent),
    );
    g.bench(m, |iters| {
        check(
            m,
            "round trip",
            client::udp_round_trips(&sock, iters, &mut resent),
        )
    });
    client::end_udp(&sock);
    if resent > 0 {
        eprintln!(
            "{}: {resent} datagrams were sent again after 100 ms without an echo",
            m.id
        );
    }
}

/// lat_rpc remote: the same client as the local bench, over UDP then TCP.
pub fn rpc(g: &mut Group, over_udp: &'static Metric, over_tcp: &'static Metric, s: &mut Session) {
    let udp = check(
        over_udp,
        "open rpc_udp",
        s.open_udp(Service::RpcUdp, UDP_RETRANSMIT),
    );
    let udp = check(
        over_udp,
        "RPC client",
        crate::rpc::Client::connected_udp(udp.into()),
    );
    rpc_calls(g, over_udp, udp);
    let tcp = check(over_tcp, "open rpc_tcp", s.open_tcp(Service::RpcTcp, None));
    let tcp = check(
        over_tcp,
        "RPC client",
        crate::rpc::Client::connected_tcp(tcp.into()),
    );
    rpc_calls(g, over_tcp, tcp);
}

fn rpc_calls(g: &mut Group, m: &'static Metric, mut client: crate::rpc::Client) {
    check(m, "untimed call", client.call_char(b'!'));
    g.bench(m, |iters| {
        let start = Instant::now();
        for i in 0..iters {
            if let Err(e) = client.call_char(i as u8) {
                failed(m, e);
            }
        }
        start.elapsed()
    });
    if client.retransmissions > 0 {
        eprintln!(
            "{}: {} UDP calls were sent again after 100 ms without an answer",
            m.id, client.retransmissions
        );
    }
}

/// lat_connect remote: socket + connect + close against accept-and-close.
pub fn connect(g: &mut Group, m: &'static Metric, s: &mut Session) {
    let at = check(m, "open accept", s.open_accept());
    check(m, "untimed connect", client::connect_once(&at));
    g.bench(m, |iters| {
        let start = Instant::now();
        for _ in 0..iters {
            if let Err(e) = client::connect_once(&at) {
                failed(m, format_args!("connect to {:?}: {e}", at.as_socket()));
            }
        }
        start.elapsed()
    });
}

/// bw_tcp remote, reading: each iteration orders the next 10 MB (one
/// order ahead, so the server never waits) and reads 10 MB.
pub fn bw_read(g: &mut Group, m: &'static Metric, s: &mut Session) {
    let conn = check(
        m,
        "open source",
        s.open_tcp(Service::Source, Some(bw::TCP_BUF)),
    );
    let fd = conn.as_raw_fd();
    let mut buf = check(m, "buffer", Buf::new(bw::MOVE, 0));
    let buf = buf.as_bytes_mut();
    check(m, "order", client::order(&conn, 2 * bw::MOVE as u64));
    check(m, "untimed transfer", bw::read_total(fd, buf, bw::MOVE));
    g.bench(m, |iters| {
        let t = Instant::now();
        for _ in 0..iters {
            if let Err(e) = client::order(&conn, bw::MOVE as u64) {
                failed(m, e);
            }
            if let Err(e) = bw::read_total(fd, buf, bw::MOVE) {
                failed(m, e);
            }
        }
        t.elapsed()
    });
}

/// bw_tcp remote, writing: 10 MB written per iteration to the sink.
pub fn bw_write(g: &mut Group, m: &'static Metric, s: &mut Session) {
    let conn = check(m, "open sink", s.open_tcp(Service::Sink, Some(bw::TCP_BUF)));
    let fd = conn.as_raw_fd();
    let mut buf = check(m, "buffer", Buf::new(bw::MOVE, 0));
    let buf = buf.as_bytes_mut();
    buf.fill(0x5a);
    let buf = &*buf;
    check(m, "untimed transfer", client::write_total(fd, buf));
    g.bench(m, |iters| {
        let t = Instant::now();
        for _ in 0..iters {
            if let Err(e) = client::write_total(fd, buf) {
                failed(m, e);
            }
        }
        t.elapsed()
    });
}
