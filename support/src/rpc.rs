//! A small ONC RPC codec (RFC 5531 messages, XDR per RFC 4506, record
//! marking on TCP) for lat_rpc: program 404040 version 1, whose procedure 1
//! takes a char and returns it, plus the NULL procedure 0 every ONC RPC
//! server answers. Client and server sides, no C library, no portmapper.
//!
//! Why our own codec and not the `onc-rpc` crate: lat_rpc needs one call
//! shape and the server's error replies, about 200 lines; a hand codec lets
//! the client patch the xid into a call encoded once (no allocation in the
//! timed loop) and keeps the crate graph small. Interoperability is proven
//! against Debian's `rpcinfo` (tests/rpcinfo.rs).

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

use crate::{ipc, sys};

/// lmbench's program number and version.
pub const PROG: u32 = 404040;
pub const VERS: u32 = 1;
/// The NULL procedure (no arguments, no results).
pub const PROC_NULL: u32 = 0;
/// Procedure 1: a char in, the same char out (XDR encodes a char as an int).
pub const PROC_CHAR: u32 = 1;

const CALL: u32 = 0;
const REPLY: u32 = 1;
const RPC_VERSION: u32 = 2;
const MSG_ACCEPTED: u32 = 0;
const MSG_DENIED: u32 = 1;
const RPC_MISMATCH: u32 = 0;
const AUTH_ERROR: u32 = 1;
const AUTH_BADCRED: u32 = 1;
/// accept_stat values (RFC 5531 section 9).
pub const SUCCESS: u32 = 0;
pub const PROG_UNAVAIL: u32 = 1;
pub const PROG_MISMATCH: u32 = 2;
pub const PROC_UNAVAIL: u32 = 3;
pub const GARBAGE_ARGS: u32 = 4;
/// The largest opaque_auth body (RFC 5531).
const MAX_AUTH: usize = 400;
/// The largest TCP record we accept; calls of this program are tiny.
pub const MAX_RECORD: usize = 64 * 1024;
/// The record-marking header's last-fragment bit.
const LAST_FRAGMENT: u32 = 0x8000_0000;

/// An XDR reader over a message; every read checks the length left.
struct Xdr<'a> {
    buf: &'a [u8],
}

impl<'a> Xdr<'a> {
    fn u32(&mut self) -> Option<u32> {
        let (head, rest) = self.buf.split_first_chunk::<4>()?;
        self.buf = rest;
        Some(u32::from_be_bytes(*head))
    }

    /// An opaque_auth: flavor, then a body of at most 400 bytes, padded to 4.
    fn auth(&mut self) -> Option<Result<(), ()>> {
        let _flavor = self.u32()?;
        let len = self.u32()? as usize;
        if len > MAX_AUTH {
            return Some(Err(()));
        }
        let padded = len.div_ceil(4) * 4;
        if self.buf.len() < padded {
            return None;
        }
        self.buf = &self.buf[padded..];
        Some(Ok(()))
    }
}

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_be_bytes()).collect()
}

/// Encodes a call with AUTH_NONE credentials and verifier.
pub fn encode_call(xid: u32, prog: u32, vers: u32, proc_: u32, args: &[u8]) -> Vec<u8> {
    let mut m = words(&[xid, CALL, RPC_VERSION, prog, vers, proc_, 0, 0, 0, 0]);
    m.extend_from_slice(args);
    m
}

/// A char argument or result in XDR: a signed int, 4 bytes.
pub fn xdr_char(c: u8) -> [u8; 4] {
    (c as i8 as i32).to_be_bytes()
}

