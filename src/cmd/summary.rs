//! `lmbench summary [RUN...] [--format F] [--spread [iqr|ci]]
//! [--busy-threshold PCT] [--floors]`: the tables of `crate::report`, one
//! row per run (live results or saved runs).

use anyhow::Result;

use crate::cells::Spread;
use crate::format::Format;
use crate::report::summary::{report, Options};
use crate::store;
use lmbench::flags::{BusyShare, RunSpec};

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// The runs, one row each: `latest` (Criterion's live results, the
    /// default), MACHINE/LABEL under results/, or a run's directory.
    #[arg(value_name = "RUN")]
    pub runs: Vec<RunSpec>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Show each figure's spread: `--spread=iqr` (the default: ± half the
    /// interquartile range
    /// of the samples) or `ci` (± half the 95% interval of the median).
    #[arg(
        long,
        value_enum,
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "iqr"
    )]
    pub spread: Option<Spread>,
    /// Mark figures measured while other work used at least PCT% of a
    /// CPU.
    #[arg(long, value_name = "PCT", default_value_t = BusyShare::DEFAULT)]
    pub busy_threshold: BusyShare,
    /// Instead of the tables: each metric that has a floor (a bare loop
    /// of its operation, `lmbench run floor`) beside it, and the ratio.
    #[arg(long, conflicts_with = "spread")]
    pub floors: bool,
}

/// `lmbench summary`: the named runs, or the live results if none.
pub fn run(args: Args) -> Result<()> {
    let specs = &args.runs;
    let opts = Options {
        format: args.format,
        spread: args.spread,
        busy_cpus: args.busy_threshold.cpus(),
        floors: args.floors,
    };
    let runs = if specs.is_empty() {
        vec![store::live()?]
    } else {
        store::resolve_all(specs)?
    };
    print!(
        "{}",
        crate::format::render(&report(&runs, &opts)?, opts.format)?
    );
    Ok(())
}
