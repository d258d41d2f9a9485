//! `lmbench-peer accept`: lat_connect's server. Accepts connections on the
//! listening socket it inherits as fd 3, one at a time; waits for the
//! client's close (EOF), then closes with SO_LINGER {on, 0}, a reset.
//!
//! Why this order: the client closes first (its FIN), so it sits in
//! FIN_WAIT2 until our reset arrives and then vanishes; we never send a FIN,
//! so neither side enters TIME_WAIT, and hundreds of thousands of connects
//! neither exhaust the loopback port range nor fill the TIME_WAIT table.
//! Resetting at once instead (before the client's close) races with the
//! client's connect(2), which may then return ECONNRESET.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::time::Duration;

use crate::{ipc, sys};

pub fn main(args: &[String]) -> io::Result<()> {
    if !args.is_empty() {
        return Err(io::Error::other(format!("bad arguments {args:?}")));
    }
    // SAFETY: fd 3 is the listening socket `ipc::spawn_with_fds` gave
    // us; it stays open for the life of this process (nothing closes it).
    let listener = unsafe { BorrowedFd::borrow_raw(3) };
    let mut buf = [0u8; 64];
    loop {
        let conn = match ipc::accept(listener) {
            Ok(c) => c,
            // The client may reset a connection before we accept it.
            Err(e) if e.kind() == io::ErrorKind::ConnectionAborted => continue,
            Err(e) => return Err(e),
        };
        // A client that never closes must not stall the server for good.
        ipc::set_recv_timeout(&conn, Duration::from_secs(2))?;
        ipc::set_linger_zero(&conn)?;
        while let Ok(n) = sys::read(conn.as_raw_fd(), &mut buf) {
            if n == 0 {
                break;
            }
        }
        drop(conn);
    }
}
