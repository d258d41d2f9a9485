//! `lmbench restore RUN [--as NAME]`: writes a saved run back into
//! Criterion's directory as baseline NAME (default: the run's label), so
//! `cargo bench -- --baseline NAME` compares the live machine against it,
//! e.g. after `cargo clean` or on a freshly installed OS.

use anyhow::{bail, Result};

use crate::{criterion, store};

/// Directory names Criterion uses itself inside a benchmark's directory.
const RESERVED: &[&str] = &["new", "change", "report", "profile"];

pub fn run(spec: &str, name: Option<&str>) -> Result<()> {
    let run = store::resolve(spec)?;
    let Some(label) = name.or(run.label()) else {
        bail!("`latest` is already Criterion's live results; restore a saved run");
    };
    store::check_name("baseline name", label)?;
    if RESERVED.contains(&label) {
        bail!("baseline name {label:?} is Criterion's own; pass --as NAME");
    }
    let home = criterion::home();
    for (id, stats) in &run.metrics {
        criterion::write_baseline(&home, id, label, stats)?;
    }
    eprintln!(
        "restored {} metrics of {} as Criterion baseline {label:?} in {}",
        run.metrics.len(),
        run.host(),
        home.display()
    );
    eprintln!("compare the live machine with: cargo bench -- --baseline {label}");
    Ok(())
}
