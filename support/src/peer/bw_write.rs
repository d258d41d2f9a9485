//! `lmbench-peer bw_write`: the writer of bw_pipe, bw_unix and bw_tcp.
//! Writes a buffer over and over until the reader goes away.

use std::io;
use std::net::{Ipv4Addr, TcpStream};
use std::os::fd::AsRawFd;

use crate::bw;

/// `fd1 CHUNK`: writes CHUNK-byte buffers to fd 1 (the pipe or socket the
/// bench gave as stdout). `tcp PORT CHUNK SNDBUF`: connects to
/// 127.0.0.1:PORT, sets SO_SNDBUF, writes CHUNK-byte buffers to it.
/// Ends normally when the reader closes (EPIPE / reset).
pub fn main(args: &[String]) -> io::Result<()> {
    let num = |s: &String| {
        s.parse::<usize>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| io::Error::other(format!("bad number {s:?}")))
    };
    match args {
        [how, chunk] if how == "fd1" => bw::write_forever(1, &vec![0x5a; num(chunk)?]),
        [how, port, chunk, sndbuf] if how == "tcp" => {
            let port = u16::try_from(num(port)?).map_err(io::Error::other)?;
            let sock = TcpStream::connect((Ipv4Addr::LOCALHOST, port))?;
            bw::set_sockopt(sock.as_raw_fd(), libc::SO_SNDBUF, num(sndbuf)?)?;
            bw::write_forever(sock.as_raw_fd(), &vec![0x5a; num(chunk)?])
        }
        _ => Err(io::Error::other(format!(
            "usage: bw_write fd1 CHUNK | bw_write tcp PORT CHUNK SNDBUF (got {args:?})"
        ))),
    }
}
