//! One step on this machine: the programs built once with `cargo bench
//! --no-run`, then each step a `cargo bench` of one program, its output
//! to the session's log, its results read back from Criterion's files;
//! and the idle check before the first step.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Seek, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use lmbench_support::catalog::Program;
use regex::Regex;

use super::failures;
use crate::run::MetricStats;
use crate::workspace;

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

/// `cargo bench --no-run` of the programs the run will time, before
/// anything is timed.
pub(super) fn build_benches(programs: &[&Program]) -> Result<()> {
    eprintln!("building benches (cargo bench --no-run)...");
    let mut cmd = Command::new(cargo());
    lmbench_support::child::die_with_parent(&mut cmd)
        .current_dir(workspace::root())
        .args(["bench", "--no-run", "--quiet"]);
    for p in programs {
        cmd.args(["--bench", p.name]);
    }
    let status = cmd.status().context("running cargo (is it on PATH?)")?;
    if !status.success() {
        bail!("building the benches failed (see cargo's output above)");
    }
    Ok(())
}

/// Runs program `p`'s benches matching `filter` through `cargo bench`,
/// Criterion's output to `log`, its "time:" lines echoed to stderr, and
/// stamps the program's results as this build's.
pub(super) fn bench_program(
    p: &'static Program,
    filter: Option<&str>,
    quick: bool,
    log: &mut std::fs::File,
    log_path: &std::path::Path,
) -> Result<Vec<(String, Duration)>> {
    // cargo dies with us (and the bench with cargo, see
    // harness::config), so a killed run leaves no bench behind.
    let mut cmd = Command::new(cargo());
    lmbench_support::child::die_with_parent(&mut cmd);
    cmd.current_dir(workspace::root())
        .args(["bench", "--quiet", "--bench", p.name, "--"])
        .env("LMBENCH_PRESET", if quick { "quick" } else { "default" })
        .stdout(Stdio::piped())
        .stderr(log.try_clone()?);
    if let Some(f) = filter {
        cmd.arg(f);
    }
    // Where this program's output starts in the log: its failure's reason
    // is read from there.
    let log_start = log.stream_position()?;
    let mut child = cmd.spawn().context("running cargo bench")?;
    let stdout = child.stdout.take().expect("piped");
    // A long id is printed on a line of its own, "time:" on the next.
    let mut previous = String::new();
    // Each result's time since the one before: what its metric cost.
    let mut timed = Vec::new();
    let mut last = Instant::now();
    for line in BufReader::new(stdout).lines() {
        let line = line?;
        writeln!(log, "{line}")?;
        // Criterion prints "<id>   time:   [low est high]" per benchmark.
        if let Some((id, rest)) = line.split_once("time:") {
            let id = id.trim();
            let id = if id.is_empty() { previous.trim() } else { id };
            eprintln!("      {id:<36} {}", rest.trim());
            timed.push((id.to_string(), last.elapsed()));
            last = Instant::now();
        }
        // Reference figures a bench prints beside its own (bw_mem's
        // memcpy/memset ceilings), and the harness's note of a
        // benchmark measured while other work ran.
        if line.starts_with("ceiling: ") || line.starts_with("busy: ") {
            eprintln!("      {line}");
        }
        previous = line;
    }
    let status = child.wait()?;
    if !status.success() {
        return Err(failures::Failure::read(p, filter, status, log_path, log_start).into());
    }
    crate::criterion_files::write_stamp(&crate::criterion_files::home(), p.name)?;
    Ok(timed)
}

/// How long `run` watches the machine before it starts, and between
/// checks while it waits for idle.
const IDLE_SAMPLE_S: f64 = 1.0;

/// Warns when other work is using the machine (it would be flagged in every
/// figure it overlaps); with `wait`, checks again each second until the
/// machine is idle or the time is up, then starts either way.
pub(super) fn idle_check(wait: Option<std::time::Duration>) {
    use lmbench_support::activity::{sample, BUSY_CPUS};
    let started = Instant::now();
    let mut said = false;
    loop {
        let a = sample(IDLE_SAMPLE_S);
        if !a.is_busy(BUSY_CPUS) {
            if said {
                eprintln!("the machine is idle now ({})", a.describe());
            }
            return;
        }
        match wait {
            None => {
                eprintln!(
                    "warning: the machine is not idle: {}. Figures measured while other \
                     work runs are marked busy and get no verdict in `compare`; \
                     `--wait-idle` waits for it to end.",
                    a.describe()
                );
                return;
            }
            Some(limit) if started.elapsed() >= limit => {
                eprintln!(
                    "warning: still not idle after {:.0} s ({}); starting anyway: busy \
                     figures will be marked.",
                    started.elapsed().as_secs_f64(),
                    a.describe()
                );
                return;
            }
            Some(_) => {
                if !said {
                    eprintln!("waiting for the machine to be idle: {}", a.describe());
                    said = true;
                }
            }
        }
    }
}

/// The results this invocation produced: the selected programs' metrics
/// that match the filter and were written since `since` (older results of
/// other or skipped metrics stay out). Empty when none was.
pub(super) fn results_since(
    programs: &[&'static Program],
    filter: Option<&str>,
    since: std::time::SystemTime,
) -> Result<BTreeMap<String, MetricStats>> {
    let re = filter.map(Regex::new).transpose()?;
    let home = crate::criterion_files::home();
    let mut out = BTreeMap::new();
    for m in programs.iter().flat_map(|p| p.metrics.iter()) {
        if re.as_ref().is_some_and(|re| !re.is_match(m.id)) {
            continue;
        }
        if !crate::criterion_files::written_since(&home, m.id, since) {
            continue;
        }
        if let Some(s) = crate::criterion_files::read_benchmark(&home, m.id)? {
            out.insert(m.id.to_string(), s);
        }
    }
    Ok(out)
}
