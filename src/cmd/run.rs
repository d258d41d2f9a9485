//! `lmbench run [--quick] [FILTER]`: runs the suite's Criterion groups
//! through `cargo bench`, one program at a time, with a line of progress per
//! group, then prints the summary. Criterion's own output goes to
//! `target/lmbench/run.log`; its "time:" lines are echoed as they come.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use lmbench_support::catalog::Program;
use regex::Regex;

use std::collections::BTreeMap;

use crate::results::{MetricStats, Origin, Run};
use crate::saving::{self, Target};
use crate::workspace;

mod plan;

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// The quick preset: 10 samples of every metric, under 3 minutes of
    /// benching for the whole suite on 2 cores (the default: about 12).
    #[arg(long)]
    pub quick: bool,
    /// Before starting, wait until other work uses under 5% of a CPU,
    /// at most SECS seconds (`--wait-idle=SECS`, default 300), then start
    /// anyway.
    #[arg(
        long,
        value_name = "SECS",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "300"
    )]
    pub wait_idle: Option<u64>,
    /// Only metrics whose id matches this regular expression.
    pub filter: Option<String>,
    /// Repeat the suite N times; with --save, one run pools all samples.
    #[arg(long, default_value_t = 1)]
    pub runs: u32,
    /// At the end, save the run as results/<machine>/<LABEL>/.
    #[arg(long, value_name = "LABEL")]
    pub save: Option<String>,
    /// With --save: the machine name (default: the host name).
    #[arg(long, requires = "save")]
    pub machine: Option<String>,
    /// With --save: replace an existing label.
    #[arg(long, requires = "save")]
    pub force: bool,
    /// Only the metrics that have a floor (FILTER narrows them), each
    /// right before its floor (every run orders them so; this skips the
    /// rest), for the ratios of `summary --floors`. With --runs N the
    /// pairs are alternated N times and each round's ratios printed.
    #[arg(long)]
    pub paired: bool,
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

pub fn run(opts: Args) -> Result<()> {
    let save = opts.save.clone().map(|label| Target {
        label,
        machine: opts.machine.clone(),
        force: opts.force,
    });
    // What each step runs: a program and the filter its bench gets.
    let plan::Plan {
        steps,
        programs,
        results: filter,
    } = plan::plan(opts.filter.as_deref(), opts.paired)?;
    // A bad LMBENCH_FSDIR is one line before anything builds or runs; this
    // also sweeps scratch directories left by benches killed with SIGKILL.
    lmbench_support::fs::prepare_scratch_root()?;
    if opts.runs == 0 {
        bail!("--runs must be at least 1");
    }
    // Check the label before a long run, and take the machine facts (load
    // average above all) as they were at the start.
    let machine = save.as_ref().map(saving::precheck).transpose()?;
    let facts = lmbench_support::machine::Facts::collect();
    let log_dir = lmbench::lock::run_dir();
    // One run per checkout: a second would share the CPU and interleave
    // its results with ours. Held until we return (or die).
    let _lock = lmbench::lock::lock_run(&log_dir)?;
    let log_path = log_dir.join("run.log");
    let mut log = std::fs::File::create(&log_path)
        .with_context(|| format!("creating {}", log_path.display()))?;

    build_benches()?;

    idle_check(opts.wait_idle.map(std::time::Duration::from_secs));

    let total = Instant::now();
    let n = steps.len();
    let mut reps: Vec<BTreeMap<String, MetricStats>> = Vec::new();
    for rep in 1..=opts.runs {
        // Results older than this are not this repetition's (a skipped
        // metric, e.g. a remote one without LMBENCH_REMOTE, keeps the
        // directory of the last run that measured it). Filesystem
        // timestamps are coarser than the clock: one second of slack.
        let rep_start = std::time::SystemTime::now() - std::time::Duration::from_secs(1);
        if opts.runs > 1 {
            eprintln!("run {rep} of {}", opts.runs);
        }
        for (i, step) in steps.iter().enumerate() {
            let p = step.program;
            match (&step.filter, step.metrics) {
                (Some(id), 1) => eprintln!(
                    "[{}/{n}] {} ({})",
                    i + 1,
                    p.name,
                    id.trim_matches(['^', '$'])
                ),
                (_, k) => eprintln!("[{}/{n}] {} ({k} metrics)", i + 1, p.name),
            }
            let started = Instant::now();
            bench_program(p, step.filter.as_deref(), opts.quick, &mut log, &log_path)?;
            eprintln!(
                "      {} done in {:.1}s (total {:.0}s)",
                p.name,
                started.elapsed().as_secs_f64(),
                total.elapsed().as_secs_f64()
            );
        }
        reps.push(this_run_results(&programs, filter.as_deref(), rep_start)?);
    }
    eprintln!();
    if opts.paired {
        eprint!("{}", plan::rounds(&reps));
    }
    let metrics = pool(&reps);
    let mut facts = facts;
    crate::store::name_remote_peer(&mut facts, &metrics);
    let mut run = Run {
        machine: facts,
        metrics,
        origin: Origin::Live,
        meta: crate::store::current_meta(opts.runs),
        imported: None,
    };
    if let (Some(save), Some(machine)) = (&save, machine) {
        let dir = saving::save_run(run.clone(), &machine, save)?;
        run = crate::store::load(&dir)?;
    }
    print!("{}", crate::report::render(&[run])?);
    Ok(())
}

