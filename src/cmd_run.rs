//! `lmbench run [--quick] [FILTER]`: runs the suite's Criterion groups
//! through `cargo bench`, one program at a time, with a line of progress per
//! group, then prints the summary. Criterion's own output goes to
//! `target/lmbench/run.log`; its "time:" lines are echoed as they come.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use lmbench_support::catalog::{Program, PROGRAMS};
use regex::Regex;

use crate::workspace;

pub struct Options {
    pub quick: bool,
    pub filter: Option<String>,
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

/// The programs with at least one metric matching `filter`.
pub fn select(filter: Option<&str>) -> Result<Vec<&'static Program>> {
    let Some(f) = filter else {
        return Ok(PROGRAMS.to_vec());
    };
    let re = Regex::new(f)
        .with_context(|| format!("bad FILTER {f:?} (a regular expression over metric ids)"))?;
    let chosen: Vec<_> = PROGRAMS
        .iter()
        .copied()
        .filter(|p| p.metrics.iter().any(|m| re.is_match(m.id)))
        .collect();
    if chosen.is_empty() {
        bail!("FILTER {f:?} matches no metric; `lmbench list` shows them all");
    }
    Ok(chosen)
}

pub fn run(opts: Options) -> Result<()> {
    let programs = select(opts.filter.as_deref())?;
    let root = workspace::root();
    let log_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("lmbench");
    std::fs::create_dir_all(&log_dir).with_context(|| format!("creating {}", log_dir.display()))?;
    let log_path = log_dir.join("run.log");
    let mut log = std::fs::File::create(&log_path)
        .with_context(|| format!("creating {}", log_path.display()))?;

    eprintln!("building benches (cargo bench --no-run)...");
    let status = Command::new(cargo())
        .current_dir(&root)
        .args(["bench", "--no-run", "--quiet"])
        .status()
        .context("running cargo (is it on PATH?)")?;
    if !status.success() {
        bail!("building the benches failed (see cargo's output above)");
    }

    let total = Instant::now();
    let n = programs.len();
    for (i, p) in programs.iter().enumerate() {
        eprintln!("[{}/{n}] {} ({} metrics)", i + 1, p.name, p.metrics.len());
        let started = Instant::now();
        let mut cmd = Command::new(cargo());
        cmd.current_dir(&root)
            .args(["bench", "--quiet", "--bench", p.name, "--"])
            .stdout(Stdio::piped())
            .stderr(log.try_clone()?);
        if opts.quick {
            cmd.arg("--quick");
        }
        if let Some(f) = &opts.filter {
            cmd.arg(f);
        }
        let mut child = cmd.spawn().context("running cargo bench")?;
        let stdout = child.stdout.take().expect("piped");
        for line in BufReader::new(stdout).lines() {
            let line = line?;
            writeln!(log, "{line}")?;
            // Criterion prints "<id>   time:   [low est high]" per benchmark.
            if let Some((id, rest)) = line.split_once("time:") {
                let id = id.trim();
                let id = if id.is_empty() { "" } else { id };
                eprintln!("      {id:<36} {}", rest.trim());
            }
            // Reference figures a bench prints beside its own (bw_mem's
            // memcpy/memset ceilings).
            if line.starts_with("ceiling: ") {
                eprintln!("      {line}");
            }
        }
        let status = child.wait()?;
        if !status.success() {
            bail!(
                "{} failed ({status}); its output is in {}",
                p.name,
                log_path.display()
            );
        }
        eprintln!(
            "      {} done in {:.1}s (total {:.0}s)",
            p.name,
            started.elapsed().as_secs_f64(),
            total.elapsed().as_secs_f64()
        );
    }
    eprintln!();
    crate::cmd_summary::run()
}
