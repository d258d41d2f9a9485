//! `lmbench-peer rpc`: lat_rpc's ONC RPC server for program 404040
//! version 1 (see `crate::rpc`). It inherits a bound UDP socket as fd 3 and
//! a listening TCP socket as fd 4, and serves both, and any number of TCP
//! connections, from one poll(2) loop. A malformed call gets an RPC error
//! reply or is dropped; an oversized or broken TCP record, or a client
//! that stops reading its replies (a write blocked for
//! `ipc::ANSWER_TIMEOUT`), closes that connection only. Reads are bounded:
//! 64 KiB per read, records of at most `rpc::MAX_RECORD`. Nothing a client sends can stop the server.

use std::io;
use std::net::UdpSocket;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd, RawFd};

use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::poll::{PollFd, PollFlags, PollTimeout};

use crate::rpc::{serve_call, RecordBuf};
use crate::{ipc, sys};

/// The inherited descriptors (see the module doc).
const UDP: RawFd = 3;
const LISTENER: RawFd = 4;
/// Connections beyond this are accepted and closed at once.
const MAX_CONNS: usize = 64;

pub fn main(args: &[String]) -> io::Result<()> {
    if !args.is_empty() {
        return Err(io::Error::other(format!("bad arguments {args:?}")));
    }
    // SAFETY: fds 3 and 4 are the sockets `ipc::spawn_with_fds` gave us,
    // open and owned by nothing else in this process.
    let (udp, listener) = unsafe { (UdpSocket::from_raw_fd(UDP), OwnedFd::from_raw_fd(LISTENER)) };
    // Neither may block: accept when a connection vanished between poll
    // and accept, recvfrom when a datagram did.
    fcntl(&listener, FcntlArg::F_SETFL(OFlag::O_NONBLOCK))?;
    udp.set_nonblocking(true)?;
    let mut conns: Vec<(OwnedFd, RecordBuf)> = Vec::new();
    let mut buf = vec![0u8; 65536];
    loop {
        // Which of udp, listener, conns... have something for us.
        let ready: Vec<bool> = {
            let mut pfds: Vec<PollFd> = [udp.as_fd(), listener.as_fd()]
                .into_iter()
                .chain(conns.iter().map(|(fd, _)| fd.as_fd()))
                .map(|fd| PollFd::new(fd, PollFlags::POLLIN))
                .collect();
            match nix::poll::poll(&mut pfds, PollTimeout::NONE) {
                Ok(_) => {}
                Err(nix::errno::Errno::EINTR) => continue,
                Err(e) => return Err(e.into()),
            }
            pfds.iter().map(|p| p.any().unwrap_or(true)).collect()
        };
        if ready[0] {
            serve_datagram(&udp, &mut buf);
        }
        if ready[1] {
            if let Ok(c) = ipc::accept(&listener) {
                // A client that stops reading our replies must not stall
                // the server: a write blocked this long drops it.
                let bounded = ipc::set_send_timeout(&c, ipc::ANSWER_TIMEOUT).is_ok();
                if bounded && conns.len() < MAX_CONNS {
                    conns.push((c, RecordBuf::default()));
                }
            }
        }
        // Connections that hung up, sent garbage framing or failed a write
        // are dropped (closed); the others keep their partial records.
        let mut i = 0;
        conns.retain_mut(|(fd, rb)| {
            // Connections accepted this round were not polled yet.
            let keep = !ready.get(2 + i).copied().unwrap_or(false)
                || serve_stream(fd.as_raw_fd(), rb, &mut buf);
            i += 1;
            keep
        });
    }
}

/// One datagram in, at most one reply out, to whoever sent it.
fn serve_datagram(udp: &UdpSocket, buf: &mut [u8]) {
    // Nothing after all, or an ICMP error from an old client: ignored.
    let Ok((n, from)) = udp.recv_from(buf) else {
        return;
    };
    if let Some(reply) = serve_call(&buf[..n]) {
        let _ = udp.send_to(&reply, from);
    }
}

/// Reads what a connection sent and answers every complete record; false
/// if the connection should be closed.
fn serve_stream(fd: RawFd, rb: &mut RecordBuf, buf: &mut [u8]) -> bool {
    let n = match sys::read(fd, buf) {
        Ok(0) | Err(_) => return false,
        Ok(n) => n,
    };
    let mut out = Vec::new();
    let keep = rb.serve(&buf[..n], &mut out).is_ok();
    let mut sent = 0;
    while sent < out.len() {
        match sys::write(fd, &out[sent..]) {
            Ok(k) => sent += k,
            Err(_) => return false,
        }
    }
    keep
}
