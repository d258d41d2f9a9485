//! `lmbench save --label L [--machine M] [--force] [--filter REGEX]`: copies
//! Criterion's latest results, with this machine's facts and the rendered
//! tables, into `results/<M>/<L>/` (see `crate::saving` and `store`).

use anyhow::{bail, Result};

use crate::run::Run;
use crate::saving::{self, Target};
use crate::store;
use lmbench::flags::{Label, MachineName, MetricFilter};

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// The name of this run: saved as results/MACHINE/LABEL (an existing
    /// one is kept unless --force).
    #[arg(long)]
    pub label: Label,
    /// Default: the host name.
    #[arg(long)]
    pub machine: Option<MachineName>,
    /// Replace an existing label.
    #[arg(long)]
    pub force: bool,
    /// Only metrics whose id matches this regular expression.
    #[arg(long)]
    pub filter: Option<MetricFilter>,
}

/// Keeps only the metrics matching `filter`.
pub fn retain_matching(run: &mut Run, filter: Option<&MetricFilter>) -> Result<()> {
    if let Some(f) = filter {
        run.metrics.retain(|id, _| f.is_match(id));
        if run.metrics.is_empty() {
            bail!(
                "no Criterion results match {:?}: nothing to save",
                f.as_str()
            );
        }
    }
    Ok(())
}

/// `lmbench save`.
pub fn run(args: Args) -> Result<()> {
    // Held shared until the save is done: no run starts meanwhile.
    let _no_run = lmbench::lock::refuse_during_run()?;
    let target = Target {
        label: args.label.into(),
        machine: args.machine.map(Into::into),
        force: args.force,
    };
    let machine = saving::precheck(&target)?;
    let mut live = store::live()?;
    retain_matching(&mut live, args.filter.as_ref())?;
    saving::save_run(live, &machine, &target)?;
    Ok(())
}
