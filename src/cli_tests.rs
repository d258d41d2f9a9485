//! Every value-taking argument of every command, walked from clap's own
//! `Command` tree, refuses the values its type must refuse at parse time:
//! exit 2, one `error:` line naming the argument, no panic. Parsing is all
//! that runs, so nothing is built, measured, read or written first. An
//! argument added later is walked without editing this file; one of a new
//! type fails here until its bad values are listed in `bad_values`.

use std::any::TypeId;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use clap::{CommandFactory, Parser};
use lmbench::flags::{
    BaselineName, Budget, BusyShare, Count, Label, MachineName, MetricFilter, MetricId, Percent,
    RunSpec, Secs,
};

use super::Cli;

/// A value of each type that parses (for the arguments before the one
/// under test), and the values it must refuse; `None`: a type this test
/// does not know yet.
fn values(arg: &clap::Arg) -> Option<(String, Vec<&'static str>)> {
    let t = arg.get_value_parser().type_id();
    let is = |id: TypeId| t == id;
    let counts = vec![
        "",
        "abc",
        "NaN",
        "inf",
        "-1",
        "0",
        "1.5",
        "99999999999999999999",
    ];
    let pcts = vec!["", "abc", "NaN", "inf", "-inf", "-1", "0", "1e400"];
    let too_long: &'static str = "x".repeat(65).leak();
    let names = vec!["", "..", "../x", "a/b", ".x", "x y", too_long];
    let possible = arg.get_possible_values();
    Some(if !possible.is_empty() {
        (possible[0].get_name().to_string(), vec!["", "nope"])
    } else if is(TypeId::of::<Budget>()) {
        let bad = ["", "abc", "NaN", "inf", "-5m", "0", "0s", "169h"];
        (
            "1m".into(),
            [&bad[..], &["99999999999999999999h", "1e400s"]].concat(),
        )
    } else if is(TypeId::of::<Percent>()) || is(TypeId::of::<BusyShare>()) {
        ("5".into(), pcts)
    } else if is(TypeId::of::<Label>())
        || is(TypeId::of::<MachineName>())
        || is(TypeId::of::<BaselineName>())
    {
        ("x".into(), names)
    } else if is(TypeId::of::<RunSpec>()) {
        ("x".into(), vec!["", " "])
    } else if is(TypeId::of::<MetricFilter>()) {
        ("x".into(), vec!["(", "[z-a]"])
    } else if is(TypeId::of::<MetricId>()) {
        let first = lmbench_support::catalog::all_metrics().next()?.id;
        (first.into(), vec!["", "NaN", "nope/nope", "../x"])
    } else if is(TypeId::of::<Count>()) || is(TypeId::of::<Secs>()) || is(TypeId::of::<u32>()) {
        ("1".into(), counts)
    } else if is(TypeId::of::<f64>()) {
        // Seconds for Criterion (`kernels --warm-up-time`).
        ("1".into(), [&pcts[..], &["3601"]].concat())
    } else if is(TypeId::of::<(usize, String)>()) {
        // `kernels --rig SIDE=CHANGE`.
        (
            "b=seccomp 50".into(),
            vec!["", "b", "=seccomp 50", "b=seccomp 0", "b=x", "../x"],
        )
    } else if is(TypeId::of::<u64>()) {
        // Sizes (`kernels --memory`): with a unit, and at least a floor.
        (
            "2g".into(),
            [&counts[..], &["99999999999999999999g"]].concat(),
        )
    } else if is(TypeId::of::<std::net::SocketAddr>()) {
        (
            "127.0.0.1:1".into(),
            vec!["", "x", "127.0.0.1", "127.0.0.1:99999"],
        )
    } else if is(TypeId::of::<String>()) {
        // Free-form text: anything in UTF-8.
        ("x".into(), vec![])
    } else if is(TypeId::of::<PathBuf>()) {
        // A path may be any bytes, `..` included; only empty names none.
        ("x".into(), vec![""])
    } else {
        return None;
    })
}

/// Whether non-UTF-8 must be refused with the argument named: all but
/// paths (any bytes name a file) and clap's enums (clap's own UTF-8
/// error, still exit 2, names no argument).
fn wants_utf8(arg: &clap::Arg) -> bool {
    arg.get_possible_values().is_empty()
        && arg.get_value_parser().type_id() != TypeId::of::<PathBuf>()
}

