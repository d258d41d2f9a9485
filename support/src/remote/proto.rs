//! The control protocol of `lmbench serve`, as plain functions over bytes
//! (no I/O here, so fuzzers and tests can drive it directly).
//!
//! A session is one TCP connection to the server's control port. Every
//! message is one line of printable ASCII ended by `\n`, at most
//! [`MAX_LINE`] bytes with the newline. The client speaks first:
//!
//! ```text
//! hello 1 [TOKEN]      ->  ok hello SUITE HOST OS...      (or err ...)
//! open SERVICE         ->  ok port N                      (or err ...)
//! bye                  ->  ok bye
//! ```
//!
//! `SERVICE` is one of [`Service::ALL`]; the server opens it on a port the
//! kernel picks, on the address the client reached it at, and serves it
//! until it ends (see `server`). Anything else (a longer line, bytes that
//! are not printable ASCII, an unknown word) is an error: the server
//! answers `err WHY` once and closes the connection.
//!
//! The bandwidth source takes its orders on the data connection itself:
//! 8-byte big-endian byte counts ([`encode_credit`]); it sends exactly what
//! was asked, never more.

use std::fmt;

/// The protocol version this build speaks.
pub const VERSION: u32 = 1;
/// The longest line, newline included.
pub const MAX_LINE: usize = 256;
/// The most bytes a client may have asked the source for and not yet
/// received: a bound on what one request line can make the server send.
pub const MAX_CREDIT: u64 = 1 << 30;

/// The services a client can open, one at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Service {
    /// TCP: one connection, every byte echoed (lat_tcp).
    TcpEcho,
    /// UDP: every datagram from the client's address echoed (lat_udp).
    UdpEcho,
    /// ONC RPC program 404040 over UDP (lat_rpc).
    RpcUdp,
    /// ONC RPC program 404040 over one TCP connection (lat_rpc).
    RpcTcp,
    /// Accept and close (with a reset) every connection (lat_connect).
    Accept,
    /// TCP: sends the bytes the client asks for (bw_tcp, reading).
    Source,
    /// TCP: reads and discards everything (bw_tcp, writing).
    Sink,
}

impl Service {
    pub const ALL: [Service; 7] = [
        Service::TcpEcho,
        Service::UdpEcho,
        Service::RpcUdp,
        Service::RpcTcp,
        Service::Accept,
        Service::Source,
        Service::Sink,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Service::TcpEcho => "tcp_echo",
            Service::UdpEcho => "udp_echo",
            Service::RpcUdp => "rpc_udp",
            Service::RpcTcp => "rpc_tcp",
            Service::Accept => "accept",
            Service::Source => "source",
            Service::Sink => "sink",
        }
    }

    pub fn parse(s: &str) -> Option<Service> {
        Service::ALL.into_iter().find(|v| v.name() == s)
    }

    /// True for the datagram services (a UDP port; TCP otherwise).
    pub fn is_udp(self) -> bool {
        matches!(self, Service::UdpEcho | Service::RpcUdp)
    }
}

impl fmt::Display for Service {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A client's request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request<'a> {
    Hello {
        version: u32,
        token: Option<&'a str>,
    },
    Open(Service),
    Bye,
}

/// The server's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply<'a> {
    Hello {
        suite: &'a str,
        host: &'a str,
        os: &'a str,
    },
    Port(u16),
    Bye,
    Err(&'a str),
}

/// Why a line was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProtoError {
    /// More than [`MAX_LINE`] bytes without a newline.
    TooLong,
    /// A byte that is not printable ASCII.
    NotText,
    Empty,
    /// A first word this protocol does not have.
    Unknown(String),
    /// A known word with arguments of the wrong kind or number.
    BadArgs(&'static str),
}

impl fmt::Display for ProtoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtoError::TooLong => write!(f, "line longer than {MAX_LINE} bytes"),
            ProtoError::NotText => f.write_str("line is not printable ASCII"),
            ProtoError::Empty => f.write_str("empty line"),
            ProtoError::Unknown(w) => write!(f, "unknown message {w:?}"),
            ProtoError::BadArgs(usage) => write!(f, "bad arguments, want `{usage}`"),
        }
    }
}

