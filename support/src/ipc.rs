//! Endpoints for the local-communication benches: pipes, AF_UNIX
//! socketpairs, loopback TCP and UDP sockets, all as `OwnedFd` (closed on
//! drop), plus the two things every echo bench needs around them: a peer
//! process that inherits its end of the channel as fd 3 (and 4), and a
//! deadline for a peer which stops answering, so a blocked read fails the
//! bench instead of hanging it. No helper thread: a second thread in the
//! timed process would switch the kernel's fd table to its shared path and
//! change the very figures these benches report. The timed echo loops
//! (pipes and sockets alike) get a [`Stall`] timer armed once per timed
//! call, whose signal interrupts a blocked read; SO_RCVTIMEO is kept for
//! untimed reads (it arms a kernel timer on every blocking receive).
//!
//! Servers bind 127.0.0.1 on a port the kernel picks.

use std::io;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::process::{Command, Stdio};
use std::time::Duration;

use nix::poll::{PollFd, PollFlags, PollTimeout};
use socket2::{Domain, SockAddr, SockRef, Socket, Type};

use crate::child::{die_with_parent, ChildGuard};
use crate::stall::Stall;

/// How long one round trip may wait for its answer before the bench fails.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(3);

/// A pipe, close-on-exec: (read end, write end).
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let (r, w) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let (r, w) = {
        // Close-on-exec set right after (no exec in between in this
        // process's bench threads).
        let (r, w) = nix::unistd::pipe()?;
        for fd in [&r, &w] {
            use nix::fcntl::{fcntl, FcntlArg, FdFlag};
            fcntl(fd, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC))?;
        }
        (r, w)
    };
    Ok((r, w))
}

/// A connected AF_UNIX stream socketpair (close-on-exec, as every socket
/// socket2 makes).
pub fn socketpair() -> io::Result<(OwnedFd, OwnedFd)> {
    let (a, b) = Socket::pair(Domain::UNIX, Type::STREAM, None)?;
    Ok((a.into(), b.into()))
}

/// 127.0.0.1:`port`.
fn loopback(port: u16) -> SockAddr {
    SocketAddrV4::new(Ipv4Addr::LOCALHOST, port).into()
}

/// An IPv4 socket of `kind` bound to 127.0.0.1 on a kernel-chosen port.
fn bound(kind: Type) -> io::Result<(Socket, u16)> {
    let s = Socket::new(Domain::IPV4, kind, None)?;
    s.bind(&loopback(0))?;
    let port = local_port(&s)?;
    Ok((s, port))
}

/// The local port a socket is bound to.
pub fn local_port(fd: impl AsFd) -> io::Result<u16> {
    SockRef::from(&fd)
        .local_addr()?
        .as_socket()
        .map(|a| a.port())
        .ok_or_else(|| io::Error::other("not an IP socket"))
}

