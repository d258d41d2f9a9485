//! `lmbench`: run the suite, print lmbench's summary tables, list metrics.
//! This file only parses the command line and dispatches (`cmd/`).
// No unwrap on what input can reach: an error, or an `expect` that
// states the invariant (tests may unwrap: clippy.toml).
#![warn(clippy::unwrap_used)]

#[cfg(test)]
mod cli_tests;
mod closed_pipe;
mod cmd;
mod report;
mod saving;
use lmbench::cells;
use lmbench::columns;
use lmbench::criterion_files;
use lmbench::export;
use lmbench::filter;
use lmbench::run;
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
    about = "lmbench's OS and hardware micro-benchmarks, as Criterion groups",
    after_help = lmbench::environment::help()
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: cmd::Cmd,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    closed_pipe::run(
        || {
            workspace::check_env()?;
            cli.command.run()
        },
        |e| {
            eprintln!("lmbench: {e:#}");
            // A run that went on past failed programs measured (and saved)
            // the rest: not an error that measured nothing.
            if e.is::<cmd::run::failures::Partial>() {
                return ExitCode::from(cmd::run::failures::PARTIAL_EXIT);
            }
            // Ctrl-C: the shell's code for a command that SIGINT ended.
            if e.is::<cmd::kernels::Interrupted>() {
                return ExitCode::from(130);
            }
            // 1 is a regression found (`compare --fail-on-regression`,
            // `check`), 125 "cannot tell" (`check`): an error is neither.
            ExitCode::from(2)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every argument and option of every command says what it is in
    /// `--help`.
    #[test]
    fn every_argument_has_help() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                if arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in cmd.get_subcommands() {
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let cmd = Cli::command();
        cmd.clone().debug_assert();
        let mut missing = Vec::new();
        walk(&cmd, "lmbench", &mut missing);
        assert!(missing.is_empty(), "without help: {missing:?}");
    }
}