/// The command line giving `value` to `arg` of the command at `path`
/// (positionals before it get good values).
fn line(path: &[String], cmd: &clap::Command, arg: &clap::Arg, value: &OsStr) -> Vec<OsString> {
    let mut argv: Vec<OsString> = std::iter::once("lmbench".to_string())
        .chain(path.iter().cloned())
        .map(OsString::from)
        .collect();
    match arg.get_long() {
        Some(long) => {
            let mut a = OsString::from(format!("--{long}="));
            a.push(value);
            argv.push(a);
        }
        None => {
            argv.push("--".into());
            for before in cmd.get_positionals() {
                if before.get_id() == arg.get_id() {
                    break;
                }
                argv.push(values(before).map_or("x".into(), |v| v.0).into());
            }
            argv.push(value.to_os_string());
        }
    }
    argv
}

/// What names `arg` in clap's messages: `--long`, or a positional's
/// value name.
fn named(arg: &clap::Arg) -> String {
    match arg.get_long() {
        Some(long) => format!("--{long}"),
        None => arg.get_value_names().and_then(|v| v.first()).map_or_else(
            || arg.get_id().to_string().to_uppercase(),
            |v| v.to_string(),
        ),
    }
}

fn walk(
    cmd: &clap::Command,
    path: &mut Vec<String>,
    failures: &mut Vec<String>,
    tried: &mut usize,
) {
    for arg in cmd.get_arguments() {
        if !arg.get_action().takes_values() {
            continue;
        }
        let Some((_, bad)) = values(arg) else {
            failures.push(format!(
                "lmbench {} {}: a type this test does not know: list its bad values in values()",
                path.join(" "),
                named(arg)
            ));
            continue;
        };
        let mut cases: Vec<OsString> = bad.into_iter().map(OsString::from).collect();
        if wants_utf8(arg) {
            cases.push(OsStr::from_bytes(b"x\xff").to_os_string());
        }
        for value in cases {
            *tried += 1;
            let argv = line(path, cmd, arg, &value);
            let shown = format!("{argv:?}");
            let parsed = std::panic::catch_unwind(|| Cli::try_parse_from(&argv));
            let err = match parsed {
                Err(_) => {
                    failures.push(format!("{shown}: panicked"));
                    continue;
                }
                Ok(Ok(_)) => {
                    failures.push(format!("{shown}: accepted"));
                    continue;
                }
                Ok(Err(e)) => e,
            };
            let text = err.render().to_string();
            // What main prints of it.
            let shown_line = crate::one_line(&text, "lmbench");
            if err.exit_code() != 2 || !err.use_stderr() {
                failures.push(format!("{shown}: exit {} ({text})", err.exit_code()));
            } else if shown_line.contains('\n') || !shown_line.contains(&named(arg)) {
                failures.push(format!(
                    "{shown}: not one line naming {}: {text}",
                    named(arg)
                ));
            } else if text.contains("panicked") {
                failures.push(format!("{shown}: {text}"));
            }
        }
    }
    for sub in cmd.get_subcommands() {
        path.push(sub.get_name().to_string());
        walk(sub, path, failures, tried);
        path.pop();
    }
}

#[test]
fn every_value_taking_argument_refuses_bad_values_at_parse_time() {
    let cmd = Cli::command();
    let (mut failures, mut tried) = (Vec::new(), 0);
    walk(&cmd, &mut Vec::new(), &mut failures, &mut tried);
    assert!(tried > 100, "walked only {tried} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Flags that mean nothing beside others are refused, not ignored.
#[test]
fn flags_without_effect_are_refused() {
    for argv in [
        &["check", "b", "--new", "r", "--budget", "5m"][..],
        &["check", "b", "--new", "r", "--full"],
        &["run", "--threshold", "3"],
        &["run", "--against", "x"],
        &["run", "--runs", "2", "--budget", "5m"],
        &["run", "--machine", "m"],
        &["plot", "--text", "--out", "x.svg"],
        &["summary", "--floors", "--spread"],
    ] {
        let argv: Vec<&str> = std::iter::once("lmbench")
            .chain(argv.iter().copied())
            .collect();
        match Cli::try_parse_from(&argv) {
            Ok(_) => panic!("{argv:?}: accepted"),
            Err(e) => assert_eq!(e.exit_code(), 2, "{argv:?}: {e}"),
        }
    }
}
