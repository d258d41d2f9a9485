//! The subcommands of `lmbench`, one file each: its `clap::Args` struct
//! and its `run`. The command's one-line help is its variant's doc here.

pub mod check;
pub mod compare;
pub mod completions;
pub mod export;
pub mod import;
pub mod kernels;
pub mod list;
pub mod plot;
pub mod profile;
pub mod restore;
pub mod run;
pub mod save;
pub mod serve;
pub mod summary;

use anyhow::Result;

use crate::exit::Outcome;

#[derive(clap::Subcommand)]
pub enum Cmd {
    /// Run the benches through `cargo bench`, then print the summary.
    Run(run::Args),
    /// Print lmbench's summary tables: the latest results, or saved runs
    /// (RUN: `latest`, machine/label, or a results directory), one row each.
    Summary(summary::Args),
    /// Save the latest results, machine facts and tables under results/.
    Save(save::Args),
    /// Compare two runs: machine facts that differ, whether the machine
    /// itself changed, then per metric the change with its interval and a
    /// verdict.
    Compare(compare::Args),
    /// Check for regressions since a baseline: measure (FILTER's metrics,
    /// rounds within --budget), compare, exit 0 (none), 1 (a regression)
    /// or 125 (cannot tell; `git bisect run` skips).
    Check(check::Args),
    /// Compare two or more kernels in one sitting: each booted in a QEMU
    /// guest (KVM, or instruction counting where KVM does not work), the
    /// sides interleaved A B B A, each saved as a run; then the summary
    /// and the comparison.
    Kernels(kernels::Args),
    /// Import the C suite's results (SUMMARY posts of lmbench 1.x-3.x, or
    /// its results files) as runs under results/<host>/<LABEL>/.
    Import(import::Args),
    /// Write a saved run back as a Criterion baseline (`--baseline LABEL`).
    Restore(restore::Args),
    /// Print a run in critcmp's export format.
    Export(export::Args),
    /// List every metric (unit, summary column, timed region), or describe
    /// the metrics matching METRIC (adding the program, figure and floor).
    List(list::Args),
    /// Serve the remote benches of another machine (its LMBENCH_REMOTE):
    /// echo, RPC, accept-and-close and bandwidth services on demand.
    Serve(serve::Args),
    /// Draw the memory-latency curves (SVG, or text with --text).
    Plot(plot::Args),
    /// Profile one metric (perf, kernel included, else pprof): flamegraph
    /// SVG, top frames as text, and a differential flamegraph with --vs.
    Profile(profile::Args),
    /// Print the completion script of a shell (bash, zsh, fish, elvish,
    /// powershell): `lmbench completions bash > ~/.local/share/bash-completion/completions/lmbench`.
    Completions(completions::CompletionsArgs),
    /// Print the manual page lmbench(1), or write every command's page
    /// into a directory (`--dir`).
    Man(completions::ManArgs),
}

impl Cmd {
    /// Runs the command: what it found (`compare` and `check`), else done.
    pub fn run(self) -> Result<Outcome> {
        let done = |r: Result<()>| r.map(|()| Outcome::Done);
        match self {
            Cmd::Run(a) => done(run::run(a)),
            Cmd::Summary(a) => done(summary::run(a)),
            Cmd::Save(a) => done(save::run(a)),
            Cmd::Compare(a) => compare::run(a),
            Cmd::Check(a) => check::run(a),
            Cmd::Kernels(a) => done(kernels::run(a)),
            Cmd::Import(a) => done(import::run(a)),
            Cmd::Restore(a) => done(restore::run(a)),
            Cmd::Export(a) => done(export::run(a)),
            Cmd::List(a) => done(list::run(a)),
            Cmd::Serve(a) => done(serve::run(a)),
            Cmd::Plot(a) => done(plot::run(a)),
            Cmd::Profile(a) => done(profile::run(a)),
            Cmd::Completions(a) => done(completions::completions(a)),
            Cmd::Man(a) => done(completions::man(a)),
        }
    }
}