impl std::error::Error for ProtoError {}

/// The words of a line (without its newline), checked to be printable ASCII.
fn words(line: &[u8]) -> Result<Vec<&str>, ProtoError> {
    if line.len() >= MAX_LINE {
        return Err(ProtoError::TooLong);
    }
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if !line.iter().all(|&b| (0x20..0x7f).contains(&b)) {
        return Err(ProtoError::NotText);
    }
    // Printable ASCII is UTF-8.
    let text = std::str::from_utf8(line).map_err(|_| ProtoError::NotText)?;
    let w: Vec<&str> = text.split(' ').filter(|w| !w.is_empty()).collect();
    if w.is_empty() {
        return Err(ProtoError::Empty);
    }
    Ok(w)
}

/// Parses one request line (without its newline).
pub fn parse_request(line: &[u8]) -> Result<Request<'_>, ProtoError> {
    let w = words(line)?;
    match w.as_slice() {
        ["hello", v, rest @ ..] if rest.len() <= 1 => {
            let version = v
                .parse()
                .map_err(|_| ProtoError::BadArgs("hello VERSION [TOKEN]"))?;
            Ok(Request::Hello {
                version,
                token: rest.first().copied(),
            })
        }
        ["hello", ..] => Err(ProtoError::BadArgs("hello VERSION [TOKEN]")),
        ["open", s] => Service::parse(s)
            .map(Request::Open)
            .ok_or(ProtoError::BadArgs(
                "open tcp_echo|udp_echo|rpc_udp|rpc_tcp|accept|source|sink",
            )),
        ["open", ..] => Err(ProtoError::BadArgs("open SERVICE")),
        ["bye"] => Ok(Request::Bye),
        [w, ..] => Err(ProtoError::Unknown(w.chars().take(32).collect())),
        [] => Err(ProtoError::Empty),
    }
}

/// Encodes a request as a line, newline included.
pub fn format_request(r: &Request) -> String {
    match r {
        Request::Hello {
            version,
            token: Some(t),
        } => format!("hello {version} {t}\n"),
        Request::Hello { version, .. } => format!("hello {version}\n"),
        Request::Open(s) => format!("open {s}\n"),
        Request::Bye => "bye\n".to_string(),
    }
}

/// The text after the first `n` space-separated words, trimmed.
fn rest_after(text: &str, n: usize) -> &str {
    let mut rest = text.trim_end_matches('\r');
    for _ in 0..n {
        rest = rest.trim_start_matches(' ');
        rest = rest.find(' ').map_or("", |i| &rest[i..]);
    }
    rest.trim()
}

/// Parses one reply line (without its newline).
pub fn parse_reply(line: &[u8]) -> Result<Reply<'_>, ProtoError> {
    let w = words(line)?;
    match w.as_slice() {
        ["ok", "hello", suite, host, _, ..] => {
            // The OS is the rest of the line, spaces and all.
            let text = std::str::from_utf8(line).map_err(|_| ProtoError::NotText)?;
            Ok(Reply::Hello {
                suite,
                host,
                os: rest_after(text, 4),
            })
        }
        ["ok", "hello", ..] => Err(ProtoError::BadArgs("ok hello SUITE HOST OS")),
        ["ok", "port", p] => p
            .parse::<u16>()
            .ok()
            .filter(|&p| p != 0)
            .map(Reply::Port)
            .ok_or(ProtoError::BadArgs("ok port N")),
        ["ok", "bye"] => Ok(Reply::Bye),
        ["err", ..] => {
            let text = std::str::from_utf8(line).map_err(|_| ProtoError::NotText)?;
            Ok(Reply::Err(rest_after(text, 1)))
        }
        [w, ..] => Err(ProtoError::Unknown(w.chars().take(32).collect())),
        [] => Err(ProtoError::Empty),
    }
}