/// The server's side: the reply to one call message of program 404040, or
/// `None` for a message that must be dropped (too short to carry an xid and
/// a call header, or not a call). Never panics, whatever the bytes.
pub fn serve_call(msg: &[u8]) -> Option<Vec<u8>> {
    let mut x = Xdr { buf: msg };
    let xid = x.u32()?;
    if x.u32()? != CALL {
        return None;
    }
    let rpcvers = x.u32()?;
    if rpcvers != RPC_VERSION {
        return Some(words(&[
            xid,
            REPLY,
            MSG_DENIED,
            RPC_MISMATCH,
            RPC_VERSION,
            RPC_VERSION,
        ]));
    }
    let (prog, vers, proc_) = (x.u32()?, x.u32()?, x.u32()?);
    // Credentials of any flavor are accepted (this toy service authorises
    // nobody); an oversized one is refused, a truncated one dropped.
    if x.auth()?.is_err() || x.auth()?.is_err() {
        return Some(words(&[xid, REPLY, MSG_DENIED, AUTH_ERROR, AUTH_BADCRED]));
    }
    let accepted = |stat: u32, body: &[u32]| {
        let mut w = vec![xid, REPLY, MSG_ACCEPTED, 0, 0, stat];
        w.extend_from_slice(body);
        Some(words(&w))
    };
    if prog != PROG {
        return accepted(PROG_UNAVAIL, &[]);
    }
    if vers != VERS {
        return accepted(PROG_MISMATCH, &[VERS, VERS]);
    }
    match proc_ {
        PROC_NULL => accepted(SUCCESS, &[]),
        PROC_CHAR => match x.buf {
            [a, b, c, d] => {
                let v = i32::from_be_bytes([*a, *b, *c, *d]);
                accepted(SUCCESS, &[v as i8 as i32 as u32])
            }
            _ => accepted(GARBAGE_ARGS, &[]),
        },
        _ => accepted(PROC_UNAVAIL, &[]),
    }
}

/// The client's side: the xid and results of a successful reply; any other
/// reply is an error saying what the server answered.
pub fn parse_reply(msg: &[u8]) -> io::Result<(u32, &[u8])> {
    let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidData, format!("RPC reply: {what}"));
    let mut x = Xdr { buf: msg };
    let short = || bad("truncated");
    let xid = x.u32().ok_or_else(short)?;
    if x.u32().ok_or_else(short)? != REPLY {
        return Err(bad("not a reply"));
    }
    match x.u32().ok_or_else(short)? {
        MSG_ACCEPTED => {}
        MSG_DENIED => return Err(bad("call denied")),
        s => return Err(bad(&format!("unknown reply_stat {s}"))),
    }
    x.auth()
        .ok_or_else(short)?
        .map_err(|_| bad("oversized verifier"))?;
    match x.u32().ok_or_else(short)? {
        SUCCESS => Ok((xid, x.buf)),
        s => Err(bad(&format!("accept_stat {s} (not SUCCESS)"))),
    }
}

/// Prefixes `msg` with a record-marking header (one, last, fragment).
pub fn frame(msg: &[u8]) -> Vec<u8> {
    let mut out = (LAST_FRAGMENT | msg.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(msg);
    out
}

/// Reassembles records from a TCP byte stream (record marking, RFC 5531
/// section 11): fragments are joined until the last-fragment bit. Memory
/// stays bounded: a record over [`MAX_RECORD`] is an error, and consumed
/// bytes are dropped at the next [`push`](RecordBuf::push), so many small
/// records cost linear time, not a copy of the buffer each.
#[derive(Default)]
pub struct RecordBuf {
    pending: Vec<u8>,
    /// How much of `pending` earlier records consumed.
    start: usize,
    record: Vec<u8>,
}

impl RecordBuf {
    pub fn push(&mut self, bytes: &[u8]) {
        self.pending.drain(..self.start);
        self.start = 0;
        self.pending.extend_from_slice(bytes);
    }

    /// The next complete record, `None` if more bytes are needed; an error
    /// for a record over [`MAX_RECORD`] (the connection should be closed).
    pub fn next_record(&mut self) -> io::Result<Option<Vec<u8>>> {
        loop {
            let rest = &self.pending[self.start..];
            let Some(head) = rest.first_chunk::<4>() else {
                return Ok(None);
            };
            let head = u32::from_be_bytes(*head);
            let len = (head & !LAST_FRAGMENT) as usize;
            if self.record.len() + len > MAX_RECORD {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("RPC record over {MAX_RECORD} bytes"),
                ));
            }
            if rest.len() < 4 + len {
                return Ok(None);
            }
            self.record.extend_from_slice(&rest[4..4 + len]);
            self.start += 4 + len;
            if head & LAST_FRAGMENT != 0 {
                return Ok(Some(std::mem::take(&mut self.record)));
            }
        }
    }

    /// The server's side of a TCP connection: takes the bytes one read
    /// delivered and appends to `out` the framed reply to every record they
    /// complete (a record that must be dropped gets none). An error means
    /// the connection must be closed after `out` is sent: a record over
    /// [`MAX_RECORD`]. Never panics, whatever the bytes.
    pub fn serve(&mut self, bytes: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
        self.push(bytes);
        while let Some(msg) = self.next_record()? {
            if let Some(reply) = serve_call(&msg) {
                out.extend_from_slice(&frame(&reply));
            }
        }
        Ok(())
    }
}

