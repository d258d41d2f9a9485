//! `lmbench run [--quick] [FILTER]`: runs the suite's Criterion groups
//! through `cargo bench`, one program at a time, with a line of progress per
//! group, then prints the summary. Criterion's own output goes to
//! `target/lmbench/run.log`; its "time:" lines are echoed as they come.

use std::io::{BufRead, BufReader, Seek, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use lmbench_support::catalog::Program;
use regex::Regex;

use std::collections::BTreeMap;

use crate::run::{MetricStats, Origin, Run};
use crate::saving::{self, Target};
use crate::workspace;
use lmbench::flags::{Budget, Count, Label, MachineName, MetricFilter, Percent, RunSpec, Secs};
use lmbench::session::{MeasureOptions, SaveTo};

mod eta;
pub mod failures;
mod plan;
mod rounds;

// What `kernels` shares with `run`: durations, exact filters, pooling,
// and the undecided metrics of a budget.
pub use eta::left as eta_left;
pub use rounds::{exact as exact_filter, undecided, Rng};

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// The quick preset: 10 samples of every metric, about 3 minutes of
    /// benching for the whole suite on 2 cores (the default: about 13).
    #[arg(long)]
    pub quick: bool,
    /// Before starting, wait until other work uses under 5% of a CPU,
    /// at most SECS seconds (`--wait-idle=SECS`, 1 to 86400, default
    /// 300), then start anyway.
    #[arg(
        long,
        value_name = "SECS",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "300"
    )]
    pub wait_idle: Option<Secs>,
    /// Only metrics whose id matches this regular expression.
    pub filter: Option<MetricFilter>,
    /// Repeat the suite N times (1 to 1000), each round in a new random
    /// order of programs; with --save, one run pools all samples.
    #[arg(long, default_value = "1", conflicts_with = "budget")]
    pub runs: Count,
    /// Spend this long (90s, 15m, 1h; at most 168h; the first round
    /// whatever it takes): after a first round of everything, re-measure
    /// only the metrics still undecided (those behind lmbench's own
    /// columns first, then the summary's other columns, then the rest),
    /// until each is decided or the time is up.
    #[arg(long, value_name = "DURATION")]
    pub budget: Option<Budget>,
    /// With --budget: undecided means against this run (a baseline,
    /// MACHINE/LABEL), and the comparison is printed at the end.
    #[arg(long, value_name = "RUN", requires = "budget")]
    pub against: Option<RunSpec>,
    /// With --budget: the change that matters, percent (what "decided"
    /// means, as `compare --threshold`).
    #[arg(long, default_value = "5", value_name = "PCT", requires = "budget")]
    pub threshold: Percent,
    /// At the end, save the run as results/<machine>/<LABEL>/.
    #[arg(long, value_name = "LABEL")]
    pub save: Option<Label>,
    /// With --save: the machine name (default: the host name).
    #[arg(long, requires = "save")]
    pub machine: Option<MachineName>,
    /// With --save: replace an existing label.
    #[arg(long, requires = "save")]
    pub force: bool,
    /// Only the metrics that have a floor (FILTER narrows them), each
    /// right before its floor (every run orders them so; this skips the
    /// rest), for the ratios of `summary --floors`. With --runs N the
    /// pairs are alternated N times and each round's ratios printed.
    #[arg(long)]
    pub paired: bool,
    /// Stop at the first program that fails, saving nothing. By default
    /// the run goes on past it, as lmbench's own scripts do: the other
    /// programs are measured and saved, the failed metrics are saved as
    /// failed with their reason, the failures are listed at the end, and
    /// the exit status is 3.
    #[arg(long)]
    pub fail_fast: bool,
    /// What a run does by default (going on past a failed program); kept
    /// so that older scripts still run.
    #[arg(long, hide = true, conflicts_with = "fail_fast")]
    pub keep_going: bool,
}

impl Args {
    /// The session these flags ask for.
    pub fn options(&self) -> MeasureOptions {
        MeasureOptions {
            quick: self.quick,
            wait_idle: self.wait_idle,
            filter: self.filter.clone(),
            runs: self.runs,
            budget: self.budget,
            against: self.against.clone(),
            threshold: self.threshold,
            save: self.save.clone().map(|label| SaveTo {
                label,
                machine: self.machine.clone(),
                force: self.force,
            }),
            paired: self.paired,
            fail_fast: self.fail_fast,
        }
    }
}

/// What `measure` made: the run, the `--against` run it was settled
/// against, and the programs that failed (the run went on past them).
pub struct Measured {
    pub run: Run,
    pub against: Option<Run>,
    pub failed: Vec<failures::Failure>,
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string())
}

