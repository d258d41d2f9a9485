//! `lmbench`: run the suite, print lmbench's summary tables, list metrics.

mod cmd_list;
mod cmd_run;
mod cmd_summary;
mod criterion;
mod run;
mod table;
mod workspace;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "lmbench",
    version,
    about = "lmbench's OS and hardware micro-benchmarks, as Criterion groups"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the benches through `cargo bench`, then print the summary.
    Run {
        /// Criterion's quick mode: a few minutes for the whole suite.
        #[arg(long)]
        quick: bool,
        /// Only metrics whose id matches this regular expression.
        filter: Option<String>,
    },
    /// Print lmbench's summary tables for the latest results.
    Summary,
    /// List every metric: unit, summary column, timed region.
    List,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::Run { quick, filter } => cmd_run::run(cmd_run::Options { quick, filter }),
        Cmd::Summary => cmd_summary::run(),
        Cmd::List => cmd_list::run(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lmbench: {e:#}");
            ExitCode::FAILURE
        }
    }
}
