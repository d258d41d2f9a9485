//! `lmbench`: run the suite, print lmbench's summary tables, list metrics.
//! This file only parses the command line and dispatches (`cmd/`).

mod cmd;
mod report;
mod saving;
use lmbench::cells;
use lmbench::columns;
use lmbench::criterion_files;
use lmbench::filter;
use lmbench::results;
use lmbench::stats;
use lmbench::store;
use lmbench::table;
use lmbench::verdict;
use lmbench::workspace;

use std::process::ExitCode;

use clap::Parser;

#[derive(Parser)]
#[command(
    name = "lmbench",
    version,
    about = "lmbench's OS and hardware micro-benchmarks, as Criterion groups"
)]
struct Cli {
    #[command(subcommand)]
    command: cmd::Cmd,
}

fn main() -> ExitCode {
    match Cli::parse().command.run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lmbench: {e:#}");
            // 1 is a regression found (`compare --fail-on-regression`,
            // `check`), 125 "cannot tell" (`check`): an error is neither.
            ExitCode::from(2)
        }
    }
}
