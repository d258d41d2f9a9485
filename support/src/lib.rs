//! lmbench-support: what every lmbench-rs bench and the CLI share.
//!
//! - [`catalog`]: the registry of metrics and summary tables.
//! - [`chase`]: pointer-chase chains for the memory-latency benches.
//! - [`ops`]: dependency chains of basic operations (lat_ops).
//! - [`harness`] (feature `harness`): Criterion glue, timed loops, profilers.
//! - [`sys`]: thin wrappers over raw system calls.
//! - [`proc`]: child processes as guards (killed and reaped on drop).
//! - [`peer`]: the helper program's side of each multi-process bench.
//! - [`fs`]: scratch directories and files, removed on drop.
//! - [`machine`]: machine facts that explain a difference between runs.

pub mod catalog;
pub mod chase;
pub mod fs;
#[cfg(feature = "harness")]
pub mod harness;
pub mod machine;
pub mod ops;
pub mod peer;
pub mod proc;
pub mod sys;