/// `lmbench run`: measure, print the summary (and the comparison with
/// `--against`).
pub fn run(args: Args) -> Result<()> {
    let opts = args.options();
    let Measured {
        run,
        against,
        failed,
    } = measure(&opts)?;
    print!("{}", crate::report::render(std::slice::from_ref(&run))?);
    if let Some(old) = against {
        let busy = lmbench_support::activity::BUSY_CPUS;
        let c = super::compare::comparison(&old, &run, opts.threshold.get(), busy, None, None);
        print!("\n{}", super::compare::render(&old, &run, &c, busy));
    }
    if !failed.is_empty() {
        let partial = failures::Partial {
            failed,
            log: lmbench::lock::work_dir().join("run.log"),
            saved: opts.save.is_some(),
        };
        eprint!("\n{}", partial.list());
        return Err(partial.into());
    }
    Ok(())
}

/// Measures as `opts` say: the run made (as saved, with --save) and the
/// `--against` run it was settled against.
pub fn measure(opts: &MeasureOptions) -> Result<Measured> {
    // A bad baseline is one line before anything runs.
    let against = opts
        .against
        .as_ref()
        .map(|r| crate::store::resolve(r.as_str()))
        .transpose()?;
    let save = opts.save.clone().map(|s| Target {
        label: s.label.into(),
        machine: s.machine.map(Into::into),
        force: s.force,
    });
    // What each step runs: a program and the filter its bench gets.
    let plan::Plan {
        mut steps,
        mut programs,
        results: filter,
    } = plan::plan(opts.filter.as_ref().map(MetricFilter::as_str), opts.paired)?;
    // A budget is for comparing: the floors (a bench process each, for
    // `summary --floors`) are left to `run --paired` unless a FILTER asks
    // for them.
    if opts.budget.is_some() && opts.filter.is_none() {
        let is_floor = |p: &Program| std::ptr::eq(p, &lmbench_support::catalog::floor::PROGRAM);
        steps.retain(|s| !is_floor(s.program));
        programs.retain(|p| !is_floor(p));
    }
    // A bad LMBENCH_FSDIR is one line before anything builds or runs; this
    // also sweeps scratch directories left by benches killed with SIGKILL.
    lmbench_support::fs::prepare_scratch_root()?;
    // Check the label before a long run, and take the machine facts (load
    // average above all) as they were at the start.
    let machine = save.as_ref().map(saving::precheck).transpose()?;
    let facts = lmbench_support::machine::Facts::collect();
    let log_dir = lmbench::lock::work_dir();
    // One run per checkout: a second would share the CPU and interleave
    // its results with ours. Held until we return (or die).
    let _lock = lmbench::lock::lock_run(&log_dir)?;
    let log_path = log_dir.join("run.log");
    let mut log = std::fs::File::create(&log_path)
        .with_context(|| format!("creating {}", log_path.display()))?;

    build_benches(&programs)?;

    idle_check(opts.wait_idle.map(Secs::get));

    let total = Instant::now();
    let budget = opts.budget.map(Budget::get);
    let mut rng = rounds::Rng::from_clock();
    let mut costs = rounds::Costs::default();
    let mut durations = eta::Durations::load(&log_dir, opts.quick);
    let mut failed: Vec<failures::Failure> = Vec::new();
    let mut reps: Vec<BTreeMap<String, MetricStats>> = Vec::new();
    let full_rounds = if budget.is_some() { 1 } else { opts.runs.get() };
    for rep in 1..=full_rounds {
        // Results older than this are not this repetition's (a skipped
        // metric, e.g. a remote one without LMBENCH_REMOTE, keeps the
        // directory of the last run that measured it). Filesystem
        // timestamps are coarser than the clock: one second of slack.
        let rep_start = std::time::SystemTime::now() - std::time::Duration::from_secs(1);
        if full_rounds > 1 || budget.is_some() {
            eprintln!(
                "round {rep} of {}",
                if budget.is_some() {
                    "a budget".to_string()
                } else {
                    full_rounds.to_string()
                }
            );
        }
        // The first round keeps catalog order (a single run reads as it
        // always did); later ones shuffle the programs.
        let order: Vec<&plan::Step> = if rep == 1 {
            steps.iter().collect()
        } else {
            rounds::shuffled(&steps, &mut rng)
        };
        let n = order.len();
        for (i, step) in order.iter().enumerate() {
            let p = step.program;
            // This step and the rest of this round, then the full rounds
            // after it.
            let rest = order[i..].iter().map(|s| (s.program, s.metrics));
            let later = steps.iter().map(|s| (s.program, s.metrics));
            let later_rounds = (full_rounds - rep) as usize;
            let left = eta::left(
                durations.estimate(rest.chain(later.cycle().take(later_rounds * steps.len()))),
            );
            match (&step.filter, step.metrics) {
                (Some(id), 1) => eprintln!(
                    "[{}/{n}] {} ({}){left}",
                    i + 1,
                    p.name,
                    id.trim_matches(['^', '$'])
                ),
                (_, k) => eprintln!("[{}/{n}] {} ({k} metrics){left}", i + 1, p.name),
            }
            let started = Instant::now();
            let outcome = bench_program(p, step.filter.as_deref(), opts.quick, &mut log, &log_path);
            let Some(timed) = failures::go_on(outcome, opts.fail_fast, &mut failed)? else {
                continue;
            };
            durations.record(p, step.metrics, started.elapsed());
            costs.record(&plan::step_metrics(step), started.elapsed(), &timed);
            eprintln!(
                "      {} done in {:.1}s (total {:.0}s)",
                p.name,
                started.elapsed().as_secs_f64(),
                total.elapsed().as_secs_f64()
            );
        }
        let results = results_since(&programs, filter.as_deref(), rep_start)?;
        if results.is_empty() {
            if let Some(first) = failed.first() {
                bail!("every program failed; the first: {first}");
            }
            bail!(
                "the run left no Criterion results in {}",
                crate::criterion_files::home().display()
            );
        }
        reps.push(results);
        save_progress(&reps, &facts, &failed, save.as_ref(), machine.as_deref())?;
    }
    if let Some(budget) = budget {
        let against = opts
            .against
            .as_ref()
            .map(|r| crate::store::resolve(r.as_str()))
            .transpose()?;
        let mut unmeasured = std::collections::BTreeSet::new();
        loop {
            let left = budget.saturating_sub(total.elapsed());
            let so_far = pooled_run(&reps, &facts, &failed);
            let mut undecided = rounds::undecided(&so_far, against.as_ref(), opts.threshold.get());
            undecided.retain(|c| !unmeasured.contains(&c.id));
            if undecided.is_empty() {
                eprintln!(
                    "every metric is decided after {:.0} s",
                    total.elapsed().as_secs_f64()
                );
                break;
            }
            let round = rounds::fit_round(&undecided, &costs, rounds::round_time(left));
            if round.is_empty() {
                eprintln!(
                    "budget spent ({:.0} s): {} metrics still undecided",
                    total.elapsed().as_secs_f64(),
                    undecided.len()
                );
                break;
            }
            let k: usize = round.iter().map(|(_, ids)| ids.len()).sum();
            eprintln!(
                "round {} ({} undecided; re-measuring {k} of them, {:.0} s left)",
                reps.len() + 1,
                undecided.len(),
                left.as_secs_f64()
            );
            let rep_start = std::time::SystemTime::now() - std::time::Duration::from_secs(1);
            let mut round = round;
            rng.shuffle(&mut round);
            let mut ids_all = Vec::new();
            for (p, ids) in &round {
                let f = rounds::exact(ids);
                eprintln!("      {} ({} metrics)", p.name, ids.len());
                let started = Instant::now();
                let outcome = bench_program(p, Some(&f), opts.quick, &mut log, &log_path);
                let Some(timed) = failures::go_on(outcome, opts.fail_fast, &mut failed)? else {
                    // Not asked for again: it would fail again.
                    unmeasured.extend(ids.iter().cloned());
                    continue;
                };
                let ms: Vec<&'static lmbench_support::catalog::Metric> = p
                    .metrics
                    .iter()
                    .copied()
                    .filter(|m| ids.iter().any(|i| i == m.id))
                    .collect();
                costs.record(&ms, started.elapsed(), &timed);
                ids_all.extend(ids.iter().cloned());
            }
            let programs: Vec<&'static Program> = round.iter().map(|(p, _)| *p).collect();
            let results = results_since(&programs, Some(&rounds::exact(&ids_all)), rep_start)?;
            // A metric its bench places itself (a point a sweep bisects
            // to) may not be measured when asked for alone: it is not
            // asked for again, and a round that measured nothing ends
            // nothing but itself.
            let missed: Vec<String> = ids_all
                .into_iter()
                .filter(|id| !results.contains_key(id))
                .collect();
            if !missed.is_empty() {
                eprintln!(
                    "      not measured when asked for alone, left out of later rounds: {}",
                    missed.join(", ")
                );
                unmeasured.extend(missed);
            }
            if results.is_empty() {
                continue;
            }
            reps.push(results);
            save_progress(&reps, &facts, &failed, save.as_ref(), machine.as_deref())?;
        }
    }
    eprintln!();
    if opts.paired {
        eprint!("{}", plan::rounds(&reps));
    }
    let mut run = pooled_run(&reps, &facts, &failed);
    if let (Some(save), Some(_)) = (&save, &machine) {
        let dir = crate::store::run_dir(
            &crate::store::results_root(),
            machine.as_deref().unwrap_or_default(),
            &save.label,
        );
        run = crate::store::load(&dir)?;
    }
    Ok(Measured {
        run,
        against,
        failed,
    })
}