/// Encodes a reply as a line, newline included. Host and OS are made
/// printable (other bytes become `?`; spaces in the host become `_`) and
/// cut to fit the line.
pub fn format_reply(r: &Reply) -> String {
    let clean = |s: &str, space: char, max: usize| -> String {
        s.chars()
            .map(|c| match c {
                ' ' => space,
                c if (' '..='~').contains(&c) => c,
                _ => '?',
            })
            .take(max)
            .collect()
    };
    match r {
        Reply::Hello { suite, host, os } => format!(
            "ok hello {} {} {}\n",
            clean(suite, '_', 32),
            clean(host, '_', 64),
            clean(os, ' ', 128)
        ),
        Reply::Port(p) => format!("ok port {p}\n"),
        Reply::Bye => "ok bye\n".to_string(),
        Reply::Err(m) => format!("err {}\n", clean(m, ' ', MAX_LINE - 8)),
    }
}

/// Splits a byte stream into lines, refusing one longer than [`MAX_LINE`]
/// (the buffer never holds more than that).
#[derive(Default)]
pub struct LineBuf {
    buf: Vec<u8>,
}

impl LineBuf {
    /// How many more bytes may be pushed before a line must have ended.
    pub fn room(&self) -> usize {
        MAX_LINE - self.buf.len()
    }

    /// Appends bytes read from the stream; at most [`LineBuf::room`].
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), ProtoError> {
        if bytes.len() > self.room() {
            return Err(ProtoError::TooLong);
        }
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    /// The next complete line without its newline, `None` if more bytes
    /// are needed; an error once the buffer is full with no newline.
    pub fn next_line(&mut self) -> Result<Option<Vec<u8>>, ProtoError> {
        match self.buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                let line = self.buf[..i].to_vec();
                self.buf.drain(..=i);
                Ok(Some(line))
            }
            None if self.buf.len() >= MAX_LINE => Err(ProtoError::TooLong),
            None => Ok(None),
        }
    }
}

/// A source order: `n` more bytes, 8 bytes big-endian.
pub fn encode_credit(n: u64) -> [u8; 8] {
    n.to_be_bytes()
}

/// Adds the orders in `bytes` (whole 8-byte words; a partial one stays in
/// `pending`) to `credit`; an error if the outstanding credit would pass
/// [`MAX_CREDIT`].
pub fn add_credit(pending: &mut Vec<u8>, bytes: &[u8], credit: &mut u64) -> Result<(), String> {
    pending.extend_from_slice(bytes);
    let whole = pending.len() / 8 * 8;
    for w in pending[..whole].chunks_exact(8) {
        let n = u64::from_be_bytes(w.try_into().expect("8 bytes"));
        match credit.checked_add(n) {
            Some(c) if c <= MAX_CREDIT => *credit = c,
            _ => return Err(format!("asked for more than {MAX_CREDIT} bytes at once")),
        }
    }
    pending.drain(..whole);
    Ok(())
}

