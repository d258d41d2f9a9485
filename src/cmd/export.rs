//! `lmbench export RUN [--name NAME] [--output FILE]`: a run in critcmp's
//! export format, so `critcmp old.json new.json` compares our runs.
//!
//! The one place that knows critcmp's format (critcmp 0.1.8, src/data.rs,
//! `BaseBenchmarks`): `{"name": baseline, "benchmarks": {full_id: {
//! "baseline", "fullname": "<baseline>/<full_id>", "criterion_benchmark_v1":
//! <Criterion's benchmark.json, throughput as {"Bytes": n}>,
//! "criterion_estimates_v1": <Criterion's estimates.json>}}}`. critcmp
//! shows the mean (`estimates.mean.point_estimate`) in nanoseconds.

use anyhow::Result;
use serde_json::{json, Map, Value};

use crate::results::{MetricStats, Run};
use crate::store;

fn estimate(point: f64, (lo, hi): (f64, f64)) -> Value {
    json!({
        "confidence_interval": {"confidence_level": 0.95, "lower_bound": lo, "upper_bound": hi},
        "point_estimate": point,
        "standard_error": (hi - lo) / (2.0 * 1.96),
    })
}

fn benchmark(baseline: &str, id: &str, s: &MetricStats) -> Value {
    let mut parts = id.splitn(3, '/');
    let group = parts.next().unwrap_or(id);
    json!({
        "baseline": baseline,
        "fullname": format!("{baseline}/{id}"),
        "criterion_benchmark_v1": {
            "group_id": group,
            "function_id": parts.next(),
            "value_str": parts.next(),
            "throughput": s.bytes_per_iter.map(|b| json!({"Bytes": b, "Elements": null})),
            "full_id": id,
            "directory_name": id,
        },
        "criterion_estimates_v1": {
            "mean": estimate(s.mean_ns, s.mean_ci_ns),
            "median": estimate(s.median_ns, (s.median_ns, s.median_ns)),
            "median_abs_dev": estimate(s.mad_ns, (s.mad_ns, s.mad_ns)),
            "slope": null,
            "std_dev": estimate(s.std_dev_ns, (s.std_dev_ns, s.std_dev_ns)),
        },
    })
}

/// The critcmp document for `run`, as baseline `name`.
pub fn export(run: &Run, name: &str) -> Value {
    let benchmarks: Map<String, Value> = run
        .metrics
        .iter()
        .map(|(id, s)| (id.clone(), benchmark(name, id, s)))
        .collect();
    json!({ "name": name, "benchmarks": benchmarks })
}

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    pub run: String,
    /// Baseline name critcmp shows (default: machine/label).
    #[arg(long)]
    pub name: Option<String>,
    /// Write to FILE instead of standard output.
    #[arg(long, short)]
    pub output: Option<std::path::PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let run = store::resolve(&args.run)?;
    let name = args.name.unwrap_or_else(|| run.host());
    let text = serde_json::to_string_pretty(&export(&run, &name))? + "\n";
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
