//! The helper program's side (`lmbench-peer MODE`): small, fresh,
//! single-threaded processes that benches start for anything needing a
//! second process or a fork from a small address space. One file per mode.
//!
//! Protocol: requests are lines on stdin, replies `ok PAYLOAD` or
//! `err MESSAGE` lines on stdout (see [`crate::child::Peer`]). A peer exits
//! when its stdin closes, and (Linux) when its parent dies.

use std::io::{self, BufRead, Write};

/// The entry point of a Linux-only mode: its `linux::main` there, and
/// elsewhere a peer that answers every request [`UNAVAILABLE`].
macro_rules! linux_only_main {
    () => {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        pub fn main(args: &[String]) -> std::io::Result<()> {
            linux::main(args)
        }

        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        pub fn main(_: &[String]) -> std::io::Result<()> {
            super::serve_unavailable("Linux-only")
        }
    };
}

pub mod accept;
pub mod bw_write;
pub mod ctx;
pub mod echo;
pub mod facts;
pub mod floor;
pub mod line;
pub mod proc;
pub mod rpc;
pub mod scale;
pub mod spawn;
pub mod wake;

/// A mode's entry point, given the arguments after the mode name.
type ModeMain = fn(&[String]) -> io::Result<()>;

/// Every mode: its name and its entry point.
static MODES: &[(&str, ModeMain)] = &[
    ("proc", |_| serve(proc::request)),
    ("floor", floor::main),
    ("ctx", ctx::main),
    ("echo", echo::main),
    ("accept", accept::main),
    ("rpc", rpc::main),
    ("bw_write", bw_write::main),
    ("wake", wake::main),
    ("spawn", spawn::main),
    ("scale", scale::main),
    ("line", line::main),
    ("facts", facts::main),
];

/// Entry point of `lmbench-peer`; returns the exit code.
pub fn main(args: &[String]) -> i32 {
    let mode = args.first().map(String::as_str).unwrap_or("");
    let result = match MODES.iter().find(|(name, _)| *name == mode) {
        Some((_, run)) => run(&args[1..]),
        None => {
            let names: Vec<&str> = MODES.iter().map(|(n, _)| *n).collect();
            Err(io::Error::other(format!(
                "unknown mode {mode:?}; modes: {}",
                names.join(", ")
            )))
        }
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("lmbench-peer {mode}: {e}");
            1
        }
    }
}

/// The start of every error reply of a peer that cannot measure on this
/// machine (a kind this kernel lacks, one CPU, another OS): benches skip
/// the metric with the reason instead of failing it.
pub const UNAVAILABLE: &str = "unavailable: ";

/// Answers every request with [`UNAVAILABLE`] and `why`, until stdin closes.
pub fn serve_unavailable(why: impl std::fmt::Display) -> io::Result<()> {
    serve(|_| Err(io::Error::other(format!("{UNAVAILABLE}{why}"))))
}

/// Answers request lines until stdin closes.
pub fn serve(mut handle: impl FnMut(&[&str]) -> io::Result<String>) -> io::Result<()> {
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line?;
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() {
            continue;
        }
        match handle(&words) {
            Ok(payload) => writeln!(out, "ok {payload}")?,
            Err(e) => writeln!(out, "err {e}")?,
        }
        out.flush()?;
    }
    Ok(())
}
