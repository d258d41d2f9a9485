//! `lmbench-peer echo [split]`: the far end of the latency benches' round
//! trips. Reads what arrives on fd 3 and writes it back, on fd 3 (socket)
//! or on fd 4 (`split`: a pair of pipes), until EOF. Started by
//! `ipc::spawn_with_fds`, which gives it those descriptors.

use std::io;

use crate::sys;

pub fn main(args: &[String]) -> io::Result<()> {
    let (input, output) = match args {
        [] => (3, 3),
        [s] if s == "split" => (3, 4),
        _ => return Err(io::Error::other(format!("bad arguments {args:?}"))),
    };
    // Big enough for any message of the benches (1..4 bytes, a datagram
    // read whole); a stream may split or join messages, which is harmless
    // for an echo.
    let mut buf = [0u8; 256];
    loop {
        let n = match sys::read(input, &mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            // The bench closed a connected UDP socket: nothing left to echo.
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => return Ok(()),
            Err(e) => return Err(e),
        };
        let mut done = 0;
        while done < n {
            done += sys::write(output, &buf[done..n])?;
        }
    }
}
