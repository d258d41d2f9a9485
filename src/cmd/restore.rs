//! `lmbench restore RUN [--as NAME]`: writes a saved run back into
//! Criterion's directory as baseline NAME (default: the run's label), so
//! `cargo bench -- --baseline NAME` compares the live machine against it,
//! e.g. after `cargo clean` or on a freshly installed OS.

use anyhow::{bail, Result};

use crate::{criterion_files, store};
use lmbench::flags::{BaselineName, RunSpec};

/// Directory names Criterion uses itself inside a benchmark's directory.
const RESERVED: &[&str] = &["new", "change", "report", "profile"];

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// The saved run: MACHINE/LABEL under results/, or a run's directory.
    pub run: RunSpec,
    /// Baseline name (default: the run's label).
    #[arg(long = "as", value_name = "NAME")]
    pub name: Option<BaselineName>,
}

pub fn run(args: Args) -> Result<()> {
    let name = args.name.as_ref().map(BaselineName::as_str);
    let run = store::resolve(args.run.as_str())?;
    let Some(label) = name.or(run.label()) else {
        bail!("`latest` is already Criterion's live results; restore a saved run");
    };
    store::check_name("baseline name", label)?;
    if RESERVED.contains(&label) {
        bail!("baseline name {label:?} is Criterion's own; pass --as NAME");
    }
    let home = criterion_files::home();
    for (id, stats) in &run.metrics {
        criterion_files::write_baseline(&home, id, label, stats)?;
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
