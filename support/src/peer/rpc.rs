//! `lmbench-peer rpc`: lat_rpc's ONC RPC server for program 404040
//! version 1 (see `crate::rpc`). It inherits a bound UDP socket as fd 3 and
//! a listening TCP socket as fd 4, and serves both, and any number of TCP
//! connections, from one poll(2) loop. A malformed call gets an RPC error
//! reply or is dropped; an oversized or broken TCP record, or a client
//! that stops reading its replies (a write blocked for
//! `ipc::ANSWER_TIMEOUT`), closes that connection only. Reads are bounded:
//! 64 KiB per read, records of at most `rpc::MAX_RECORD`. Nothing a client sends can stop the server.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use crate::rpc::{serve_call, RecordBuf};
use crate::{ipc, sys};

const UDP: RawFd = 3;
const LISTENER: RawFd = 4;
/// Connections beyond this are accepted and closed at once.
const MAX_CONNS: usize = 64;

pub fn main(args: &[String]) -> io::Result<()> {
    if !args.is_empty() {
        return Err(io::Error::other(format!("bad arguments {args:?}")));
    }
    // SAFETY: fcntl on an inherited descriptor: accept must not block when
    // a connection vanished between poll and accept.
    unsafe { libc::fcntl(LISTENER, libc::F_SETFL, libc::O_NONBLOCK) };
    let mut conns: Vec<(OwnedFd, RecordBuf)> = Vec::new();
    let mut buf = vec![0u8; 65536];
    loop {
        let mut pfds: Vec<libc::pollfd> = [UDP, LISTENER]
            .into_iter()
            .chain(conns.iter().map(|(fd, _)| fd.as_raw_fd()))
            .map(|fd| libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        // SAFETY: pfds is a valid array of pfds.len() pollfds.
        if unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, -1) } < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if pfds[0].revents != 0 {
            serve_datagram(&mut buf)?;
        }
        if pfds[1].revents != 0 {
            if let Ok(c) = ipc::accept(LISTENER) {
                // A client that stops reading our replies must not stall
                // the server: a write blocked this long drops it.
                let bounded = ipc::set_send_timeout(c.as_raw_fd(), ipc::ANSWER_TIMEOUT).is_ok();
                if bounded && conns.len() < MAX_CONNS {
                    conns.push((c, RecordBuf::default()));
                }
            }
        }
        // Connections that hung up, sent garbage framing or failed a write
        // are dropped (closed); the others keep their partial records.
        let ready: Vec<bool> = pfds[2..].iter().map(|p| p.revents != 0).collect();
        let mut i = 0;
        conns.retain_mut(|(fd, rb)| {
            // Connections accepted this round were not polled yet.
            let keep = !ready.get(i).copied().unwrap_or(false)
                || serve_stream(fd.as_raw_fd(), rb, &mut buf);
            i += 1;
            keep
        });
    }
}

/// One datagram in, at most one reply out, to whoever sent it.
fn serve_datagram(buf: &mut [u8]) -> io::Result<()> {
    // SAFETY: zeroed sockaddr_storage is valid; len says its size.
    let mut from: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    // SAFETY: buf, from and len are valid for recvfrom to fill.
    let n = unsafe {
        libc::recvfrom(
            UDP,
            buf.as_mut_ptr().cast(),
            buf.len(),
            libc::MSG_DONTWAIT,
            (&mut from as *mut libc::sockaddr_storage).cast(),
            &mut len,
        )
    };
    if n < 0 {
        return Ok(()); // nothing after all, or an ICMP error from an old client
    }
    if let Some(reply) = serve_call(&buf[..n as usize]) {
        // SAFETY: reply and the sender's address are valid for sendto.
        unsafe {
            libc::sendto(
                UDP,
                reply.as_ptr().cast(),
                reply.len(),
                0,
                (&from as *const libc::sockaddr_storage).cast(),
                len,
            )
        };
    }
    Ok(())
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
