//! `lmbench serve`: the far end of the remote benches. One process, one
//! thread, one client at a time: it accepts a control connection, answers
//! its requests (see `proto`), and serves each opened service until it
//! ends, then takes the next client. It binds only the address it is told
//! and, for services, the address the client reached it at, on ports the
//! kernel picks. It never runs a command, opens a file or sends more than
//! a client asked for (an echo, an RPC reply, the bytes a source was
//! ordered to send).
//!
//! Services run in plain blocking loops (read, then write the answer), as
//! the local echo peers do, so a remote round trip costs the server no
//! more system calls than a local one. Every blocking call wakes at least
//! once a second (SO_RCVTIMEO/SO_SNDTIMEO, poll timeouts) to notice a stop
//! signal, a client that sent its next request (the current service then
//! ends) or closed the session, or a service idle for too long.
//!
//! Bad input closes that connection with one log line on stderr; the
//! server goes on with the next client.

use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use socket2::{Domain, Protocol, Socket, Type};

use super::proto::{self, LineBuf, Reply, Request, Service};
use crate::rpc::{frame, serve_call, RecordBuf};

/// How often every blocking call wakes to look around.
const TICK: Duration = Duration::from_secs(1);
/// The socket buffers of the bandwidth services (as the local bw_tcp).
pub const BW_BUF: usize = 1 << 20;

/// What `lmbench serve` was told.
pub struct Config {
    /// The control port's address; nothing else is bound but services on
    /// the address a client reached.
    pub listen: SocketAddr,
    /// When set, a client's hello must present it.
    pub token: Option<String>,
    /// A session or service with no traffic for this long is closed.
    pub idle: Duration,
    /// The name and OS this server reports to clients (the summary names
    /// the peer with them).
    pub host: String,
    pub os: String,
}

/// The server: its control socket, bound and listening.
pub struct Server {
    listener: TcpListener,
    cfg: Config,
}

fn log(msg: impl std::fmt::Display) {
    eprintln!("lmbench serve: {msg}");
}

/// Waits until `fd` is readable (or hung up) for at most `ms`
/// milliseconds; false on timeout or signal.
fn poll_in(fd: impl std::os::fd::AsFd, ms: i32) -> io::Result<bool> {
    crate::ipc::wait_ready(
        fd,
        nix::poll::PollFlags::POLLIN,
        Duration::from_millis(ms.max(0) as u64),
    )
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
}

impl Server {
    /// Binds the control port (SO_REUSEADDR, so a restart finds it free).
    pub fn bind(cfg: Config) -> io::Result<Server> {
        let s = Socket::new(
            Domain::for_address(cfg.listen),
            Type::STREAM,
            Some(Protocol::TCP),
        )?;
        s.set_reuse_address(true)?;
        s.bind(&cfg.listen.into())
            .map_err(|e| io::Error::new(e.kind(), format!("cannot bind {}: {e}", cfg.listen)))?;
        s.listen(16)?;
        Ok(Server {
            listener: s.into(),
            cfg,
        })
    }

    /// The bound control address (the port, when 0 was asked for).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves clients one after another until `stop` is set.
    pub fn run(&self, stop: &AtomicBool) -> io::Result<()> {
        while !stop.load(Ordering::Relaxed) {
            if !poll_in(&self.listener, TICK.as_millis() as i32)? {
                continue;
            }
            let (ctl, peer) = match self.listener.accept() {
                Ok(c) => c,
                Err(e) => {
                    log(format_args!("accept on the control port: {e}"));
                    continue;
                }
            };
            log(format_args!("{peer}: session opened"));
            let why = match self.session(&ctl, peer, stop) {
                Ok(why) => why,
                Err(e) => format!("error: {e}"),
            };
            log(format_args!("{peer}: session closed ({why})"));
        }
        log("stopped");
        Ok(())
    }

