//! `lmbench`: run the suite, print lmbench's summary tables, list metrics.

mod cmd;
use lmbench::cells;
use lmbench::criterion;
use lmbench::run;
use lmbench::stats;
use lmbench::store;
use lmbench::table;
use lmbench::workspace;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The default busy threshold in percent of a CPU (see
/// `lmbench_support::activity::BUSY_CPUS`).
const BUSY_PCT: f64 = lmbench_support::activity::BUSY_CPUS * 100.0;

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
        /// The quick preset: 10 samples of every metric, under 3 minutes of
        /// benching for the whole suite on 2 cores (the default: about 12).
        #[arg(long)]
        quick: bool,
        /// Before starting, wait until other work uses under 5% of a CPU,
        /// at most SECS seconds (`--wait-idle=SECS`, default 300), then start
        /// anyway.
        #[arg(
            long,
            value_name = "SECS",
            num_args = 0..=1,
            require_equals = true,
            default_missing_value = "300"
        )]
        wait_idle: Option<u64>,
        /// Only metrics whose id matches this regular expression.
        filter: Option<String>,
        /// Repeat the suite N times; with --save, one run pools all samples.
        #[arg(long, default_value_t = 1)]
        runs: u32,
        /// At the end, save the run as results/<machine>/<LABEL>/.
        #[arg(long, value_name = "LABEL")]
        save: Option<String>,
        /// With --save: the machine name (default: the host name).
        #[arg(long, requires = "save")]
        machine: Option<String>,
        /// With --save: replace an existing label.
        #[arg(long, requires = "save")]
        force: bool,
    },
    /// Print lmbench's summary tables: the latest results, or saved runs
    /// (RUN: `latest`, machine/label, or a results directory), one row each.
    Summary {
        runs: Vec<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: cmd::summary::Format,
        /// Show each figure's spread: `--spread=iqr` (the default: ± half the
        /// interquartile range
        /// of the samples) or `ci` (± half the 95% interval of the median).
        #[arg(
            long,
            value_enum,
            num_args = 0..=1,
            require_equals = true,
            default_missing_value = "iqr"
        )]
        spread: Option<cells::Spread>,
        /// Mark figures measured while other work used at least PCT% of a
        /// CPU.
        #[arg(long, value_name = "PCT", default_value_t = BUSY_PCT)]
        busy_threshold: f64,
        /// Instead of the tables: each metric that has a floor (a bare loop
        /// of its operation, `lmbench run floor`) beside it, and the ratio.
        #[arg(long, conflicts_with = "spread")]
        floors: bool,
    },
    /// Save the latest results, machine facts and tables under results/.
    Save {
        #[arg(long)]
        label: String,
        /// Default: the host name.
        #[arg(long)]
        machine: Option<String>,
        /// Replace an existing label.
        #[arg(long)]
        force: bool,
        /// Only metrics whose id matches this regular expression.
        #[arg(long)]
        filter: Option<String>,
    },
    /// Compare two runs: machine facts that differ, then per metric the
    /// change and a verdict from Welch's t-test on the raw samples.
    Compare {
        old: String,
        new: String,
        /// Smaller changes are within noise even if significant (percent).
        #[arg(long, default_value_t = 1.0)]
        threshold: f64,
        /// Only metrics whose id matches this regular expression.
        #[arg(long)]
        filter: Option<String>,
        /// Exit non-zero if a significant regression beyond PCT exists.
        #[arg(long, value_name = "PCT")]
        fail_on_regression: Option<f64>,
        /// Give no verdict on metrics measured while other work used at
        /// least PCT% of a CPU (either run).
        #[arg(long, value_name = "PCT", default_value_t = BUSY_PCT)]
        busy_threshold: f64,
    },
    /// Import the C suite's results (SUMMARY posts of lmbench 1.x-3.x, or
    /// its results files) as runs under results/<host>/<LABEL>/.
    Import {
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
        #[arg(long)]
        label: String,
        /// The machine name, when the files hold one machine (default: its host).
        #[arg(long)]
        machine: Option<String>,
        /// Replace existing runs of that label.
        #[arg(long)]
        force: bool,
    },
    /// Write a saved run back as a Criterion baseline (`--baseline LABEL`).
    Restore {
        run: String,
        /// Baseline name (default: the run's label).
        #[arg(long = "as", value_name = "NAME")]
        name: Option<String>,
    },
    /// Print a run in critcmp's export format.
    Export {
        run: String,
        /// Baseline name critcmp shows (default: machine/label).
        #[arg(long)]
        name: Option<String>,
        /// Write to FILE instead of standard output.
        #[arg(long, short)]
        output: Option<std::path::PathBuf>,
    },
    /// List every metric: unit, summary column, timed region.
    List,
    /// Serve the remote benches of another machine (its LMBENCH_REMOTE):
    /// echo, RPC, accept-and-close and bandwidth services on demand.
    Serve {
        /// IP:PORT of the control port; nothing else is bound but services
        /// on the address a client reaches.
        #[arg(long, value_name = "ADDR:PORT")]
        listen: String,
        /// A shared secret clients must present (default: $LMBENCH_TOKEN).
        #[arg(long)]
        token: Option<String>,
        /// Close a session or service idle for this many seconds.
        #[arg(long, default_value_t = 60, value_name = "SECS")]
        idle: u64,
    },
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
        Cmd::Run {
            quick,
            wait_idle,
            filter,
            runs,
            save,
            machine,
            force,
        } => cmd::run::run(cmd::run::Options {
            quick,
            wait_idle: wait_idle.map(std::time::Duration::from_secs),
            save: save.map(|label| cmd::save::Options {
                label,
                machine,
                force,
                filter: filter.clone(),
            }),
            filter,
            runs,
        }),
        Cmd::Summary {
            runs,
            format,
            spread,
            busy_threshold,
            floors,
        } => cmd::summary::run(
            &runs,
            cmd::summary::Options {
                format,
                spread,
                busy_cpus: busy_threshold / 100.0,
                floors,
            },
        ),
        Cmd::Save {
            label,
            machine,
            force,
            filter,
        } => cmd::save::run(cmd::save::Options {
            label,
            machine,
            force,
            filter,
        }),
        Cmd::Compare {
            old,
            new,
            threshold,
            filter,
            fail_on_regression,
            busy_threshold,
        } => cmd::compare::run(cmd::compare::Options {
            old,
            new,
            threshold,
            filter,
            fail_on_regression,
            busy_cpus: busy_threshold / 100.0,
        }),
        Cmd::Import {
            files,
            label,
            machine,
            force,
        } => cmd::import::run(cmd::import::Options {
            files,
            label,
            machine,
            force,
        }),
        Cmd::Restore { run, name } => cmd::restore::run(&run, name.as_deref()),
        Cmd::Export { run, name, output } => {
            cmd::export::run(&run, name.as_deref(), output.as_deref())
        }
        Cmd::List => cmd::list::run(),
        Cmd::Serve {
            listen,
            token,
            idle,
        } => cmd::serve::run(cmd::serve::Options {
            listen,
            token,
            idle,
        }),
        Cmd::Plot { runs, text, out } => cmd::plot::run(&runs, cmd::plot::Options { text, out }),
        Cmd::Profile {
            metric,
            seconds,
            vs,
        } => cmd::profile::run(cmd::profile::Options {
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