/// The run the rounds so far make: every metric's samples pooled over the
/// rounds that measured it, and the failures of the metrics no round
/// measured.
fn pooled_run(
    reps: &[BTreeMap<String, MetricStats>],
    facts: &lmbench_support::machine::Facts,
    failed: &[failures::Failure],
) -> Run {
    let metrics = pool(reps);
    let mut facts = facts.clone();
    crate::store::name_remote_peer(&mut facts, &metrics);
    let mut meta = crate::store::current_meta(reps.len() as u32);
    meta.failed = failures::unmeasured(failed, &metrics);
    Run {
        machine: facts,
        metrics,
        origin: Origin::Live,
        meta,
        imported: None,
    }
}

/// With --save, saves the rounds so far (each round replaces the last
/// save of this run), so a run stopped in its third round keeps two.
fn save_progress(
    reps: &[BTreeMap<String, MetricStats>],
    facts: &lmbench_support::machine::Facts,
    failed: &[failures::Failure],
    save: Option<&Target>,
    machine: Option<&str>,
) -> Result<()> {
    let (Some(save), Some(machine)) = (save, machine) else {
        return Ok(());
    };
    let target = Target {
        label: save.label.clone(),
        machine: Some(machine.to_string()),
        // The first save was checked before the run; later ones replace
        // this run's own.
        force: save.force || reps.len() > 1,
    };
    saving::save_run(pooled_run(reps, facts, failed), machine, &target)?;
    Ok(())
}