    /// One client's session; returns why it ended.
    fn session(&self, ctl: &TcpStream, peer: SocketAddr, stop: &AtomicBool) -> io::Result<String> {
        ctl.set_read_timeout(Some(TICK))?;
        ctl.set_write_timeout(Some(Duration::from_secs(5)))?;
        let local_ip = ctl.local_addr()?.ip();
        let mut lines = LineBuf::default();
        let mut greeted = false;
        let mut last = Instant::now();
        let reply = |r: Reply| {
            let mut w = ctl;
            w.write_all(proto::format_reply(&r).as_bytes())
        };
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ok("server stopping".into());
            }
            let line = match read_line(ctl, &mut lines) {
                Ok(Some(l)) => l,
                Ok(None) => return Ok("client closed the connection".into()),
                Err(e) if is_timeout(&e) => {
                    if last.elapsed() >= self.cfg.idle {
                        return Ok(format!("idle for {:?}", self.cfg.idle));
                    }
                    continue;
                }
                Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                    let _ = reply(Reply::Err(&e.to_string()));
                    return Ok(format!("bad input: {e}"));
                }
                Err(e) => return Err(e),
            };
            last = Instant::now();
            let req = match proto::parse_request(&line) {
                Ok(r) => r,
                Err(e) => {
                    let _ = reply(Reply::Err(&e.to_string()));
                    return Ok(format!("bad input: {e}"));
                }
            };
            match req {
                Request::Hello { version, token } => {
                    if version != proto::VERSION {
                        let msg = format!(
                            "protocol version {version} not spoken here (this server speaks {})",
                            proto::VERSION
                        );
                        let _ = reply(Reply::Err(&msg));
                        return Ok(msg);
                    }
                    if let Some(want) = &self.cfg.token {
                        if !proto::token_matches(want, token) {
                            let _ = reply(Reply::Err(
                                "bad token (set LMBENCH_TOKEN to the server's --token)",
                            ));
                            return Ok("refused: bad or missing token".into());
                        }
                    }
                    greeted = true;
                    reply(Reply::Hello {
                        suite: env!("CARGO_PKG_VERSION"),
                        host: &self.cfg.host,
                        os: &self.cfg.os,
                    })?;
                }
                Request::Open(_) if !greeted => {
                    let _ = reply(Reply::Err("say hello first"));
                    return Ok("bad input: open before hello".into());
                }
                Request::Open(svc) => {
                    let ctx = Ctx {
                        ctl,
                        client_ip: peer.ip(),
                        stop,
                        idle: self.cfg.idle,
                    };
                    let opened = open(svc, local_ip);
                    let (port, endpoint) = match opened {
                        Ok(x) => x,
                        Err(e) => {
                            let _ = reply(Reply::Err(&format!("cannot open {svc}: {e}")));
                            return Ok(format!("cannot open {svc}: {e}"));
                        }
                    };
                    reply(Reply::Port(port))?;
                    let outcome = match serve(&ctx, endpoint) {
                        Ok(s) => s,
                        Err(e) => format!("error: {e}"),
                    };
                    log(format_args!("{peer}: {svc} on port {port}: {outcome}"));
                    last = Instant::now();
                }
                Request::Bye => {
                    let _ = reply(Reply::Bye);
                    return Ok("bye".into());
                }
            }
        }
    }
}

/// Reads until `lines` holds a complete line: `Ok(None)` at EOF, an
/// InvalidData error for a line over the limit.
fn read_line(mut s: &TcpStream, lines: &mut LineBuf) -> io::Result<Option<Vec<u8>>> {
    let invalid = |e: proto::ProtoError| io::Error::new(io::ErrorKind::InvalidData, e);
    loop {
        if let Some(l) = lines.next_line().map_err(invalid)? {
            return Ok(Some(l));
        }
        let mut buf = [0u8; proto::MAX_LINE];
        let room = lines.room();
        let n = s.read(&mut buf[..room])?;
        if n == 0 {
            return Ok(None);
        }
        lines.push(&buf[..n]).map_err(invalid)?;
    }
}

/// What a service needs to know of its session.
struct Ctx<'a> {
    ctl: &'a TcpStream,
    client_ip: IpAddr,
    stop: &'a AtomicBool,
    idle: Duration,
}

impl Ctx<'_> {
    /// Why the current service should end now, if it should: checked on
    /// every tick (never per message).
    fn should_end(&self, last: Instant) -> Option<String> {
        if self.stop.load(Ordering::Relaxed) {
            return Some("server stopping".into());
        }
        if poll_in(self.ctl, 0).unwrap_or(true) {
            return Some("client moved on".into());
        }
        if last.elapsed() >= self.idle {
            return Some(format!("idle for {:?}", self.idle));
        }
        None
    }
}

/// A service's socket, bound and (TCP) listening.
enum Endpoint {
    Udp(Service, UdpSocket),
    Tcp(Service, TcpListener),
}

/// Binds `svc` on `ip`, port 0; returns the port.
fn open(svc: Service, ip: IpAddr) -> io::Result<(u16, Endpoint)> {
    let addr = SocketAddr::new(ip, 0);
    let domain = Domain::for_address(addr);
    if svc.is_udp() {
        let s = Socket::new(domain, Type::DGRAM, Some(Protocol::UDP))?;
        s.bind(&addr.into())?;
        s.set_read_timeout(Some(TICK))?;
        let s: UdpSocket = s.into();
        Ok((s.local_addr()?.port(), Endpoint::Udp(svc, s)))
    } else {
        let s = Socket::new(domain, Type::STREAM, Some(Protocol::TCP))?;
        if matches!(svc, Service::Source | Service::Sink) {
            // Set before the connection exists, so the window scales.
            s.set_recv_buffer_size(BW_BUF)?;
            s.set_send_buffer_size(BW_BUF)?;
        }
        s.bind(&addr.into())?;
        s.listen(if svc == Service::Accept { 1024 } else { 1 })?;
        let s: TcpListener = s.into();
        Ok((s.local_addr()?.port(), Endpoint::Tcp(svc, s)))
    }
}

