//! lmbench-support: what every lmbench-rs bench and the CLI share.
//!
//! - [`activity`]: what else the machine did while a benchmark ran.
//! - [`analysis`]: what the summary tables compute from a run, and the
//!   notes under them.
//! - [`catalog`]: the registry of metrics and summary tables.
//! - [`chase`]: pointer-chase chains for the memory-latency benches.
//! - [`ops`]: dependency chains of basic operations (lat_ops).
//! - [`clock`]: the core clock beside every sample, from a one-cycle chain
//!   timed around each call.
//! - [`harness`] (feature `harness`): Criterion glue, timed loops, profilers.
//! - [`sys`]: thin wrappers over raw system calls.
//! - [`kpath`]: the system calls of the benches beyond lmbench (clocks,
//!   futex, thread count, CPU affinity, descriptor limit, fork).
//! - [`rng`]: the one seeded generator (random orders, simulated samples).
//! - [`child`]: child processes as guards (killed and reaped on drop).
//! - [`peer`]: the helper program's side of each multi-process bench.
//! - [`ipc`]: pipes, AF_UNIX, TCP and UDP endpoints, and the peer and
//!   deadline every echo bench needs around them.
//! - [`stall`]: a deadline for blocking reads that have no timeout of
//!   their own, without a second thread.
//! - [`rpc`]: the ONC RPC codec of lat_rpc, client and server sides.
//! - [`protfault`] (Linux): the read-only page and counting SIGSEGV
//!   handler of `lat_sig prot`.
//! - [`leaks`]: the check that a bench process ends with the descriptors
//!   and children it started with.
//! - [`fs`]: scratch directories and files, removed on drop.
//! - [`bw`]: bandwidth endpoints, memory kernels and ceilings.
//! - [`machine`]: machine facts that explain a difference between runs.
//! - [`vm`]: mmap, mprotect, madvise, page faults for the VM benches.
//! - [`size`]: byte sizes (`64k`, `1g`), parsed and printed in one place.
//! - [`atomic_file`]: writing a file that readers see whole or not at all.
//! - [`profile`]: flamegraphs of a metric (perf or pprof), folded stacks.
//! - [`remote`]: `lmbench serve`, its protocol, and the remote benches' client.
//! - [`target_dir`]: where cargo's target directory and Criterion's files
//!   are, the one rule benches and CLI share.
// No unwrap on what input can reach: an error, or an `expect` that
// states the invariant (tests may unwrap: clippy.toml).
#![warn(clippy::unwrap_used)]

pub mod activity;
#[cfg(target_os = "linux")]
mod activity_linux;
pub mod analysis;
pub mod atomic_file;
pub mod bench_lines;
pub mod bw;
pub mod catalog;
pub mod chase;
pub mod child;
pub mod clock;
pub mod folio;
pub mod fs;
#[cfg(feature = "harness")]
pub mod harness;
pub mod ipc;
pub mod kpath;
pub mod leaks;
pub mod machine;
mod machine_linux;
pub mod ops;
pub mod peer;
pub mod profile;
#[cfg(target_os = "linux")]
pub mod protfault;
pub mod remote;
pub mod rng;
pub mod rpc;
pub mod size;
pub mod stall;
pub mod sys;
pub mod target_dir;
pub mod vm;
