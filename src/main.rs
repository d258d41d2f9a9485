//! `lmbench`: run the suite, print lmbench's summary tables, list metrics.
//! This file only parses the command line and dispatches (`cmd/`).
// No unwrap on what input can reach: an error, or an `expect` that
// states the invariant (tests may unwrap: clippy.toml).
#![warn(clippy::unwrap_used)]

#[cfg(test)]
mod cli_tests;
mod closed_pipe;
mod cmd;
mod exit;

mod saving;
use lmbench::cells;
use lmbench::criterion_files;
use lmbench::format;
use lmbench::report;
use lmbench::run;
use lmbench::store;
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
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return refuse(e),
    };
    closed_pipe::run(
        || {
            workspace::check_env()?;
            cli.command.run()
        },
        |e| {
            eprintln!("lmbench: {e:#}");
            exit::of_error(&e)
        },
    )
}

/// A command line clap refused: one line on stderr and exit 2, as every
/// other bad input ends. Help and version are not errors and print as
/// clap prints them.
fn refuse(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => e.exit(),
        _ => {
            // Clap prints usage (and so the command's name) for some
            // errors only: name the subcommand from the command line.
            use clap::CommandFactory;
            let cli = Cli::command();
            let command = std::env::args()
                .skip(1)
                .find(|a| cli.find_subcommand(a).is_some())
                .map_or("lmbench".to_owned(), |sub| format!("lmbench {sub}"));
            eprintln!("{}", one_line(&e.render().to_string(), &command));
            ExitCode::from(exit::ERROR)
        }
    }
}

/// Clap's error as one line, as the suite's own errors print: its first paragraph (the `error:` line and
/// any list under it, such as missing arguments), a `tip:` it gives (a
/// similar flag) folded in, and the command's own `--help` instead of the
/// usage block.
fn one_line(rendered: &str, command: &str) -> String {
    let mut paragraphs = rendered.split("\n\n").map(|p| {
        p.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    });
    let mut line = paragraphs
        .next()
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| "bad command line".to_owned());
    let mut command = command.to_owned();
    for p in paragraphs {
        if p.starts_with("tip:") {
            line = format!("{line} ({p})");
        } else if let Some(usage) = p.strip_prefix("Usage: ") {
            let words: Vec<&str> = usage
                .split_whitespace()
                .take_while(|w| !w.starts_with(['-', '<', '[']))
                .collect();
            if !words.is_empty() {
                command = words.join(" ");
            }
        }
    }
    // Every error of the suite starts with its name, clap's too.
    let line = line.strip_prefix("error: ").unwrap_or(&line);
    format!("lmbench: {line}; see {command} --help")
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_errors_are_one_line() {
        for args in [
            &["lmbench", "bogus"][..],
            &["lmbench", "run", "--budget", "1x"],
            &["lmbench", "check", "a", "--new", "b", "--budget", "5m"],
            &["lmbench", "run", "--bugdet", "5m"],
            &["lmbench", "compare"],
        ] {
            let Err(e) = Cli::try_parse_from(args) else {
                panic!("{args:?} parsed")
            };
            let line = one_line(&e.render().to_string(), "lmbench");
            assert!(!line.contains('\n'), "{args:?}: {line}");
            assert!(line.starts_with("lmbench: "), "{args:?}: {line}");
            assert!(!line.contains("error:"), "{args:?}: {line}");
            assert!(line.ends_with(" --help"), "{args:?}: {line}");
        }
        let Err(e) = Cli::try_parse_from(["lmbench", "run", "--bugdet", "5m"]) else {
            panic!("misspelt flag parsed")
        };
        let line = one_line(&e.render().to_string(), "lmbench");
        assert!(
            line.contains("similar argument exists: '--budget'"),
            "{line}"
        );
        assert!(line.ends_with("see lmbench run --help"), "{line}");
        let Err(e) = Cli::try_parse_from(["lmbench", "compare"]) else {
            panic!("compare without runs parsed")
        };
        let line = one_line(&e.render().to_string(), "lmbench");
        assert!(line.contains("not provided: <OLD>"), "{line}");
    }

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
