//! `lmbench profile METRIC [--seconds N] [--vs RUN]`: where one metric's
//! time goes.
//!
//! Runs `cargo bench --bench <program> -- --profile-time N '^METRIC$'`
//! under the chosen profiler (see `lmbench_support::profile`): with perf,
//! `perf record` starts the bench with events off and the bench switches
//! them on for exactly the profiled benchmark, following every process it
//! starts; with pprof, the bench samples itself. Then it prints the
//! flamegraph's path (beside Criterion's report:
//! `<criterion home>/<METRIC>/profile/<perf|pprof>.svg`, with the folded
//! stacks as `.folded`) and the top frames as text. `--vs RUN` also draws
//! a differential flamegraph against the profile saved with RUN (`lmbench
//! save` keeps `profiles/<METRIC with / as __>.folded`): red where the
//! share of time grew.

use std::path::Path;
use std::process::Command;

use anyhow::{anyhow, bail, Context, Result};
use lmbench_support::catalog::PROGRAMS;
use lmbench_support::profile::flame::{self, Stacks};
use lmbench_support::profile::select::{self, Kind};

use crate::workspace;
use lmbench::flags::{MetricId, RunSpec, Secs};

/// Frames shown per table.
const TOP: usize = 15;

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// The metric id, e.g. lat_syscall/null (`lmbench list`).
    pub metric: MetricId,
    /// How long Criterion runs the benchmark under the profiler, seconds
    /// (1 to 86400).
    #[arg(long, default_value = "5")]
    pub seconds: Secs,
    /// A saved run (directory, or MACHINE/LABEL under results/) to
    /// compare with: draws a differential flamegraph.
    #[arg(long, value_name = "RUN")]
    pub vs: Option<RunSpec>,
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

pub fn run(opts: Args) -> Result<()> {
    let metric = opts.metric.0;
    let program = metric.id.split('/').next().unwrap_or(metric.id);
    if !PROGRAMS.iter().any(|p| p.name == program) {
        bail!("metric {} has no bench program {program}", metric.id);
    }
    let root = workspace::root();
    // Read the baseline first: a typo in RUN should not cost a profile.
    let baseline = match &opts.vs {
        Some(run) => {
            let saved = crate::store::resolve(run.as_str())?;
            let path = crate::store::saved_profile(&saved, metric.id).with_context(|| {
                format!(
                    "saved run {} has no profile of {}: `lmbench profile {}` before `lmbench save` stores one",
                    saved.host(),
                    metric.id,
                    metric.id
                )
            })?;
            Some((saved.host().replace('/', "__"), Stacks::read(&path)?))
        }
        None => None,
    };

    // Not beside a run: it would share the CPU and the Criterion files.
    let _lock = lmbench::lock::lock_run(&lmbench::lock::work_dir())?;
    let env = std::env::var(select::ENV).ok();
    let facts = select::Facts::probe();
    let choice = select::choose(env.as_deref(), &facts).map_err(|e| anyhow!(e))?;
    eprintln!("{}", choice.notice());

    eprintln!("building {program} (cargo bench --no-run)...");
    let status = Command::new(cargo())
        .current_dir(&root)
        .args(["bench", "--no-run", "--quiet", "--bench", program])
        .status()
        .context("running cargo (is it on PATH?)")?;
    if !status.success() {
        bail!("building bench {program} failed (see cargo's output above)");
    }

    let dir = crate::criterion_files::home()
        .join(metric.id)
        .join("profile");
    let filter = format!("^{}$", regex::escape(metric.id));
    let seconds = opts.seconds.secs().to_string();
    let bench_args = [
        "bench",
        "--quiet",
        "--bench",
        program,
        "--",
        "--profile-time",
        &seconds,
        &filter,
    ];
    eprintln!("profiling {} for {seconds} s...", metric.id);
    let stacks = match (choice.kind, &facts.perf) {
        (Kind::Perf, Some(perf)) => profile_with_perf(perf, &root, &bench_args, &dir, metric.id)?,
        _ => {
            let status = Command::new(cargo())
                .current_dir(&root)
                .args(bench_args)
                .env(select::ENV, "pprof")
                .env(NOTICE_SHOWN_ENV, "1")
                .status()
                .context("running cargo bench")?;
            if !status.success() {
                bail!("profiling {} failed ({status})", metric.id);
            }
            let folded = dir.join("pprof.folded");
            Stacks::read(&folded)
                .with_context(|| format!("the bench wrote no profile at {}", folded.display()))?
        }
    };
    let name = choice.kind.name();
    println!("flamegraph: {}", dir.join(format!("{name}.svg")).display());
    println!(
        "folded stacks: {}",
        dir.join(format!("{name}.folded")).display()
    );
    print!("{}", flame::summary(&stacks, TOP));

    if let Some((tag, before)) = baseline {
        let out = dir.join(format!("diff-vs-{tag}.svg"));
        let title = format!("{}: now vs {tag}", metric.id);
        let subtitle = "red: share of time grew since the saved run; blue: shrank";
        flame::write_diff_svg(&before, &stacks, &title, Some(subtitle), &out)
            .with_context(|| format!("drawing {}", out.display()))?;
        println!("differential flamegraph: {}", out.display());
        print!("{}", flame::diff_summary(&before, &stacks, TOP));
    }
    Ok(())
}

