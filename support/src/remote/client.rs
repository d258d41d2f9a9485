//! The benches' side of `lmbench serve`: a control session, and the data
//! sockets and timed loops of the remote modes. Setup (resolving, the
//! session, connecting) happens before timing; the loops make only the
//! system calls their local twins make.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use socket2::{Domain, Protocol, SockAddr, Socket, Type};

use super::proto::{self, LineBuf, Reply, Request, Service};
use crate::{ipc, sys};

/// The variable naming the peer: `HOST:PORT` of `lmbench serve`.
pub const REMOTE_ENV: &str = "LMBENCH_REMOTE";
/// The shared token, when the server was started with one.
pub const TOKEN_ENV: &str = "LMBENCH_TOKEN";

/// How long connecting and each control answer may take.
const CONTROL_TIMEOUT: Duration = Duration::from_secs(10);
/// A UDP round trip unanswered this long is sent again (and counted).
pub const UDP_RETRANSMIT: Duration = Duration::from_millis(100);

/// The peer as it introduced itself: what the summary names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeerInfo {
    /// What LMBENCH_REMOTE said, and the address it resolved to.
    pub spec: String,
    pub addr: String,
    pub host: String,
    pub os: String,
    /// The server's lmbench-rs version.
    pub suite: String,
}

impl std::fmt::Display for PeerInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({}) at {}, lmbench-rs {}",
            self.host, self.os, self.addr, self.suite
        )
    }
}

/// LMBENCH_REMOTE, if set and not empty.
pub fn remote_from_env() -> Option<String> {
    std::env::var(REMOTE_ENV)
        .ok()
        .filter(|s| !s.trim().is_empty())
}

/// A control session with `lmbench serve`.
pub struct Session {
    ctl: TcpStream,
    lines: LineBuf,
    peer_addr: SocketAddr,
    pub peer: PeerInfo,
}

fn refused(msg: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, msg.to_string())
}

impl Session {
    /// Connects to `spec` (HOST:PORT) and says hello, with `token` if given.
    pub fn connect(spec: &str, token: Option<&str>) -> io::Result<Session> {
        let addrs: Vec<SocketAddr> = spec
            .to_socket_addrs()
            .map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{REMOTE_ENV}={spec:?} is not a reachable HOST:PORT ({e})"),
                )
            })?
            .collect();
        let mut last = io::Error::new(
            io::ErrorKind::NotFound,
            format!("{spec} resolved to nothing"),
        );
        for a in addrs {
            match TcpStream::connect_timeout(&a, CONTROL_TIMEOUT) {
                Ok(ctl) => return Session::hello(ctl, a, spec, token),
                Err(e) => {
                    last = io::Error::new(
                        e.kind(),
                        format!("cannot reach lmbench serve at {a} ({REMOTE_ENV}={spec}): {e}"),
                    )
                }
            }
        }
        Err(last)
    }

    fn hello(
        ctl: TcpStream,
        a: SocketAddr,
        spec: &str,
        token: Option<&str>,
    ) -> io::Result<Session> {
        ctl.set_read_timeout(Some(CONTROL_TIMEOUT))?;
        ctl.set_write_timeout(Some(CONTROL_TIMEOUT))?;
        ctl.set_nodelay(true)?;
        let mut s = Session {
            ctl,
            lines: LineBuf::default(),
            peer_addr: a,
            peer: PeerInfo {
                spec: spec.to_string(),
                addr: a.to_string(),
                host: String::new(),
                os: String::new(),
                suite: String::new(),
            },
        };
        let line = s.request(&Request::Hello {
            version: proto::VERSION,
            token,
        })?;
        match proto::parse_reply(&line) {
            Ok(Reply::Hello { suite, host, os }) => {
                s.peer.host = host.to_string();
                s.peer.os = os.to_string();
                s.peer.suite = suite.to_string();
                Ok(s)
            }
            Ok(Reply::Err(m)) => Err(refused(format!("lmbench serve at {a} refused: {m}"))),
            other => Err(bad_reply(a, &line, other.err())),
        }
    }

    fn request(&mut self, r: &Request) -> io::Result<Vec<u8>> {
        self.ctl.write_all(proto::format_request(r).as_bytes())?;
        loop {
            let next = self
                .lines
                .next_line()
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
            if let Some(l) = next {
                return Ok(l);
            }
            let mut buf = [0u8; proto::MAX_LINE];
            let room = self.lines.room();
            let n = self.ctl.read(&mut buf[..room]).map_err(|e| {
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) {
                    io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!(
                            "lmbench serve at {} did not answer within {CONTROL_TIMEOUT:?}",
                            self.peer_addr
                        ),
                    )
                } else {
                    e
                }
            })?;
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("lmbench serve at {} closed the session", self.peer_addr),
                ));
            }
            self.lines
                .push(&buf[..n])
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        }
    }

    /// Opens `svc` on the server; returns the address to use.
    pub fn open(&mut self, svc: Service) -> io::Result<SocketAddr> {
        let line = self.request(&Request::Open(svc))?;
        match proto::parse_reply(&line) {
            Ok(Reply::Port(p)) => Ok(SocketAddr::new(self.peer_addr.ip(), p)),
            Ok(Reply::Err(m)) => Err(refused(format!(
                "lmbench serve at {} cannot open {svc}: {m}",
                self.peer_addr
            ))),
            other => Err(bad_reply(self.peer_addr, &line, other.err())),
        }
    }

    /// Opens a TCP service and connects to it (buffers set before the
    /// connection, for the bandwidth services).
    pub fn open_tcp(&mut self, svc: Service, bufsize: Option<usize>) -> io::Result<TcpStream> {
        let at = self.open(svc)?;
        let s = Socket::new(Domain::for_address(at), Type::STREAM, Some(Protocol::TCP))?;
        if let Some(b) = bufsize {
            s.set_recv_buffer_size(b)?;
            s.set_send_buffer_size(b)?;
        }
        s.connect_timeout(&at.into(), CONTROL_TIMEOUT)?;
        let s: TcpStream = s.into();
        ipc::set_recv_timeout(&s, ipc::ANSWER_TIMEOUT)?;
        Ok(s)
    }

    /// Opens a UDP service; returns a socket connected to it whose reads
    /// time out after `timeout`.
    pub fn open_udp(&mut self, svc: Service, timeout: Duration) -> io::Result<UdpSocket> {
        let at = self.open(svc)?;
        let any: SocketAddr = if at.is_ipv4() {
            (std::net::Ipv4Addr::UNSPECIFIED, 0).into()
        } else {
            (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
        };
        let s = UdpSocket::bind(any)?;
        s.connect(at)?;
        s.set_read_timeout(Some(timeout))?;
        Ok(s)
    }

    /// Where `Accept` was opened: the socket address to connect to.
    pub fn open_accept(&mut self) -> io::Result<SockAddr> {
        Ok(self.open(Service::Accept)?.into())
    }

    /// Ends the session politely.
    pub fn bye(mut self) -> io::Result<()> {
        let line = self.request(&Request::Bye)?;
        match proto::parse_reply(&line) {
            Ok(Reply::Bye) => Ok(()),
            other => Err(bad_reply(self.peer_addr, &line, other.err())),
        }
    }
}

