//! The helper program benches start as a fresh, small process: echo peers,
//! fork loops, ring members. See `lmbench_support::peer`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(lmbench_support::peer::main(&args));
}
