//! `lmbench summary`: lmbench's summary tables for the latest Criterion
//! results, one row per run.

use anyhow::{bail, Result};
use lmbench_support::catalog::TABLES;
use lmbench_support::machine::Facts;

use crate::run::Run;
use crate::{criterion, table};

/// The live run: Criterion's latest results and this machine's facts.
pub fn latest() -> Result<Run> {
    Ok(Run {
        machine: Facts::collect(),
        metrics: criterion::read_latest(&criterion::home())?,
    })
}

/// Renders every table that has data for any of `runs`.
pub fn render(runs: &[Run]) -> Result<String> {
    let mut out = table::banner();
    let mut any = false;
    for t in TABLES {
        if table::has_data(t, runs) {
            out.push('\n');
            out.push_str(&table::render(t, runs));
            any = true;
            // lmbench's "Guesses" and the cache points used, under the table.
            if t.key == "mem_lat" {
                for r in runs {
                    for n in lmbench_support::catalog::tables::mem_notes(r) {
                        out.push_str(&format!("  {n}\n"));
                    }
                }
            }
        }
    }
    if !any {
        bail!("none of the runs has a figure for any summary column");
    }
    Ok(out)
}

pub fn run() -> Result<()> {
    let runs = vec![latest()?];
    print!("{}", render(&runs)?);
    Ok(())
}
