//! `lmbench-peer accept`: lat_connect's server. Accepts connections on the
//! listening socket it inherits as fd 3 and closes each at once, with
//! SO_LINGER {on, 0} so the close is a reset: neither side keeps a
//! TIME_WAIT socket, and thousands of connects per second cannot exhaust
//! the loopback port space or fill the TIME_WAIT table.

use std::io;
use std::os::fd::AsRawFd;

use crate::ipc;

pub fn main(args: &[String]) -> io::Result<()> {
    if !args.is_empty() {
        return Err(io::Error::other(format!("bad arguments {args:?}")));
    }
    loop {
        let conn = match ipc::accept(3) {
            Ok(c) => c,
            // The client may reset a connection before we accept it.
            Err(e) if e.kind() == io::ErrorKind::ConnectionAborted => continue,
            Err(e) => return Err(e),
        };
        ipc::set_linger_zero(conn.as_raw_fd())?;
        drop(conn);
    }
}