/// Serves one opened service until it ends; returns what happened.
fn serve(ctx: &Ctx, ep: Endpoint) -> io::Result<String> {
    match ep {
        Endpoint::Udp(svc, s) => datagrams(ctx, svc, &s),
        Endpoint::Tcp(Service::Accept, l) => accept_and_close(ctx, &l),
        Endpoint::Tcp(svc, l) => {
            let Some(conn) = accept_one(ctx, &l)? else {
                return Ok("no connection came".into());
            };
            drop(l);
            conn.set_read_timeout(Some(TICK))?;
            conn.set_write_timeout(Some(TICK))?;
            match svc {
                Service::TcpEcho => echo_stream(ctx, &conn),
                Service::RpcTcp => rpc_stream(ctx, &conn),
                Service::Source => source(ctx, &conn),
                _ => sink(ctx, &conn),
            }
        }
    }
}

/// The first connection from the client's address (others are closed).
fn accept_one(ctx: &Ctx, l: &TcpListener) -> io::Result<Option<TcpStream>> {
    let last = Instant::now();
    loop {
        if poll_in(l, TICK.as_millis() as i32)? {
            let (c, from) = l.accept()?;
            if from.ip() == ctx.client_ip {
                return Ok(Some(c));
            }
            log(format_args!("{from}: not this session's client, closed"));
            continue;
        }
        if ctx.should_end(last).is_some() {
            return Ok(None);
        }
    }
}