/// Constant-time comparison of a presented token with the expected one, so
/// the time of a refusal does not tell how much of a guess was right.
pub fn token_matches(expected: &str, presented: Option<&str>) -> bool {
    let Some(p) = presented else {
        return false;
    };
    let (a, b) = (expected.as_bytes(), p.as_bytes());
    let mut diff = (a.len() ^ b.len()) as u8 | u8::from(a.len() != b.len());
    for i in 0..a.len().max(b.len()) {
        diff |= a.get(i).copied().unwrap_or(0) ^ b.get(i).copied().unwrap_or(0xff);
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_trip() {
        for r in [
            Request::Hello {
                version: 1,
                token: None,
            },
            Request::Hello {
                version: 1,
                token: Some("s3cret"),
            },
            Request::Open(Service::RpcTcp),
            Request::Bye,
        ] {
            let line = format_request(&r);
            assert_eq!(parse_request(line.trim_end().as_bytes()), Ok(r));
        }
        for s in Service::ALL {
            assert_eq!(Service::parse(s.name()), Some(s));
        }
    }

    #[test]
    fn replies_round_trip() {
        let hello = Reply::Hello {
            suite: "0.1.0",
            host: "peer",
            os: "Linux 6.1.0-13-amd64",
        };
        for r in [
            hello,
            Reply::Port(4242),
            Reply::Bye,
            Reply::Err("bad token"),
        ] {
            let line = format_reply(&r);
            assert!(line.len() <= MAX_LINE);
            assert_eq!(parse_reply(line.trim_end().as_bytes()), Ok(r));
        }
        let odd = format_reply(&Reply::Hello {
            suite: "1",
            host: "a b\u{7}",
            os: "Lin\nux",
        });
        assert_eq!(odd, "ok hello 1 a_b? Lin?ux\n");
    }

    #[test]
    fn bad_lines_are_refused() {
        assert_eq!(parse_request(b""), Err(ProtoError::Empty));
        assert_eq!(parse_request(b"  "), Err(ProtoError::Empty));
        assert_eq!(parse_request(b"\x00\xffhello"), Err(ProtoError::NotText));
        assert_eq!(parse_request(&[b'a'; MAX_LINE]), Err(ProtoError::TooLong));
        assert!(
            matches!(parse_request(b"GET / HTTP/1.0"), Err(ProtoError::Unknown(w)) if w == "GET")
        );
        assert!(matches!(
            parse_request(b"open shell"),
            Err(ProtoError::BadArgs(_))
        ));
        assert!(matches!(
            parse_request(b"hello x"),
            Err(ProtoError::BadArgs(_))
        ));
        assert!(matches!(
            parse_request(b"hello 1 a b"),
            Err(ProtoError::BadArgs(_))
        ));
        assert!(matches!(
            parse_reply(b"ok port 0"),
            Err(ProtoError::BadArgs(_))
        ));
        assert!(matches!(
            parse_reply(b"ok port 70000"),
            Err(ProtoError::BadArgs(_))
        ));
    }

    #[test]
    fn lines_are_bounded() {
        let mut lb = LineBuf::default();
        lb.push(b"hello 1\nop").unwrap();
        assert_eq!(lb.next_line().unwrap().as_deref(), Some(&b"hello 1"[..]));
        assert_eq!(lb.next_line().unwrap(), None);
        lb.push(b"en sink\n").unwrap();
        assert_eq!(lb.next_line().unwrap().as_deref(), Some(&b"open sink"[..]));
        let mut lb = LineBuf::default();
        lb.push(&[b'x'; MAX_LINE]).unwrap();
        assert_eq!(lb.room(), 0);
        assert_eq!(lb.next_line(), Err(ProtoError::TooLong));
        assert_eq!(lb.push(b"y"), Err(ProtoError::TooLong));
    }

    #[test]
    fn credit_is_bounded_and_reassembled() {
        let (mut pending, mut credit) = (Vec::new(), 0u64);
        let order = encode_credit(10 << 20);
        add_credit(&mut pending, &order[..3], &mut credit).unwrap();
        assert_eq!(credit, 0);
        add_credit(&mut pending, &order[3..], &mut credit).unwrap();
        assert_eq!(credit, 10 << 20);
        assert!(add_credit(&mut pending, &encode_credit(MAX_CREDIT), &mut credit).is_err());
        assert!(add_credit(&mut Vec::new(), &encode_credit(u64::MAX), &mut 1).is_err());
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(token_matches("abc", Some("abc")));
        for bad in [None, Some(""), Some("ab"), Some("abcd"), Some("abd")] {
            assert!(!token_matches("abc", bad), "{bad:?}");
        }
    }
}
