//! `lmbench save --label L [--machine M] [--force] [--filter REGEX]`: copies
//! Criterion's latest results, with this machine's facts and the rendered
//! tables, into `results/<M>/<L>/` (see `crate::saving` and `store`).

use anyhow::{bail, Result};

use crate::run::Run;
use crate::saving::{self, Target};
use crate::store;

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// The name of this run: saved as results/MACHINE/LABEL (an existing
    /// one is kept unless --force).
    #[arg(long)]
    pub label: String,
    /// Default: the host name.
    #[arg(long)]
    pub machine: Option<String>,
    /// Replace an existing label.
    #[arg(long)]
    pub force: bool,
    /// Only metrics whose id matches this regular expression.
    #[arg(long)]
    pub filter: Option<String>,
}

/// Keeps only the metrics matching `filter`.
pub fn retain_matching(run: &mut Run, filter: Option<&str>) -> Result<()> {
    if let Some(f) = filter {
        let re = crate::filter::metric_regex(f, "FILTER")?;
        run.metrics.retain(|id, _| re.is_match(id));
        if run.metrics.is_empty() {
            bail!("no Criterion results match {f:?}: nothing to save");
        }
    }
    Ok(())
}

/// `lmbench save`.
pub fn run(args: Args) -> Result<()> {
    // Held shared until the save is done: no run starts meanwhile.
    let _no_run = lmbench::lock::refuse_during_run()?;
    let target = Target {
        label: args.label,
        machine: args.machine,
        force: args.force,
    };
    let machine = saving::precheck(&target)?;
    let mut live = store::live()?;
    retain_matching(&mut live, args.filter.as_deref())?;
    saving::save_run(live, &machine, &target)?;
    Ok(())
}
