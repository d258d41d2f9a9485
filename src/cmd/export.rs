//! `lmbench export RUN [--name NAME] [--output FILE]`: a run in critcmp's
//! export format, so `critcmp old.json new.json` compares our runs.
//!
//! The one place that knows critcmp's format (critcmp 0.1.8, src/data.rs,
//! `BaseBenchmarks`): `{"name": baseline, "benchmarks": {full_id: {
//! "baseline", "fullname": "<baseline>/<full_id>", "criterion_benchmark_v1":
//! <Criterion's benchmark.json, throughput as {"Bytes": n}>,
//! "criterion_estimates_v1": <Criterion's estimates.json>}}}`. critcmp
//! shows the mean (`estimates.mean.point_estimate`) in nanoseconds.

use std::collections::BTreeMap;

use anyhow::Result;
use serde::Serialize;
use serde_json::Value;

use crate::criterion_files::{Benchmark, Estimates};
use crate::run::{MetricStats, Run};
use crate::store;
use lmbench::flags::{self, RunSpec};

/// critcmp's `BaseBenchmarks`.
#[derive(Serialize)]
struct Export<'a> {
    name: &'a str,
    benchmarks: BTreeMap<&'a str, Entry<'a>>,
}

/// critcmp's `Benchmark`: Criterion's estimates beside critcmp's own
/// form of `benchmark.json`.
#[derive(Serialize)]
struct Entry<'a> {
    baseline: &'a str,
    fullname: String,
    criterion_benchmark_v1: CritcmpBenchmark,
    criterion_estimates_v1: Estimates,
}

/// Criterion's `benchmark.json` as critcmp reads it: no title, and the
/// throughput as `{"Bytes": n, "Elements": null}`.
#[derive(Serialize)]
struct CritcmpBenchmark {
    group_id: String,
    function_id: Option<String>,
    value_str: Option<String>,
    throughput: Option<CritcmpThroughput>,
    full_id: String,
    directory_name: String,
}

#[derive(Serialize)]
struct CritcmpThroughput {
    #[serde(rename = "Bytes")]
    bytes: u64,
    #[serde(rename = "Elements")]
    elements: Option<u64>,
}

fn entry<'a>(baseline: &'a str, id: &str, s: &MetricStats) -> Entry<'a> {
    let b = Benchmark::for_id(id, s.bytes_per_iter);
    Entry {
        baseline,
        fullname: format!("{baseline}/{id}"),
        criterion_benchmark_v1: CritcmpBenchmark {
            throughput: b.bytes_per_iter().map(|bytes| CritcmpThroughput {
                bytes,
                elements: None,
            }),
            group_id: b.group_id,
            function_id: b.function_id,
            value_str: b.value_str,
            full_id: b.full_id,
            directory_name: b.directory_name,
        },
        criterion_estimates_v1: Estimates::of(s),
    }
}

/// The critcmp document for `run`, as baseline `name`.
pub fn export(run: &Run, name: &str) -> Result<Value> {
    let doc = Export {
        name,
        benchmarks: run
            .metrics
            .iter()
            .map(|(id, s)| (id.as_str(), entry(name, id, s)))
            .collect(),
    };
    Ok(serde_json::to_value(doc)?)
}

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// The run: `latest`, MACHINE/LABEL under results/, or a run's
    /// directory.
    pub run: RunSpec,
    /// Baseline name critcmp shows (default: machine/label).
    #[arg(long, value_parser = flags::parsed::<String>())]
    pub name: Option<String>,
    /// Write to FILE instead of standard output.
    #[arg(long, short)]
    pub output: Option<std::path::PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let run = store::resolve(args.run.as_str())?;
    let name = args.name.unwrap_or_else(|| run.host());
    let text = serde_json::to_string_pretty(&export(&run, &name)?)? + "\n";
    match args.output.as_deref() {
        Some(p) => Ok(lmbench_support::atomic_file::write_atomic(
            p,
            text.as_bytes(),
        )?),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}
