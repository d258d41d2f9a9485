//! The tiny program `lat_proc exec` and `shell` run: lmbench's "hello".
//! It writes one line and exits 0; kept minimal so exec measures exec.

use std::io::Write;

fn main() {
    let _ = std::io::stdout().write_all(b"Hello world\n");
}
