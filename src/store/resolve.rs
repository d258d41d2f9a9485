//! Resolving a RUN of the command line to a run, and listing the saved
//! ones.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::files::load;
use super::layout::{check_name, results_root, run_dir};
use super::provenance::live;
use crate::run::Run;

/// Resolves several run names, in order. A directory that holds saved
/// runs one or two levels down (`results/`, `results/vm`) stands for all
/// of them, sorted.
pub fn resolve_all<S: AsRef<str>>(specs: &[S]) -> Result<Vec<Run>> {
    let mut out = Vec::new();
    for spec in specs {
        let spec = spec.as_ref();
        let p = Path::new(spec);
        if p.is_dir() && !p.join("run.json").is_file() {
            let dirs = run_dirs_under(p)?;
            if !dirs.is_empty() {
                for d in dirs {
                    out.push(load(&d)?);
                }
                continue;
            }
        }
        out.push(resolve(spec)?);
    }
    Ok(out)
}

/// Directories with a run.json at `dir/*` or `dir/*/*`.
fn run_dirs_under(dir: &Path) -> Result<Vec<PathBuf>> {
    let subdirs = |d: &Path| -> Result<Vec<PathBuf>> {
        let mut v: Vec<PathBuf> = fs::read_dir(d)
            .with_context(|| format!("cannot read results directory {}", d.display()))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.is_dir()
                    && !p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .collect();
        v.sort();
        Ok(v)
    };
    let mut out = Vec::new();
    for d in subdirs(dir)? {
        if d.join("run.json").is_file() {
            out.push(d);
        } else {
            out.extend(
                subdirs(&d)?
                    .into_iter()
                    .filter(|e| e.join("run.json").is_file()),
            );
        }
    }
    Ok(out)
}

/// Resolves a run name (see the module doc) to its run.
pub fn resolve(spec: &str) -> Result<Run> {
    if spec == "latest" {
        return live();
    }
    let as_path = Path::new(spec);
    if as_path.join("run.json").is_file() {
        return load(as_path);
    }
    let root = results_root();
    if let Some((machine, label)) = spec.split_once('/') {
        if check_name("machine", machine).is_ok() && check_name("label", label).is_ok() {
            let dir = run_dir(&root, machine, label);
            if dir.join("run.json").is_file() {
                return load(&dir);
            }
        }
    }
    let saved = list(&root)?;
    if check_name("label", spec).is_ok() {
        let hits: Vec<_> = saved.iter().filter(|(_, l)| l == spec).collect();
        match hits.as_slice() {
            [(m, l)] => return load(&run_dir(&root, m, l)),
            [] => {}
            many => bail!(
                "run {spec:?} is ambiguous: {}; name it as machine/label",
                many.iter()
                    .map(|(m, l)| format!("{m}/{l}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
    let known = if saved.is_empty() {
        format!("no saved runs in {}", root.display())
    } else {
        let names: Vec<String> = saved.iter().map(|(m, l)| format!("{m}/{l}")).collect();
        format!("saved runs: {}", names.join(", "))
    };
    bail!("unknown run {spec:?} (RUN is `latest`, machine/label, or a directory with run.json; {known})")
}

/// Every saved run under `root` as (machine, label), sorted. A missing
/// root has none; an unreadable one is an error.
pub fn list(root: &Path) -> Result<Vec<(String, String)>> {
    if !root.exists() {
        return Ok(Vec::new());
    }
    let read = |dir: &Path| -> Result<Vec<String>> {
        let mut names = Vec::new();
        let entries = fs::read_dir(dir)
            .with_context(|| format!("cannot read results directory {}", dir.display()))?;
        for e in entries {
            let e =
                e.with_context(|| format!("cannot read results directory {}", dir.display()))?;
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.starts_with('.') && e.path().is_dir() {
                names.push(name);
            }
        }
        names.sort();
        Ok(names)
    };
    let mut out = Vec::new();
    for machine in read(root)? {
        for label in read(&root.join(&machine))? {
            if run_dir(root, &machine, &label).join("run.json").is_file() {
                out.push((machine.clone(), label));
            }
        }
    }
    Ok(out)
}