/// `cargo bench --no-run`: every bench built before anything is timed.
fn build_benches() -> Result<()> {
    eprintln!("building benches (cargo bench --no-run)...");
    let status = lmbench_support::proc::die_with_parent(&mut Command::new(cargo()))
        .current_dir(workspace::root())
        .args(["bench", "--no-run", "--quiet"])
        .status()
        .context("running cargo (is it on PATH?)")?;
    if !status.success() {
        bail!("building the benches failed (see cargo's output above)");
    }
    Ok(())
}

/// Runs program `p`'s benches matching `filter` through `cargo bench`,
/// Criterion's output to `log`, its "time:" lines echoed to stderr, and
/// stamps the program's results as this build's.
fn bench_program(
    p: &Program,
    filter: Option<&str>,
    quick: bool,
    log: &mut std::fs::File,
    log_path: &std::path::Path,
) -> Result<()> {
    // cargo dies with us (and the bench with cargo, see
    // harness::config), so a killed run leaves no bench behind.
    let mut cmd = Command::new(cargo());
    lmbench_support::proc::die_with_parent(&mut cmd);
    cmd.current_dir(workspace::root())
        .args(["bench", "--quiet", "--bench", p.name, "--"])
        .env("LMBENCH_PRESET", if quick { "quick" } else { "default" })
        .stdout(Stdio::piped())
        .stderr(log.try_clone()?);
    if let Some(f) = filter {
        cmd.arg(f);
    }
    let mut child = cmd.spawn().context("running cargo bench")?;
    let stdout = child.stdout.take().expect("piped");
    // A long id is printed on a line of its own, "time:" on the next.
    let mut previous = String::new();
    for line in BufReader::new(stdout).lines() {
        let line = line?;
        writeln!(log, "{line}")?;
        // Criterion prints "<id>   time:   [low est high]" per benchmark.
        if let Some((id, rest)) = line.split_once("time:") {
            let id = id.trim();
            let id = if id.is_empty() { previous.trim() } else { id };
            eprintln!("      {id:<36} {}", rest.trim());
        }
        // Reference figures a bench prints beside its own (bw_mem's
        // memcpy/memset ceilings), and the harness's note of a
        // benchmark measured while other work ran.
        if line.starts_with("ceiling: ") || line.starts_with("busy: ") {
            eprintln!("      {line}");
        }
        previous = line;
    }
    let status = child.wait()?;
    if !status.success() {
        bail!(
            "{} failed ({status}); its output is in {}",
            p.name,
            log_path.display()
        );
    }
    crate::criterion_files::write_stamp(&crate::criterion_files::home(), p.name)
}

/// How long `run` watches the machine before it starts, and between
/// checks while it waits for idle.
const IDLE_SAMPLE_S: f64 = 1.0;

/// Warns when other work is using the machine (it would be flagged in every
/// figure it overlaps); with `wait`, checks again each second until the
/// machine is idle or the time is up, then starts either way.
fn idle_check(wait: Option<std::time::Duration>) {
    use lmbench_support::activity::{sample, BUSY_CPUS};
    let started = Instant::now();
    let mut said = false;
    loop {
        let a = sample(IDLE_SAMPLE_S);
        if !a.is_busy(BUSY_CPUS) {
            if said {
                eprintln!("the machine is idle now ({})", a.describe());
            }
            return;
        }
        match wait {
            None => {
                eprintln!(
                    "warning: the machine is not idle: {}. Figures measured while other \
                     work runs are marked busy and get no verdict in `compare`; \
                     `--wait-idle` waits for it to end.",
                    a.describe()
                );
                return;
            }
            Some(limit) if started.elapsed() >= limit => {
                eprintln!(
                    "warning: still not idle after {:.0} s ({}); starting anyway: busy \
                     figures will be marked.",
                    started.elapsed().as_secs_f64(),
                    a.describe()
                );
                return;
            }
            Some(_) => {
                if !said {
                    eprintln!("waiting for the machine to be idle: {}", a.describe());
                    said = true;
                }
            }
        }
    }
}

/// The results this invocation produced: the selected programs' metrics
/// that match the filter and were written since `since` (older results of
/// other or skipped metrics stay out).
fn this_run_results(
    programs: &[&'static Program],
    filter: Option<&str>,
    since: std::time::SystemTime,
) -> Result<BTreeMap<String, MetricStats>> {
    let re = filter.map(Regex::new).transpose()?;
    let home = crate::criterion_files::home();
    let mut out = BTreeMap::new();
    for m in programs.iter().flat_map(|p| p.metrics.iter()) {
        if re.as_ref().is_some_and(|re| !re.is_match(m.id)) {
            continue;
        }
        if !crate::criterion_files::written_since(&home, m.id, since) {
            continue;
        }
        if let Some(s) = crate::criterion_files::read_benchmark(&home, m.id)? {
            out.insert(m.id.to_string(), s);
        }
    }
    if out.is_empty() {
        bail!("the run left no Criterion results in {}", home.display());
    }
    Ok(out)
}

/// One set of statistics per metric from every repetition's samples.
fn pool(reps: &[BTreeMap<String, MetricStats>]) -> BTreeMap<String, MetricStats> {
    if reps.len() == 1 {
        return reps[0].clone();
    }
    let ids: std::collections::BTreeSet<&String> = reps.iter().flat_map(|r| r.keys()).collect();
    ids.into_iter()
        .filter_map(|id| {
            let parts: Vec<MetricStats> = reps.iter().filter_map(|r| r.get(id).cloned()).collect();
            MetricStats::pool(&parts).map(|s| (id.clone(), s))
        })
        .collect()
}
