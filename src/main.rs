//! `lmbench`: run the suite, print lmbench's summary tables, list metrics.

mod cmd_list;
mod cmd_plot;
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
    /// Draw the memory-latency curves (SVG, or text with --text).
    Plot {
        /// Saved runs to draw (default: the latest run).
        runs: Vec<String>,
        /// Draw in the terminal instead of writing an SVG.
        #[arg(long)]
        text: bool,
        /// Where to write the SVG (default: target/lmbench/lat_mem_rd.svg).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::Run { quick, filter } => cmd_run::run(cmd_run::Options { quick, filter }),
        Cmd::Summary => cmd_summary::run(),
        Cmd::List => cmd_list::run(),
        Cmd::Plot { runs, text, out } => cmd_plot::run(&runs, cmd_plot::Options { text, out }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lmbench: {e:#}");
            ExitCode::FAILURE
        }
    }
}