/// Writes all of `buf`, waiting out send timeouts (ticks) while the client
/// is there.
fn write_all(ctx: &Ctx, mut s: &TcpStream, mut buf: &[u8], last: &mut Instant) -> io::Result<()> {
    while !buf.is_empty() {
        match s.write(buf) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => {
                buf = &buf[n..];
                *last = Instant::now();
            }
            Err(e) if is_timeout(&e) => {
                if let Some(why) = ctx.should_end(*last) {
                    return Err(io::Error::new(io::ErrorKind::TimedOut, why));
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Reads what is there; `Ok(None)` when the service should end (tick with
/// a reason), `Ok(Some(0))` at EOF.
fn read_some(
    ctx: &Ctx,
    mut s: &TcpStream,
    buf: &mut [u8],
    last: &mut Instant,
) -> io::Result<Result<usize, String>> {
    loop {
        match s.read(buf) {
            Ok(n) => {
                *last = Instant::now();
                return Ok(Ok(n));
            }
            Err(e) if is_timeout(&e) => {
                if let Some(why) = ctx.should_end(*last) {
                    return Ok(Err(why));
                }
            }
            Err(e) => return Err(e),
        }
    }
}

fn echo_stream(ctx: &Ctx, s: &TcpStream) -> io::Result<String> {
    let mut buf = [0u8; 4096];
    let (mut last, mut bytes) = (Instant::now(), 0u64);
    loop {
        match read_some(ctx, s, &mut buf, &mut last)? {
            Ok(0) => return Ok(format!("echoed {bytes} bytes; client closed")),
            Ok(n) => {
                write_all(ctx, s, &buf[..n], &mut last)?;
                bytes += n as u64;
            }
            Err(why) => return Ok(format!("echoed {bytes} bytes; {why}")),
        }
    }
}

fn rpc_stream(ctx: &Ctx, s: &TcpStream) -> io::Result<String> {
    let mut buf = [0u8; 4096];
    let mut rb = RecordBuf::default();
    let (mut last, mut calls) = (Instant::now(), 0u64);
    loop {
        let n = match read_some(ctx, s, &mut buf, &mut last)? {
            Ok(0) => return Ok(format!("{calls} calls; client closed")),
            Ok(n) => n,
            Err(why) => return Ok(format!("{calls} calls; {why}")),
        };
        rb.push(&buf[..n]);
        loop {
            match rb.next_record() {
                Ok(Some(msg)) => {
                    if let Some(reply) = serve_call(&msg) {
                        write_all(ctx, s, &frame(&reply), &mut last)?;
                    }
                    calls += 1;
                }
                Ok(None) => break,
                Err(e) => return Ok(format!("{calls} calls; bad input: {e}; connection closed")),
            }
        }
    }
}

/// Sends what the client orders (8-byte counts), nothing more.
fn source(ctx: &Ctx, s: &TcpStream) -> io::Result<String> {
    let data = vec![0x5au8; 256 << 10];
    let mut order = [0u8; 64];
    let (mut pending, mut credit, mut sent) = (Vec::new(), 0u64, 0u64);
    let mut last = Instant::now();
    loop {
        if credit == 0 {
            match read_some(ctx, s, &mut order, &mut last)? {
                Ok(0) => return Ok(format!("sent {sent} bytes; client closed")),
                Ok(n) => {
                    if let Err(e) = proto::add_credit(&mut pending, &order[..n], &mut credit) {
                        return Ok(format!(
                            "sent {sent} bytes; bad input: {e}; connection closed"
                        ));
                    }
                }
                Err(why) => return Ok(format!("sent {sent} bytes; {why}")),
            }
            continue;
        }
        let n = credit.min(data.len() as u64) as usize;
        if let Err(e) = write_all(ctx, s, &data[..n], &mut last) {
            return Ok(format!("sent {sent} bytes; {e}"));
        }
        credit -= n as u64;
        sent += n as u64;
    }
}

fn sink(ctx: &Ctx, s: &TcpStream) -> io::Result<String> {
    let mut buf = vec![0u8; 1 << 20];
    let (mut last, mut got) = (Instant::now(), 0u64);
    loop {
        match read_some(ctx, s, &mut buf, &mut last)? {
            Ok(0) => return Ok(format!("read {got} bytes; client closed")),
            Ok(n) => got += n as u64,
            Err(why) => return Ok(format!("read {got} bytes; {why}")),
        }
    }
}

/// lat_connect's far end: accept, wait for the client's close, close with
/// a reset (SO_LINGER 0), so neither side keeps a TIME_WAIT socket (as the
/// local `lmbench-peer accept`).
fn accept_and_close(ctx: &Ctx, l: &TcpListener) -> io::Result<String> {
    let (mut last, mut conns) = (Instant::now(), 0u64);
    let mut buf = [0u8; 64];
    loop {
        if !poll_in(l, TICK.as_millis() as i32)? {
            if let Some(why) = ctx.should_end(last) {
                return Ok(format!("{conns} connections; {why}"));
            }
            continue;
        }
        let (c, from) = match l.accept() {
            Ok(c) => c,
            // The client may reset a connection before we accept it.
            Err(_) => continue,
        };
        last = Instant::now();
        let s = Socket::from(c);
        s.set_linger(Some(Duration::ZERO))?;
        if from.ip() != ctx.client_ip {
            continue;
        }
        s.set_read_timeout(Some(Duration::from_secs(2)))?;
        let c: TcpStream = s.into();
        while let Ok(n) = (&c).read(&mut buf) {
            if n == 0 {
                break;
            }
        }
        conns += 1;
    }
}

/// UDP echo and RPC over UDP: answers datagrams from the client's address
/// only (no reflection towards third parties); an empty datagram ends the
/// service.
fn datagrams(ctx: &Ctx, svc: Service, s: &UdpSocket) -> io::Result<String> {
    let mut buf = vec![0u8; 65536];
    let (mut last, mut count, mut strangers) = (Instant::now(), 0u64, 0u64);
    let end = |why: &str, count: u64, strangers: u64| {
        let also = if strangers > 0 {
            format!("; dropped {strangers} from other addresses")
        } else {
            String::new()
        };
        Ok(format!("{count} datagrams answered{also}; {why}"))
    };
    loop {
        let (n, from) = match s.recv_from(&mut buf) {
            Ok(x) => x,
            Err(e) if is_timeout(&e) => {
                if let Some(why) = ctx.should_end(last) {
                    return end(&why, count, strangers);
                }
                continue;
            }
            // An ICMP error left by an earlier datagram: not fatal.
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => continue,
            Err(e) => return Err(e),
        };
        if from.ip() != ctx.client_ip {
            strangers += 1;
            continue;
        }
        last = Instant::now();
        if n == 0 {
            return end("client ended the service", count, strangers);
        }
        let reply = match svc {
            Service::RpcUdp => serve_call(&buf[..n]),
            _ => Some(buf[..n].to_vec()),
        };
        if let Some(r) = reply {
            if let Err(e) = s.send_to(&r, from) {
                log(format_args!("{from}: {svc}: send: {e}"));
            }
        }
        count += 1;
    }
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

/// Installs SIGINT and SIGTERM handlers that set the returned flag. No
/// SA_RESTART: a blocking call returns EINTR and the loops look at once.
pub fn stop_on_signals() -> io::Result<&'static AtomicBool> {
    use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};
    let act = SigAction::new(
        SigHandler::Handler(on_stop),
        SaFlags::empty(),
        SigSet::empty(),
    );
    for sig in [Signal::SIGINT, Signal::SIGTERM] {
        // SAFETY: the handler only stores to an atomic (async-signal-safe).
        unsafe { sigaction(sig, &act) }.map_err(io::Error::from)?;
    }
    Ok(&STOP)
}
