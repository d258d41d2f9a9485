//! The CLI's data layer as a library: Criterion's files (`criterion_files`),
//! the saved-run store (`store`, publishing through `publish`), the one run
//! type (`run`), its statistics, the reports (`report`: each one model
//! for every format), the writers of the output formats (`format`) and
//! the reader of the C suite's results (`import`).
//! The `lmbench` binary uses it, and so do what must call these readers
//! directly: the fuzz targets under `fuzz/` and the property tests.
//! (The subcommands stay in the binary.)
// No unwrap on what input can reach: an error, or an `expect` that
// states the invariant (tests may unwrap: clippy.toml).
#![warn(clippy::unwrap_used)]

pub mod cells;
pub mod columns;
pub mod criterion_files;
pub mod environment;
pub mod filter;
pub mod flags;
pub mod format;
pub mod import;
pub mod lock;
pub mod publish;
pub mod report;
pub mod run;
pub mod session;
pub mod stats;
pub mod store;
pub mod table;
pub mod verdict;
pub mod workspace;
