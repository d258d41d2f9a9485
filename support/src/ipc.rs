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
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::proc::{die_with_parent, ChildGuard};
use crate::stall::Stall;

/// How long one round trip may wait for its answer before the bench fails.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(3);

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn owned(fd: libc::c_int) -> io::Result<OwnedFd> {
    // SAFETY: fd was just returned by a successful syscall and is ours alone.
    cvt(fd).map(|fd| unsafe { OwnedFd::from_raw_fd(fd) })
}

/// A pipe, close-on-exec: (read end, write end).
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    #[cfg(any(target_os = "linux", target_os = "android"))]
    // SAFETY: fds has room for the two descriptors pipe2 writes.
    cvt(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        // SAFETY: as above; CLOEXEC is set right after (no exec in between
        // in this process's bench threads).
        cvt(unsafe { libc::pipe(fds.as_mut_ptr()) })?;
        for fd in fds {
            // SAFETY: fd is a valid descriptor we own.
            cvt(unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) })?;
        }
    }
    Ok((owned(fds[0])?, owned(fds[1])?))
}

/// A connected AF_UNIX stream socketpair.
pub fn socketpair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: fds has room for the two descriptors.
    cvt(unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    })?;
    let (a, b) = (owned(fds[0])?, owned(fds[1])?);
    set_cloexec(a.as_raw_fd())?;
    set_cloexec(b.as_raw_fd())?;
    Ok((a, b))
}

/// SOCK_CLOEXEC where socket(2) takes it (Linux); elsewhere close-on-exec
/// is set right after creation.
#[cfg(any(target_os = "linux", target_os = "android"))]
const SOCK_CLOEXEC: libc::c_int = libc::SOCK_CLOEXEC;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const SOCK_CLOEXEC: libc::c_int = 0;

fn socket(kind: libc::c_int) -> io::Result<OwnedFd> {
    // SAFETY: plain socket(2) call.
    let fd = owned(unsafe { libc::socket(libc::AF_INET, kind | SOCK_CLOEXEC, 0) })?;
    set_cloexec(fd.as_raw_fd())?;
    Ok(fd)
}

fn loopback(port: u16) -> libc::sockaddr_in {
    // SAFETY: all-zero is a valid sockaddr_in.
    let mut a: libc::sockaddr_in = unsafe { std::mem::zeroed() };
    a.sin_family = libc::AF_INET as libc::sa_family_t;
    a.sin_port = port.to_be();
    a.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
    a
}

const ADDR_LEN: libc::socklen_t = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;

fn bind_loopback(fd: &OwnedFd) -> io::Result<u16> {
    let a = loopback(0);
    // SAFETY: a is a valid sockaddr_in of ADDR_LEN bytes.
    cvt(unsafe {
        libc::bind(
            fd.as_raw_fd(),
            (&a as *const libc::sockaddr_in).cast(),
            ADDR_LEN,
        )
    })?;
    local_port(fd.as_raw_fd())
}

/// The local port a socket is bound to.
pub fn local_port(fd: RawFd) -> io::Result<u16> {
    // SAFETY: zeroed sockaddr_in is valid; len says its size.
    let mut a: libc::sockaddr_in = unsafe { std::mem::zeroed() };
    let mut len = ADDR_LEN;
    // SAFETY: a and len are valid for getsockname to fill.
    cvt(unsafe { libc::getsockname(fd, (&mut a as *mut libc::sockaddr_in).cast(), &mut len) })?;
    Ok(u16::from_be(a.sin_port))
}

/// Connects `fd` to 127.0.0.1:`port`. A connect interrupted by a signal
/// (a [`Stall`] deadline while the server's backlog is full) goes on in the
/// background: it is then given [`ANSWER_TIMEOUT`] to finish, and fails
/// with `TimedOut` if it does not.
pub fn connect(fd: RawFd, port: u16) -> io::Result<()> {
    let a = loopback(port);
    // SAFETY: a is a valid sockaddr_in of ADDR_LEN bytes.
    let r = cvt(unsafe { libc::connect(fd, (&a as *const libc::sockaddr_in).cast(), ADDR_LEN) });
    match r {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::Interrupted => {
            if !wait_ready(fd, libc::POLLOUT, ANSWER_TIMEOUT)? {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("connect to 127.0.0.1:{port} not done within {ANSWER_TIMEOUT:?}"),
                ));
            }
            let mut err: libc::c_int = 0;
            let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
            // SAFETY: err and len are valid for getsockopt to fill.
            cvt(unsafe {
                libc::getsockopt(
                    fd,
                    libc::SOL_SOCKET,
                    libc::SO_ERROR,
                    (&mut err as *mut libc::c_int).cast(),
                    &mut len,
                )
            })?;
            match err {
                0 => Ok(()),
                e => Err(io::Error::from_raw_os_error(e)),
            }
        }
        Err(e) => Err(e),
    }
}

/// poll(2) of one fd for `events` up to `t`: true when ready. An
/// interrupted wait (the next [`Stall`] tick) counts as not ready: by
/// then the deadline has passed again.
pub fn wait_ready(fd: RawFd, events: libc::c_short, t: Duration) -> io::Result<bool> {
    let mut p = libc::pollfd {
        fd,
        events,
        revents: 0,
    };
    let ms = t.as_millis().min(i32::MAX as u128) as libc::c_int;
    // SAFETY: one valid pollfd.
    match unsafe { libc::poll(&mut p, 1, ms) } {
        n if n > 0 => Ok(true),
        0 => Ok(false),
        _ => {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                Ok(false)
            } else {
                Err(e)
            }
        }
    }
}

