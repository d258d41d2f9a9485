//! lmbench-support: what every lmbench-rs bench and the CLI share.
//!
//! - [`catalog`]: the registry of metrics and summary tables.
//! - [`harness`] (feature `harness`): Criterion glue, timed loops, profilers.
//! - [`sys`]: thin wrappers over raw system calls.
//! - [`proc`]: child processes as guards (killed and reaped on drop).
//! - [`peer`]: the helper program's side of each multi-process bench.
//! - [`fs`]: scratch directories and files, removed on drop.
//! - [`machine`]: machine facts that explain a difference between runs.
//! - [`profile`]: flamegraphs of a metric (perf or pprof), folded stacks.

pub mod catalog;
pub mod fs;
#[cfg(feature = "harness")]
pub mod harness;
pub mod machine;
pub mod peer;
pub mod proc;
pub mod profile;
pub mod sys;