/// `cargo bench --no-run` of the programs the run will time, before
/// anything is timed.
fn build_benches(programs: &[&Program]) -> Result<()> {
    eprintln!("building benches (cargo bench --no-run)...");
    let mut cmd = Command::new(cargo());
    lmbench_support::child::die_with_parent(&mut cmd)
        .current_dir(workspace::root())
        .args(["bench", "--no-run", "--quiet"]);
    for p in programs {
        cmd.args(["--bench", p.name]);
    }
    let status = cmd.status().context("running cargo (is it on PATH?)")?;
    if !status.success() {
        bail!("building the benches failed (see cargo's output above)");
    }
    Ok(())
}

/// Runs program `p`'s benches matching `filter` through `cargo bench`,
/// Criterion's output to `log`, its "time:" lines echoed to stderr, and
/// stamps the program's results as this build's.
fn bench_program(
    p: &'static Program,
    filter: Option<&str>,
    quick: bool,
    log: &mut std::fs::File,
    log_path: &std::path::Path,
) -> Result<Vec<(String, Duration)>> {
    // cargo dies with us (and the bench with cargo, see
    // harness::config), so a killed run leaves no bench behind.
    let mut cmd = Command::new(cargo());
    lmbench_support::child::die_with_parent(&mut cmd);
    cmd.current_dir(workspace::root())
        .args(["bench", "--quiet", "--bench", p.name, "--"])
        .env("LMBENCH_PRESET", if quick { "quick" } else { "default" })
        .stdout(Stdio::piped())
        .stderr(log.try_clone()?);
    if let Some(f) = filter {
        cmd.arg(f);
    }
    // Where this program's output starts in the log: its failure's reason
    // is read from there.
    let log_start = log.stream_position()?;
    let mut child = cmd.spawn().context("running cargo bench")?;
    let stdout = child.stdout.take().expect("piped");
    // A long id is printed on a line of its own, "time:" on the next.
    let mut previous = String::new();
    // Each result's time since the one before: what its metric cost.
    let mut timed = Vec::new();
    let mut last = Instant::now();
    for line in BufReader::new(stdout).lines() {
        let line = line?;
        writeln!(log, "{line}")?;
        // Criterion prints "<id>   time:   [low est high]" per benchmark.
        if let Some((id, rest)) = line.split_once("time:") {
            let id = id.trim();
            let id = if id.is_empty() { previous.trim() } else { id };
            eprintln!("      {id:<36} {}", rest.trim());
            timed.push((id.to_string(), last.elapsed()));
            last = Instant::now();
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
        return Err(failures::Failure::read(p, filter, status, log_path, log_start).into());
    }
    crate::criterion_files::write_stamp(&crate::criterion_files::home(), p.name)?;
    Ok(timed)
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
/// other or skipped metrics stay out). Empty when none was.
fn results_since(
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
    Ok(out)
}

/// One set of statistics per metric from every repetition's samples.
pub fn pool(reps: &[BTreeMap<String, MetricStats>]) -> BTreeMap<String, MetricStats> {
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