/// A TCP socket listening on 127.0.0.1, a kernel-chosen port, backlog 1024.
pub fn tcp_listener() -> io::Result<(OwnedFd, u16)> {
    let fd = socket(libc::SOCK_STREAM)?;
    let port = bind_loopback(&fd)?;
    // SAFETY: listen on our socket.
    cvt(unsafe { libc::listen(fd.as_raw_fd(), 1024) })?;
    Ok((fd, port))
}

/// A fresh TCP socket (unconnected).
pub fn tcp_socket() -> io::Result<OwnedFd> {
    socket(libc::SOCK_STREAM)
}

/// A TCP client socket connected to 127.0.0.1:`port`.
pub fn tcp_connect(port: u16) -> io::Result<OwnedFd> {
    let fd = socket(libc::SOCK_STREAM)?;
    connect(fd.as_raw_fd(), port)?;
    Ok(fd)
}

/// accept(2) one connection (close-on-exec).
pub fn accept(listener: RawFd) -> io::Result<OwnedFd> {
    loop {
        // SAFETY: null address pointers are allowed.
        let fd = unsafe { libc::accept(listener, std::ptr::null_mut(), std::ptr::null_mut()) };
        if fd >= 0 {
            let fd = owned(fd)?;
            set_cloexec(fd.as_raw_fd())?;
            return Ok(fd);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

fn set_cloexec(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor we own.
    cvt(unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) }).map(drop)
}

/// A connected loopback TCP pair: (client, server side).
pub fn tcp_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let (listener, port) = tcp_listener()?;
    let client = tcp_connect(port)?;
    let server = accept(listener.as_raw_fd())?;
    Ok((client, server))
}

/// A UDP socket bound to 127.0.0.1 on a kernel-chosen port.
pub fn udp_socket() -> io::Result<(OwnedFd, u16)> {
    let fd = socket(libc::SOCK_DGRAM)?;
    let port = bind_loopback(&fd)?;
    Ok((fd, port))
}

/// Two loopback UDP sockets, each bound and connected to the other.
pub fn udp_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let (a, pa) = udp_socket()?;
    let (b, pb) = udp_socket()?;
    connect(a.as_raw_fd(), pb)?;
    connect(b.as_raw_fd(), pa)?;
    Ok((a, b))
}

fn setsockopt<T>(fd: RawFd, level: libc::c_int, name: libc::c_int, val: &T) -> io::Result<()> {
    // SAFETY: val points to a T of the size we pass.
    cvt(unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (val as *const T).cast(),
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    })
    .map(drop)
}

/// SO_RCVTIMEO: a read that waits longer fails with EAGAIN/EWOULDBLOCK.
pub fn set_recv_timeout(fd: RawFd, t: Duration) -> io::Result<()> {
    let tv = libc::timeval {
        tv_sec: t.as_secs() as libc::time_t,
        tv_usec: t.subsec_micros() as libc::suseconds_t,
    };
    setsockopt(fd, libc::SOL_SOCKET, libc::SO_RCVTIMEO, &tv)
}

/// SO_SNDTIMEO: a write that blocks longer (a peer that stopped reading
/// while our send buffer is full) fails with EAGAIN/EWOULDBLOCK.
pub fn set_send_timeout(fd: RawFd, t: Duration) -> io::Result<()> {
    let tv = libc::timeval {
        tv_sec: t.as_secs() as libc::time_t,
        tv_usec: t.subsec_micros() as libc::suseconds_t,
    };
    setsockopt(fd, libc::SOL_SOCKET, libc::SO_SNDTIMEO, &tv)
}

/// SO_LINGER {on, 0}: close(2) resets the connection (RST) instead of the
/// FIN handshake, so no TIME_WAIT socket is left behind.
pub fn set_linger_zero(fd: RawFd) -> io::Result<()> {
    let l = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    setsockopt(fd, libc::SOL_SOCKET, libc::SO_LINGER, &l)
}

/// Starts `program args...` (stdin null, stdout and stderr inherited) with
/// `fds[i]` as its descriptor `3 + i`; it dies with us and is reaped by the
/// returned guard. Our copies of `fds` stay open: drop them after this
/// returns so the peer holds the only ones (EOF then means the peer died).
pub fn spawn_with_fds(program: &str, args: &[&str], fds: &[RawFd]) -> io::Result<ChildGuard> {
    // Copy each source above the targets first, so no dup2 below can
    // clobber a source that has not been moved yet.
    let high: Vec<OwnedFd> = fds
        .iter()
        // SAFETY: F_DUPFD_CLOEXEC returns a new descriptor we own.
        .map(|&fd| {
            owned(unsafe {
                libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3 + fds.len() as libc::c_int + 16)
            })
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
pub fn round_trip(w: RawFd, r: RawFd, msg: &[u8], buf: &mut [u8]) -> io::Result<()> {
    let n = crate::sys::write(w, msg)?;
    if n != msg.len() {
        return Err(io::Error::other(format!(
            "wrote {n} of {} bytes",
            msg.len()
        )));
    }
    let mut got = 0;
    while got < msg.len() {
        let n = match crate::sys::read(r, &mut buf[got..msg.len()]) {
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
fn answer_wait(r: RawFd, e: io::Error) -> io::Result<()> {
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
            if wait_ready(r, libc::POLLIN, ANSWER_TIMEOUT)? {
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
    w: RawFd,
    r: RawFd,
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
        set_recv_timeout(a.as_raw_fd(), Duration::from_millis(50)).unwrap();
        let err = round_trip(a.as_raw_fd(), a.as_raw_fd(), b"x", &mut [0u8; 1]).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
    }
}
