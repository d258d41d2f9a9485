//! Saving a run under `results/<machine>/<label>/`: what `lmbench save`
//! and `lmbench run --save` share (names checked before a long run, the
//! suite version, SUMMARY.txt, the profiles), over `store::save`.

use std::collections::BTreeSet;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use crate::run::{Origin, Run};
use crate::{criterion_files, store};

/// Where a run is saved.
#[derive(Clone)]
pub struct Target {
    pub label: String,
    /// Default: the host name.
    pub machine: Option<String>,
    /// Replace an existing label.
    pub force: bool,
}

/// The machine name: `--machine`, else this host's name.
pub fn machine_name(opt: Option<&str>) -> Result<String> {
    let name = match opt {
        Some(m) => m.to_string(),
        None => lmbench_support::machine::Facts::collect()
            .get("host")
            .unwrap_or("")
            .to_string(),
    };
    store::check_name("machine name", &name).context("pass --machine NAME to name this machine")?;
    Ok(name)
}

/// Checks names and that the label is free, before a long run starts.
pub fn precheck(opts: &Target) -> Result<String> {
    store::check_name("label", &opts.label)?;
    let machine = machine_name(opts.machine.as_deref())?;
    let root = store::results_root();
    store::check_root(&root)?;
    store::check_free(&store::run_dir(&root, &machine, &opts.label), opts.force)?;
    Ok(machine)
}

/// Refuses results that `lmbench run` stamped with different suite
/// versions; records the one version they share.
fn check_versions(run: &mut Run) -> Result<()> {
    let programs: BTreeSet<&str> = run
        .metrics
        .keys()
        .map(|id| id.split('/').next().unwrap_or(id))
        .collect();
    let programs: Vec<&str> = programs.into_iter().collect();
    let stamps = criterion_files::read_stamps(&criterion_files::home(), &programs);
    let versions: BTreeSet<&String> = stamps.values().collect();
    if versions.len() > 1 {
        let mix: Vec<String> = stamps.iter().map(|(p, v)| format!("{p} {v}")).collect();
        bail!(
            "the Criterion results mix suite versions ({}): re-run `lmbench run` before saving",
            mix.join(", ")
        );
    }
    if let Some(v) = versions.into_iter().next() {
        run.meta.suite_version = v.clone();
    }
    Ok(())
}

/// The command line, for SUMMARY.txt's first line.
fn command_line() -> String {
    // Quoted for a shell where needed, so the line can be pasted back.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .map(|a| {
            let plain = !a.is_empty()
                && a.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._/=:,+-".contains(&b));
            if plain {
                a
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect();
    format!("lmbench {}", args.join(" "))
}

/// Saves `run` under `results/<machine>/<label>/` and says where.
pub fn save_run(mut run: Run, machine: &str, opts: &Target) -> Result<PathBuf> {
    check_versions(&mut run)?;
    let root = store::results_root();
    // The summary shows the saved run as its table row will later read.
    run.origin = Origin::Saved {
        machine: machine.to_string(),
        label: opts.label.clone(),
        dir: store::run_dir(&root, machine, &opts.label),
    };
    let summary = store::summary_text(
        &run,
        store::Writer::Measured {
            command: &command_line(),
        },
        crate::report::render(std::slice::from_ref(&run)).ok(),
    );
    let ids: Vec<&str> = run.metrics.keys().map(String::as_str).collect();
    let profiles = criterion_files::folded_profiles(&criterion_files::home(), &ids);
    let dir = store::save(
        &root,
        &run,
        &store::SaveOptions {
            machine,
            label: &opts.label,
            force: opts.force,
            summary: &summary,
            profiles: &profiles,
        },
    )?;
    eprintln!(
        "saved {} metrics{} to {}",
        run.metrics.len(),
        if profiles.is_empty() {
            String::new()
        } else {
            format!(" and {} profiles", profiles.len())
        },
        dir.display()
    );
    Ok(dir)
}

/// A session's rounds saved as one run under `results/<machine>/<label>/`
/// (`run --save`, each side of `kernels --save`): the label checked
/// before anything runs, each round's run replacing the last save of this
/// session.
pub struct RunSaver {
    target: Target,
    /// The machine name, once checked.
    machine: Option<String>,
}

impl RunSaver {
    pub fn new(to: lmbench::session::SaveTo) -> RunSaver {
        RunSaver::to(Target {
            label: to.label.into(),
            machine: to.machine.map(Into::into),
            force: to.force,
        })
    }

    pub fn to(target: Target) -> RunSaver {
        RunSaver {
            target,
            machine: None,
        }
    }

    fn machine(&self) -> Result<&str> {
        self.machine
            .as_deref()
            .context("internal error: a run saved before its label was checked")
    }
}

impl lmbench::session::SaveRounds for RunSaver {
    fn check(&mut self) -> Result<()> {
        self.machine = Some(precheck(&self.target)?);
        Ok(())
    }

    fn save(&mut self, run: Run, rounds: usize) -> Result<()> {
        let target = Target {
            // The first save was checked before the session; later ones
            // replace this session's own.
            force: self.target.force || rounds > 1,
            ..self.target.clone()
        };
        save_run(run, self.machine()?, &target)?;
        Ok(())
    }

    fn saved(&self) -> Result<Run> {
        let dir = store::run_dir(&store::results_root(), self.machine()?, &self.target.label);
        store::load(&dir)
    }
}
