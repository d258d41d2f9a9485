//! Saved runs: the ONLY module that reads and writes `results/`.
//!
//! Layout: `results/<machine>/<label>/` holding `run.json` (schema version,
//! suite and tool versions, per-metric statistics and raw samples in ns per
//! iteration), `machine.json` (machine facts), `SUMMARY.txt` (the rendered
//! tables) and optionally `profiles/<metric id, '/' as '__'>.folded`.
//! The results directory is `$LMBENCH_RESULTS`, else `<workspace>/results`.
//! Every writer (`save`, `run --save`, `import`) takes the names
//! ([`check_name`], [`to_name`]), the run's directory ([`run_dir`]), the
//! checks before writing ([`check_root`], [`check_free`]) and SUMMARY.txt's
//! text ([`summary_text`]) from here, so the layout is decided once.
//!
//! A run name (`RUN` on the command line) is `latest` (Criterion's live
//! results), a directory holding a run.json, `machine/label`, or a bare
//! label that only one machine has. [`resolve`] turns one into a [`Run`];
//! every command (summary, compare, export, restore, plot, profile) uses it.
//!
//! - `layout`: names, directories, the checks before writing;
//! - `files`: run.json, machine.json and SUMMARY.txt, loaded and saved;
//! - `resolve`: a RUN of the command line, and the list of saved runs;
//! - `provenance`: a run made now, its suite, tools, date and facts.

mod files;
mod layout;
mod provenance;
mod resolve;

pub use files::*;
pub use layout::*;
pub use provenance::*;
pub use resolve::*;
