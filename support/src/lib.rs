//! lmbench-support: what every lmbench-rs bench and the CLI share.
//!
//! - [`activity`]: what else the machine did while a benchmark ran.
//! - [`analysis`]: what the summary tables compute from a run, and the
//!   notes under them.
//! - [`catalog`]: the registry of metrics and summary tables.
//! - [`chase`]: pointer-chase chains for the memory-latency benches.
//! - [`ops`]: dependency chains of basic operations (lat_ops).
//! - [`harness`] (feature `harness`): Criterion glue, timed loops, profilers.
//! - [`sys`]: thin wrappers over raw system calls.
//! - [`proc`]: child processes as guards (killed and reaped on drop).
//! - [`peer`]: the helper program's side of each multi-process bench.
//! - [`fs`]: scratch directories and files, removed on drop.
//! - [`import`]: the C suite's SUMMARY tables and results files, read.
//! - [`bw`]: bandwidth endpoints, memory kernels and ceilings.
//! - [`machine`]: machine facts that explain a difference between runs.
//! - [`vm`]: mmap, mprotect, madvise, page faults for the VM benches.
//! - [`size`]: byte sizes (`64k`, `1g`), parsed and printed in one place.
//! - [`atomic_file`]: writing a file that readers see whole or not at all.
//! - [`profile`]: flamegraphs of a metric (perf or pprof), folded stacks.
//! - [`remote`]: `lmbench serve`, its protocol, and the remote benches' client.

pub mod activity;
#[cfg(target_os = "linux")]
mod activity_linux;
pub mod analysis;
pub mod atomic_file;
pub mod bw;
pub mod catalog;
pub mod chase;
pub mod clock;
pub mod fs;
#[cfg(feature = "harness")]
pub mod harness;
pub mod import;
pub mod ipc;
pub mod kpath;
pub mod leaks;
pub mod machine;
mod machine_linux;
pub mod ops;
pub mod peer;
pub mod proc;
pub mod profile;
#[cfg(target_os = "linux")]
pub mod protfault;
pub mod remote;
pub mod rpc;
pub mod size;
pub mod stall;
pub mod sys;
pub mod vm;
