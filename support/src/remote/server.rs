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
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use socket2::{Domain, Protocol, Socket, Type};

use super::proto::{self, LineBuf, Reply, Request};

mod services;
use services::{open, serve, Ctx};

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
