//! `lmbench import FILE... --label L [--machine M] [--force]`: the C
//! suite's results (SUMMARY posts of lmbench 1.x-3.x, or its per-run
//! results files; see `lmbench::import`) saved as runs under
//! `results/<host>/<L>/`, one per machine of the files, marked imported:
//! figures by summary column, no samples. `summary` shows them beside runs
//! of ours; `compare` says "no samples" instead of a verdict.

use std::collections::BTreeSet;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use lmbench::import::{self, Machine};
use lmbench_support::machine::Facts;

use crate::run::{Imported, Meta, Origin, Run};
use crate::store;
use lmbench::flags::{Label, MachineName};

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// The C suite's output: SUMMARY posts of lmbench 1.x-3.x, or the
    /// per-run results files it writes.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The label of the imported runs: results/<host>/<LABEL>/.
    #[arg(long)]
    pub label: Label,
    /// The machine name, when the files hold one machine (default: its host).
    #[arg(long)]
    pub machine: Option<MachineName>,
    /// Replace existing runs of that label.
    #[arg(long)]
    pub force: bool,
}

/// The run an imported machine becomes.
fn to_run(m: &Machine, file: &str, dir_machine: &str, label: &str) -> Run {
    let mut facts = Facts::default();
    facts.set("host", Some(m.host.clone()));
    let (os, release) = match m.os.split_once(' ') {
        Some((o, r)) => (o.to_string(), Some(r.to_string())),
        None => (m.os.clone(), None),
    };
    facts.set("os", Some(os));
    facts.set("os_release", release);
    facts.set("imported_from", Some(format!("{file} line {}", m.line)));
    facts.set("lmbench_c_version", Some(m.version.clone()));
    for (k, v) in &m.facts {
        facts.set(k, Some(v.clone()));
    }
    let format = format!("lmbench {} {}", m.version, m.format);
    Run {
        machine: facts,
        metrics: Default::default(),
        origin: Origin::Saved {
            machine: dir_machine.to_string(),
            label: label.to_string(),
            dir: store::run_dir(&store::results_root(), dir_machine, label),
        },
        meta: Meta {
            suite_version: format!("{format} (imported)"),
            commit: None,
            criterion_version: None,
            date: m.date.clone().unwrap_or_else(store::utc_now),
            runs_pooled: 0,
            failed: Default::default(),
        },
        imported: Some(Imported {
            format,
            source: format!("{file} line {}", m.line),
            cells: m.cells.clone(),
            extra: m.extra.clone(),
        }),
    }
}

pub fn run(opts: Args) -> Result<()> {
    if opts.files.is_empty() {
        bail!("name at least one results file or SUMMARY post to import");
    }
    // Read and parse everything before writing anything.
    let mut found: Vec<(String, Machine)> = Vec::new();
    for f in &opts.files {
        let bytes = std::fs::read(f).with_context(|| format!("cannot read {}", f.display()))?;
        let text = String::from_utf8_lossy(&bytes);
        let parsed = import::parse(&text).with_context(|| format!("{}", f.display()))?;
        for w in &parsed.warnings {
            eprintln!("lmbench: {}: {w}", f.display());
        }
        let name = f.display().to_string();
        found.extend(parsed.machines.into_iter().map(|m| (name.clone(), m)));
    }
    if opts.machine.is_some() && found.len() > 1 {
        bail!(
            "--machine names one machine, but the files hold {} ({}): leave it out to file each under its host",
            found.len(),
            found
                .iter()
                .map(|(_, m)| format!("{} ({})", m.host, m.os))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    // Where each goes: results/<host>/<label>/, the OS release added to
    // the label when one host has several rows, then a count if needed.
    let mut dests: Vec<(String, String)> = Vec::new();
    let mut taken = BTreeSet::new();
    for (_, m) in &found {
        let dm = opts
            .machine
            .clone()
            .map_or_else(|| store::to_name(&m.host), String::from);
        let same_host = found
            .iter()
            .filter(|(_, o)| store::to_name(&o.host) == store::to_name(&m.host))
            .count();
        let mut label = opts.label.as_str().to_string();
        if same_host > 1 && opts.machine.is_none() {
            label = format!(
                "{}-{}",
                opts.label.as_str(),
                store::to_name(&m.os.replace(' ', "-"))
            );
            label.truncate(64);
        }
        let base = label.clone();
        let mut k = 2;
        while !taken.insert((dm.clone(), label.clone())) {
            label = format!("{base}-{k}");
            k += 1;
        }
        store::check_name("machine name", &dm)?;
        store::check_name("label", &label)?;
        dests.push((dm, label));
    }
    let root = store::results_root();
    for (dm, l) in &dests {
        store::check_free(&store::run_dir(&root, dm, l), opts.force)?;
    }
    for ((file, m), (dm, label)) in found.iter().zip(&dests) {
        let run = to_run(m, file, dm, label);
        let summary = store::summary_text(
            &run,
            store::Writer::Imported { file, line: m.line },
            crate::report::render(std::slice::from_ref(&run)).ok(),
        );
        let dir = store::save(
            &root,
            &run,
            &store::SaveOptions {
                machine: dm,
                label,
                force: opts.force,
                summary: &summary,
                profiles: &[],
            },
        )?;
        eprintln!(
            "imported {} ({}, lmbench {} {}, {} figures{}) to {}",
            m.host,
            m.os,
            m.version,
            m.format,
            m.cells.len(),
            if m.extra.is_empty() {
                String::new()
            } else {
                format!(", {} kept outside our columns", m.extra.len())
            },
            dir.display()
        );
    }
    Ok(())
}
