//! The helper program benches start as a fresh, small process: echo peers,
//! fork loops, ring members. See `lmbench_support::peer`.
// No unwrap on what input can reach: an error, or an `expect` that
// states the invariant (tests may unwrap: clippy.toml).
#![warn(clippy::unwrap_used)]

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(lmbench_support::peer::main(&args));
}