fn bad_reply(at: SocketAddr, line: &[u8], e: Option<proto::ProtoError>) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "lmbench serve at {at} answered {:?}{}",
            String::from_utf8_lossy(&line[..line.len().min(80)]),
            e.map_or(String::new(), |e| format!(" ({e})"))
        ),
    )
}

/// Ends a UDP service at once (an empty datagram); if it is lost, the
/// server ends it within a second of the next request anyway.
pub fn end_udp(s: &UdpSocket) {
    let _ = s.send(&[]);
}

/// The timed loop of `lat_udp` remote: `iters` round trips of a 4-byte
/// sequence number. An answer with another number (a late echo of a
/// resent datagram) is skipped; a datagram unanswered for the socket's
/// read timeout is sent again and counted in `resent`; after
/// [`ipc::ANSWER_TIMEOUT`] without an answer the loop fails.
pub fn udp_round_trips(s: &UdpSocket, iters: u64, resent: &mut u64) -> io::Result<Duration> {
    let fd = s.as_raw_fd();
    let max_tries = (ipc::ANSWER_TIMEOUT.as_millis() / UDP_RETRANSMIT.as_millis()).max(1) as u32;
    let mut buf = [0u8; 16];
    let start = Instant::now();
    for seq in 0..iters {
        let msg = (seq as u32).to_le_bytes();
        sys::write(fd, &msg)?;
        let mut tries = 0;
        loop {
            match sys::read(fd, &mut buf) {
                Ok(4) if buf[..4] == msg => break,
                Ok(_) => continue,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    tries += 1;
                    if tries >= max_tries {
                        return Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            format!("no echo within {:?}", ipc::ANSWER_TIMEOUT),
                        ));
                    }
                    *resent += 1;
                    sys::write(fd, &msg)?;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }
    Ok(start.elapsed())
}

/// One connection set-up of `lat_connect` remote: socket(2), connect(2),
/// close(2), as the local loop.
#[inline]
pub fn connect_once(at: &SockAddr) -> io::Result<()> {
    let s = Socket::new(at.domain(), Type::STREAM, None)?;
    s.connect(at)?;
    drop(s);
    Ok(())
}

/// Orders `n` more bytes from a source connection.
pub fn order(s: &TcpStream, n: u64) -> io::Result<()> {
    let mut w = s;
    w.write_all(&proto::encode_credit(n))
}

/// Writes all of `buf` (the sink direction of bw_tcp remote).
#[inline]
pub fn write_total(fd: std::os::fd::RawFd, buf: &[u8]) -> io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        done += sys::write(fd, &buf[done..])?;
    }
    Ok(())
}
