//! The services a client opens: each bound on a port the kernel picks,
//! served in a plain blocking loop until it ends (the client moved on or
//! went idle, or the server is stopping), checked once a tick.

use std::io::{self, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use socket2::{Domain, Protocol, Socket, Type};

use super::proto::{self, Service};
use super::{is_timeout, log, poll_in, BW_BUF, TICK};
use crate::rpc::{frame, serve_call, RecordBuf};

/// What a service needs to know of its session.
pub(super) struct Ctx<'a> {
    pub(super) ctl: &'a TcpStream,
    pub(super) client_ip: IpAddr,
    pub(super) stop: &'a AtomicBool,
    pub(super) idle: Duration,
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
pub(super) enum Endpoint {
    Udp(Service, UdpSocket),
    Tcp(Service, TcpListener),
}

/// Binds `svc` on `ip`, port 0; returns the port.
pub(super) fn open(svc: Service, ip: IpAddr) -> io::Result<(u16, Endpoint)> {
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
pub(super) fn serve(ctx: &Ctx, ep: Endpoint) -> io::Result<String> {
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
