//! `lmbench-peer facts`: prints the machine facts of the system it runs on
//! as one line of JSON, then exits. `lmbench kernels` runs it inside each
//! guest, so a saved side carries the guest kernel's facts (release,
//! command line, mitigations, clocksource), not the host's.

use std::io::{self, Write};

pub fn main(_: &[String]) -> io::Result<()> {
    let facts = crate::machine::Facts::collect();
    let line = serde_json::to_string(&facts).map_err(io::Error::other)?;
    let mut out = io::stdout().lock();
    writeln!(out, "{line}")?;
    out.flush()
}