/// Connects `fd` to 127.0.0.1:`port`. A connect interrupted by a signal
/// (a [`Stall`] deadline while the server's backlog is full) goes on in the
/// background: it is then given [`ANSWER_TIMEOUT`] to finish, and fails
/// with `TimedOut` if it does not.
pub fn connect(fd: impl AsFd, port: u16) -> io::Result<()> {
    let s = SockRef::from(&fd);
    match s.connect(&loopback(port)) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::Interrupted => {
            if !wait_ready(&fd, PollFlags::POLLOUT, ANSWER_TIMEOUT)? {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("connect to 127.0.0.1:{port} not done within {ANSWER_TIMEOUT:?}"),
                ));
            }
            match s.take_error()? {
                None => Ok(()),
                Some(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

/// poll(2) of one fd for `events` up to `t`: true when ready. An
/// interrupted wait (the next [`Stall`] tick) counts as not ready: by
/// then the deadline has passed again.
pub fn wait_ready(fd: impl AsFd, events: PollFlags, t: Duration) -> io::Result<bool> {
    let ms = t.as_millis().min(i32::MAX as u128) as i32;
    let timeout = PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX);
    match nix::poll::poll(&mut [PollFd::new(fd.as_fd(), events)], timeout) {
        Ok(n) => Ok(n > 0),
        Err(nix::errno::Errno::EINTR) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// A TCP socket listening on 127.0.0.1, a kernel-chosen port, backlog 1024.
pub fn tcp_listener() -> io::Result<(OwnedFd, u16)> {
    let (s, port) = bound(Type::STREAM)?;
    s.listen(1024)?;
    Ok((s.into(), port))
}

/// A fresh TCP socket (unconnected): one socket(2) call, close-on-exec
/// in its flags on Linux.
pub fn tcp_socket() -> io::Result<OwnedFd> {
    Ok(Socket::new(Domain::IPV4, Type::STREAM, None)?.into())
}

/// A TCP client socket connected to 127.0.0.1:`port`.
pub fn tcp_connect(port: u16) -> io::Result<OwnedFd> {
    let fd = tcp_socket()?;
    connect(&fd, port)?;
    Ok(fd)
}

/// accept(2) one connection (close-on-exec); a signal retries.
pub fn accept(listener: impl AsFd) -> io::Result<OwnedFd> {
    let l = SockRef::from(&listener);
    loop {
        match l.accept() {
            Ok((s, _)) => return Ok(s.into()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// A connected loopback TCP pair: (client, server side).
pub fn tcp_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let (listener, port) = tcp_listener()?;
    let client = tcp_connect(port)?;
    let server = accept(&listener)?;
    Ok((client, server))
}

/// A UDP socket bound to 127.0.0.1 on a kernel-chosen port.
pub fn udp_socket() -> io::Result<(OwnedFd, u16)> {
    let (s, port) = bound(Type::DGRAM)?;
    Ok((s.into(), port))
}

/// Two loopback UDP sockets, each bound and connected to the other.
pub fn udp_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let (a, pa) = udp_socket()?;
    let (b, pb) = udp_socket()?;
    connect(&a, pb)?;
    connect(&b, pa)?;
    Ok((a, b))
}

/// SO_RCVTIMEO: a read that waits longer fails with EAGAIN/EWOULDBLOCK.
pub fn set_recv_timeout(fd: impl AsFd, t: Duration) -> io::Result<()> {
    SockRef::from(&fd).set_read_timeout(Some(t))
}

/// SO_SNDTIMEO: a write that blocks longer (a peer that stopped reading
/// while our send buffer is full) fails with EAGAIN/EWOULDBLOCK.
pub fn set_send_timeout(fd: impl AsFd, t: Duration) -> io::Result<()> {
    SockRef::from(&fd).set_write_timeout(Some(t))
}

/// SO_LINGER {on, 0}: close(2) resets the connection (RST) instead of the
/// FIN handshake, so no TIME_WAIT socket is left behind.
pub fn set_linger_zero(fd: impl AsFd) -> io::Result<()> {
    SockRef::from(&fd).set_linger(Some(Duration::ZERO))
}

/// Starts `program args...` (stdin null, stdout and stderr inherited) with
/// `fds[i]` as its descriptor `3 + i`; it dies with us and is reaped by the
/// returned guard. Our copies of `fds` stay open: drop them after this
/// returns so the peer holds the only ones (EOF then means the peer died).
pub fn spawn_with_fds(program: &str, args: &[&str], fds: &[RawFd]) -> io::Result<ChildGuard> {
    // Copy each source above the targets first, so no dup2 below can
    // clobber a source that has not been moved yet.
    let above = 3 + fds.len() as libc::c_int + 16;
    let high: Vec<OwnedFd> = fds
        .iter()
        // SAFETY: F_DUPFD_CLOEXEC makes a new descriptor (above every
        // target) that nobody else owns, or fails with -1, which is
        // checked before an OwnedFd takes it.
        .map(|&fd| unsafe {
            let copy = nix::errno::Errno::result(libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, above))?;
            Ok(std::os::fd::FromRawFd::from_raw_fd(copy))
        })
        .collect::<io::Result<_>>()?;
    let raw: Vec<RawFd> = high.iter().map(|f| f.as_raw_fd()).collect();
    let mut cmd = Command::new(program);
    cmd.args(args).stdin(Stdio::null());
    die_with_parent(&mut cmd);
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: runs between fork and exec and makes only dup2(2), which
        // is async-signal-safe; `raw` was built before the fork. dup2 to a
        // different number clears close-on-exec on the target.
        unsafe {
            cmd.pre_exec(move || {
                for (i, &fd) in raw.iter().enumerate() {
                    if libc::dup2(fd, 3 + i as libc::c_int) < 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
    }
    let guard = ChildGuard::spawn(&mut cmd)
        .map_err(|e| io::Error::new(e.kind(), format!("starting {program}: {e}")))?;
    drop(high);
    Ok(guard)
}

/// Writes `msg` to `w`, reads the echo from `r` into `buf` and checks it.
/// EOF (the peer died) and a short or different answer are errors. A read
/// interrupted by a signal (a [`Stall`] deadline passed while it was
/// blocked) waits up to [`ANSWER_TIMEOUT`] more for the answer, then fails
/// with `TimedOut`: a stopped peer fails the bench within seconds.
#[inline]
pub fn round_trip(
    w: BorrowedFd<'_>,
    r: BorrowedFd<'_>,
    msg: &[u8],
    buf: &mut [u8],
) -> io::Result<()> {
    let n = crate::sys::write(w.as_raw_fd(), msg)?;
    if n != msg.len() {
        return Err(io::Error::other(format!(
            "wrote {n} of {} bytes",
            msg.len()
        )));
    }
    let mut got = 0;
    while got < msg.len() {
        let n = match crate::sys::read(r.as_raw_fd(), &mut buf[got..msg.len()]) {
            Ok(n) => n,
            Err(e) => {
                answer_wait(r, e)?;
                continue;
            }
        };
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the echo peer closed its end (it died)",
            ));
        }
        got += n;
    }
    if buf[..msg.len()] != *msg {
        return Err(io::Error::other(format!(
            "echo {:?} differs from the message {msg:?}",
            &buf[..msg.len()]
        )));
    }
    Ok(())
}

/// The slow path of [`round_trip`]'s read: `Ok` to read again, an error
/// (`TimedOut` when the answer is overdue) to fail.
#[cold]
#[inline(never)]
fn answer_wait(r: BorrowedFd<'_>, e: io::Error) -> io::Result<()> {
    let overdue = || {
        io::Error::new(
            io::ErrorKind::TimedOut,
            format!("no answer within {ANSWER_TIMEOUT:?}"),
        )
    };
    match e.kind() {
        // SO_RCVTIMEO passed.
        io::ErrorKind::WouldBlock => Err(overdue()),
        io::ErrorKind::Interrupted => {
            if wait_ready(r, PollFlags::POLLIN, ANSWER_TIMEOUT)? {
                Ok(())
            } else {
                Err(overdue())
            }
        }
        _ => Err(e),
    }
}

/// The timed body of the echo benches: `iters` round trips of a `len`-byte
/// message (1..=4 bytes: the low bytes of a sequence number, so a stale or
/// wrong answer is caught), writing on `w` and reading the echo from `r`.
/// With `deadline` (the timed loops: no per-receive timer) the timer ticks
/// every [`ANSWER_TIMEOUT`] while the loop runs: one timer_settime(2)
/// before and after, nothing per round trip.
pub fn echo_loop(
    w: BorrowedFd<'_>,
    r: BorrowedFd<'_>,
    len: usize,
    iters: u64,
    deadline: Option<&Stall>,
) -> io::Result<Duration> {
    let mut buf = [0u8; 4];
    if let Some(d) = deadline {
        d.arm(ANSWER_TIMEOUT);
    }
    let start = std::time::Instant::now();
    let mut res = Ok(());
    for seq in 0..iters {
        let msg = (seq as u32).to_le_bytes();
        res = round_trip(w, r, &msg[..len], &mut buf);
        if res.is_err() {
            break;
        }
    }
    let took = start.elapsed();
    if let Some(d) = deadline {
        d.disarm();
    }
    res.map(|()| took)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_carry_bytes() {
        let (r, w) = pipe().unwrap();
        let mut buf = [0u8; 4];
        crate::sys::write(w.as_raw_fd(), b"ping").unwrap();
        assert_eq!(crate::sys::read(r.as_raw_fd(), &mut buf).unwrap(), 4);
        for (a, b) in [
            socketpair().unwrap(),
            tcp_pair().unwrap(),
            udp_pair().unwrap(),
        ] {
            let mut buf = [0u8; 4];
            crate::sys::write(a.as_raw_fd(), b"ping").unwrap();
            assert_eq!(crate::sys::read(b.as_raw_fd(), &mut buf).unwrap(), 4);
            assert_eq!(&buf, b"ping");
        }
    }

    #[test]
    fn recv_timeout_fires() {
        let (a, _b) = udp_pair().unwrap();
        set_recv_timeout(&a, Duration::from_millis(50)).unwrap();
        let err = round_trip(a.as_fd(), a.as_fd(), b"x", &mut [0u8; 1]).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
    }
}