/// A client calling procedure 1 with a char, over a connected socket.
pub struct Client {
    fd: OwnedFd,
    tcp: bool,
    /// The call, encoded once (framed on TCP); each call patches its xid.
    call: Vec<u8>,
    xid_at: usize,
    xid: u32,
    buf: Vec<u8>,
    /// UDP calls sent again after 100 ms without an answer.
    pub retransmissions: u64,
}

/// How long a UDP call waits before it is sent again.
const RETRANSMIT_AFTER: Duration = Duration::from_millis(100);

impl Client {
    /// A UDP client for the server on 127.0.0.1:`port`.
    pub fn udp(port: u16) -> io::Result<Client> {
        let (fd, _) = ipc::udp_socket()?;
        ipc::connect(&fd, port)?;
        ipc::set_recv_timeout(&fd, RETRANSMIT_AFTER)?;
        Ok(Client::new(fd, false))
    }

    /// A TCP client connected (once, now) to 127.0.0.1:`port`.
    pub fn tcp(port: u16) -> io::Result<Client> {
        let fd = ipc::tcp_connect(port)?;
        ipc::set_recv_timeout(&fd, ipc::ANSWER_TIMEOUT)?;
        Ok(Client::new(fd, true))
    }

    /// A UDP client over a socket already connected to a server (the
    /// remote mode: `lmbench serve` on another machine).
    pub fn connected_udp(fd: OwnedFd) -> io::Result<Client> {
        ipc::set_recv_timeout(&fd, RETRANSMIT_AFTER)?;
        Ok(Client::new(fd, false))
    }

    /// A TCP client over a connection already made to a server.
    pub fn connected_tcp(fd: OwnedFd) -> io::Result<Client> {
        ipc::set_recv_timeout(&fd, ipc::ANSWER_TIMEOUT)?;
        Ok(Client::new(fd, true))
    }

    fn new(fd: OwnedFd, tcp: bool) -> Client {
        let msg = encode_call(0, PROG, VERS, PROC_CHAR, &xdr_char(0));
        let (call, xid_at) = if tcp { (frame(&msg), 4) } else { (msg, 0) };
        Client {
            fd,
            tcp,
            call,
            xid_at,
            xid: 0x1bad_5eed,
            buf: vec![0u8; 1024],
            retransmissions: 0,
        }
    }

    /// Calls procedure 1 with `c` and checks that `c` comes back.
    #[inline]
    pub fn call_char(&mut self, c: u8) -> io::Result<()> {
        self.xid = self.xid.wrapping_add(1);
        let at = self.xid_at;
        self.call[at..at + 4].copy_from_slice(&self.xid.to_be_bytes());
        let n = self.call.len();
        self.call[n - 4..].copy_from_slice(&xdr_char(c));
        let reply_len = if self.tcp {
            self.exchange_tcp()?
        } else {
            self.exchange_udp()?
        };
        let reply = if self.tcp {
            &self.buf[4..reply_len]
        } else {
            &self.buf[..reply_len]
        };
        let (xid, result) = parse_reply(reply)?;
        if xid != self.xid || result != xdr_char(c) {
            return Err(io::Error::other(format!(
                "RPC reply xid {xid:#x} result {result:?}, want xid {:#x} result {:?}",
                self.xid,
                xdr_char(c)
            )));
        }
        Ok(())
    }