/// Mirrors `lmbench_support::profile::profiler::NOTICE_SHOWN_ENV` (that
/// module is compiled only with the harness feature).
const NOTICE_SHOWN_ENV: &str = "LMBENCH_PROFILER_NOTICE_SHOWN";

#[cfg(target_os = "linux")]
fn profile_with_perf(
    perf: &Path,
    root: &Path,
    bench_args: &[&str],
    dir: &Path,
    id: &str,
) -> Result<Stacks> {
    use lmbench_support::profile::perf as lperf;

    let tmp = tempfile::tempdir().context("creating a temp dir for perf's data")?;
    let (ctl, ack) = lperf::make_fifos(tmp.path())?;
    let data = tmp.path().join("perf.data");
    // perf starts cargo, cargo starts the bench, which enables perf's
    // (system-wide) events for the profiled benchmark and writes its pids.
    let status = Command::new(perf)
        .current_dir(root)
        .args(lperf::record_args(&data, &ctl, &ack))
        .arg("--")
        .arg(cargo())
        .args(bench_args)
        .env(lperf::CTL_ENV, &ctl)
        .env(lperf::ACK_ENV, &ack)
        .env(lperf::PIDS_ENV, tmp.path().join("pids"))
        .env(NOTICE_SHOWN_ENV, "1")
        .status()
        .with_context(|| format!("running {}", perf.display()))?;
    if !status.success() {
        bail!("perf record of the bench failed ({status}); see the output above");
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    eprintln!("folding perf's stacks (perf script)...");
    let pids = tmp.path().join("pids");
    // LMBENCH_KEEP_PERF_DATA=1 keeps perf's raw data (tens of MB) for
    // `perf report -i`; by default only the folded stacks stay.
    if std::env::var_os("LMBENCH_KEEP_PERF_DATA").is_some_and(|v| v == "1") {
        std::fs::copy(&data, dir.join("perf.data"))?;
        std::fs::copy(&pids, dir.join("perf.pids"))?;
    }
    let stacks = lperf::fold(perf, &data, &pids, &dir.join("perf-script.log"))?;
    if stacks.is_empty() {
        bail!(
            "perf recorded no samples of the benchmark (did the filter match? see {})",
            dir.join("perf-script.log").display()
        );
    }
    stacks.write(&dir.join("perf.folded"))?;
    let subtitle = format!("perf, {} samples, kernel included", stacks.total());
    flame::write_svg(&stacks, id, Some(&subtitle), &dir.join("perf.svg"))?;
    Ok(stacks)
}

#[cfg(not(target_os = "linux"))]
fn profile_with_perf(_: &Path, _: &Path, _: &[&str], _: &Path, _: &str) -> Result<Stacks> {
    bail!("perf profiling is Linux-only")
}
