//! `lmbench`: run the suite, print lmbench's summary tables, list metrics.

mod cmd_list;
mod cmd_profile;
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
    /// Profile one metric (perf, kernel included, else pprof): flamegraph
    /// SVG, top frames as text, and a differential flamegraph with --vs.
    Profile {
        /// The metric id, e.g. lat_syscall/null (`lmbench list`).
        metric: String,
        /// How long Criterion runs the benchmark under the profiler.
        #[arg(long, default_value_t = 5)]
        seconds: u64,
        /// A saved run (directory, or MACHINE/LABEL under results/) to
        /// compare with: draws a differential flamegraph.
        #[arg(long, value_name = "RUN")]
        vs: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::Run { quick, filter } => cmd_run::run(cmd_run::Options { quick, filter }),
        Cmd::Summary => cmd_summary::run(),
        Cmd::List => cmd_list::run(),
        Cmd::Profile {
            metric,
            seconds,
            vs,
        } => cmd_profile::run(cmd_profile::Options {
            metric,
            seconds,
            vs,
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lmbench: {e:#}");
            ExitCode::FAILURE
        }
    }
}