    fn exchange_tcp(&mut self) -> io::Result<usize> {
        let fd = self.fd.as_raw_fd();
        let mut sent = 0;
        while sent < self.call.len() {
            sent += sys::write(fd, &self.call[sent..])?;
        }
        // One read normally holds the whole reply; a reply needs its header
        // (last fragment: our server sends one) and then its length.
        let mut got = 0;
        loop {
            let n = sys::read(fd, &mut self.buf[got..]).map_err(timeout_error)?;
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "RPC server closed the connection",
                ));
            }
            got += n;
            if let Some(head) = self.buf[..got].first_chunk::<4>() {
                let head = u32::from_be_bytes(*head);
                let len = (head & !LAST_FRAGMENT) as usize;
                if head & LAST_FRAGMENT == 0 || 4 + len > self.buf.len() {
                    return Err(io::Error::other("RPC reply in fragments or oversized"));
                }
                if got >= 4 + len {
                    return Ok(4 + len);
                }
            }
        }
    }

    fn exchange_udp(&mut self) -> io::Result<usize> {
        let fd = self.fd.as_raw_fd();
        let start = Instant::now();
        sys::write(fd, &self.call)?;
        loop {
            match sys::read(fd, &mut self.buf) {
                // A late answer to an earlier (retransmitted) call: skip it.
                Ok(n) if n >= 4 && self.buf[..4] != self.xid.to_be_bytes() => continue,
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if start.elapsed() >= ipc::ANSWER_TIMEOUT {
                        return Err(timeout_error(e));
                    }
                    self.retransmissions += 1;
                    sys::write(fd, &self.call)?;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

fn timeout_error(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::WouldBlock {
        io::Error::new(
            io::ErrorKind::TimedOut,
            format!("no RPC answer within {:?}", ipc::ANSWER_TIMEOUT),
        )
    } else {
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(reply: &[u8]) -> (u32, u32, u32) {
        let w = |i: usize| u32::from_be_bytes(reply[i * 4..i * 4 + 4].try_into().unwrap());
        (w(2), w(3), if w(2) == MSG_ACCEPTED { w(5) } else { w(3) })
    }

    #[test]
    fn char_round_trip() {
        let reply = serve_call(&encode_call(7, PROG, VERS, PROC_CHAR, &xdr_char(b'x'))).unwrap();
        let (xid, result) = parse_reply(&reply).unwrap();
        assert_eq!((xid, result), (7, &xdr_char(b'x')[..]));
        let reply = serve_call(&encode_call(8, PROG, VERS, PROC_NULL, &[])).unwrap();
        assert_eq!(parse_reply(&reply).unwrap(), (8, &[][..]));
    }

    #[test]
    fn errors_get_proper_replies() {
        let call =
            |prog, vers, p, args: &[u8]| serve_call(&encode_call(1, prog, vers, p, args)).unwrap();
        assert_eq!(stat(&call(1, VERS, 0, &[])).2, PROG_UNAVAIL);
        let mismatch = call(PROG, 9, 0, &[]);
        assert_eq!(stat(&mismatch).2, PROG_MISMATCH);
        assert_eq!(mismatch.len(), 32, "PROG_MISMATCH carries low and high");
        assert_eq!(stat(&call(PROG, VERS, 77, &[])).2, PROC_UNAVAIL);
        assert_eq!(stat(&call(PROG, VERS, PROC_CHAR, &[1, 2])).2, GARBAGE_ARGS);
        let mut bad_vers = encode_call(1, PROG, VERS, 0, &[]);
        bad_vers[11] = 3;
        assert_eq!(stat(&serve_call(&bad_vers).unwrap()).0, MSG_DENIED);
        assert!(parse_reply(&call(1, VERS, 0, &[])).is_err());
    }

    #[test]
    fn garbage_and_truncation_never_panic() {
        let good = encode_call(5, PROG, VERS, PROC_CHAR, &xdr_char(3));
        for cut in 0..good.len() {
            let r = serve_call(&good[..cut]);
            // Cut inside the header: dropped; cut in the args: GARBAGE_ARGS.
            if cut < 40 {
                assert!(r.is_none(), "cut at {cut}");
            } else {
                assert_eq!(stat(&r.unwrap()).2, GARBAGE_ARGS);
            }
        }
        let mut seed = 0x2545_f491_u32;
        for len in 0..200 {
            let junk: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 17;
                    seed ^= seed << 5;
                    seed as u8
                })
                .collect();
            let _ = serve_call(&junk);
            let _ = parse_reply(&junk);
        }
        let mut huge_cred = words(&[1, CALL, 2, PROG, VERS, 0, 0, 4000]);
        huge_cred.extend(vec![0u8; 4000]);
        assert_eq!(stat(&serve_call(&huge_cred).unwrap()).0, MSG_DENIED);
    }

    #[test]
    fn records_reassemble() {
        let mut rb = RecordBuf::default();
        let mut stream = (3u32).to_be_bytes().to_vec();
        stream.extend_from_slice(b"abc");
        stream.extend_from_slice(&frame(b"de"));
        for b in &stream[..stream.len() - 1] {
            rb.push(&[*b]);
        }
        assert_eq!(rb.next_record().unwrap(), None);
        rb.push(&stream[stream.len() - 1..]);
        assert_eq!(rb.next_record().unwrap().as_deref(), Some(&b"abcde"[..]));
        rb.push(&(LAST_FRAGMENT | 1 << 20).to_be_bytes());
        assert!(rb.next_record().is_err());
    }
}
