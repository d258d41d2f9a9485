//! The session itself: resolve and check everything a bad input could
//! stop, build the programs, then measure in rounds — full rounds of the
//! plan, or with a budget one full round and then rounds of the metrics
//! still undecided — and pool every metric's samples over the rounds
//! that measured it into one run, handed to the caller after each round.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{bail, Context, Result};
use lmbench_support::catalog::{Metric, Program};
use lmbench_support::machine::Facts;

use super::failures::{self, Failure};
use super::options::MeasureOptions;
use super::rounds::{self, Costs, Rng};
use super::{eta, local, plan};
use crate::flags::{Budget, MetricFilter, Secs};
use crate::run::{MetricStats, Run};

/// Where a session's rounds are kept as they finish (with `run --save`,
/// the store). Saving, and the summary saved beside a run, are the
/// caller's.
pub trait SaveRounds {
    /// Before anything is built or run: a taken label or a bad name is
    /// one line now, not after an hour of measuring.
    fn check(&mut self) -> Result<()>;
    /// The rounds so far (`rounds` of them) pooled into `run`: replaces
    /// what an earlier call kept, so a session stopped in its third round
    /// keeps two.
    fn save(&mut self, run: Run, rounds: usize) -> Result<()>;
    /// The run as kept, read back: what a later `summary` of it reads.
    fn saved(&self) -> Result<Run>;
}

/// What a session made: the run, the `--against` run it was settled
/// against, and the programs that failed (the session went on past them).
pub struct Measured {
    pub run: Run,
    pub against: Option<Run>,
    pub failed: Vec<Failure>,
}

/// What the steps of a session share.
struct Session<'a> {
    opts: &'a MeasureOptions,
    log: File,
    log_path: PathBuf,
    facts: Facts,
    costs: Costs,
    failed: Vec<Failure>,
    /// Each round's results, a metric's statistics each.
    rounds: Vec<BTreeMap<String, MetricStats>>,
    saver: Option<&'a mut dyn SaveRounds>,
    started: Instant,
}

impl Session<'_> {
    /// Runs `p` on `metrics` (`filter` is its bench's filter; none: all of
    /// the program's): the time it took, or `None` when it failed and the
    /// session goes on past it (with `--fail-fast`, the failure).
    fn step(
        &mut self,
        p: &'static Program,
        filter: Option<&str>,
        metrics: &[&'static Metric],
    ) -> Result<Option<Duration>> {
        let started = Instant::now();
        let outcome =
            local::bench_program(p, filter, self.opts.quick, &mut self.log, &self.log_path);
        let Some(timed) = failures::go_on(outcome, self.opts.fail_fast, &mut self.failed)? else {
            return Ok(None);
        };
        let took = started.elapsed();
        self.costs.record(metrics, took, &timed);
        Ok(Some(took))
    }

    /// Ends a round with `results`, and hands the rounds so far on.
    fn end_round(&mut self, results: BTreeMap<String, MetricStats>) -> Result<()> {
        self.rounds.push(results);
        let run = live_run(&self.rounds, &self.facts, &self.failed);
        if let Some(saver) = self.saver.as_deref_mut() {
            saver.save(run, self.rounds.len())?;
        }
        Ok(())
    }

    fn pooled(&self) -> Run {
        live_run(&self.rounds, &self.facts, &self.failed)
    }
}

/// Measures as `opts` say; after each round, the run so far goes to
/// `saver`. The run made is as `saver` kept it, when there is one.
pub fn measure<'a>(
    opts: &'a MeasureOptions,
    mut saver: Option<&'a mut dyn SaveRounds>,
) -> Result<Measured> {
    // A bad baseline is one line before anything runs.
    let against = opts
        .against
        .as_ref()
        .map(|r| crate::store::resolve(r.as_str()))
        .transpose()?;
    let mut plan = plan::plan(opts.filter.as_ref().map(MetricFilter::as_str), opts.paired)?;
    // A budget is for comparing: the floors (a bench process each, for
    // `summary --floors`) are left to `run --paired` unless a FILTER asks
    // for them.
    if opts.budget.is_some() && opts.filter.is_none() {
        let is_floor = |p: &Program| std::ptr::eq(p, &lmbench_support::catalog::floor::PROGRAM);
        plan.steps.retain(|s| !is_floor(s.program));
        plan.programs.retain(|p| !is_floor(p));
    }
    // A bad LMBENCH_FSDIR is one line before anything builds or runs; this
    // also sweeps scratch directories left by benches killed with SIGKILL.
    lmbench_support::fs::prepare_scratch_root()?;
    // Check the label before a long run, and take the machine facts (load
    // average above all) as they were at the start.
    if let Some(s) = saver.as_deref_mut() {
        s.check()?;
    }
    let facts = Facts::collect();
    let log_dir = crate::lock::work_dir();
    // One run per checkout: a second would share the CPU and interleave
    // its results with ours. Held until we return (or die).
    let _lock = crate::lock::lock_run(&log_dir)?;
    let log_path = log_dir.join("run.log");
    let log =
        File::create(&log_path).with_context(|| format!("creating {}", log_path.display()))?;

    local::build_benches(&plan.programs)?;
    local::idle_check(opts.wait_idle.map(Secs::get));

    let mut session = Session {
        opts,
        log,
        log_path,
        facts,
        costs: Costs::default(),
        failed: Vec::new(),
        rounds: Vec::new(),
        saver,
        started: Instant::now(),
    };
    let mut rng = Rng::from_clock();
    let budget = opts.budget.map(Budget::get);
    let full = if budget.is_some() { 1 } else { opts.runs.get() };
    full_rounds(&mut session, &plan, full, &mut rng)?;
    if let Some(budget) = budget {
        budget_rounds(&mut session, against.as_ref(), budget, &mut rng)?;
    }
    eprintln!();
    if opts.paired {
        eprint!("{}", plan::rounds(&session.rounds));
    }
    let run = match session.saver.as_deref() {
        Some(s) => s.saved()?,
        None => session.pooled(),
    };
    Ok(Measured {
        run,
        against,
        failed: session.failed,
    })
}

/// When a round starts: results older than this are not this round's (a
/// skipped metric, e.g. a remote one without LMBENCH_REMOTE, keeps the
/// directory of the last run that measured it). Filesystem timestamps are
/// coarser than the clock: one second of slack.
fn round_start() -> SystemTime {
    SystemTime::now() - Duration::from_secs(1)
}

/// `full` rounds of every step of `plan`: the first in catalog order (a
/// single run reads as it always did), later ones in a random order of
/// programs.
fn full_rounds(s: &mut Session, plan: &plan::Plan, full: u32, rng: &mut Rng) -> Result<()> {
    let mut durations = eta::Durations::load(&crate::lock::work_dir(), s.opts.quick);
    let budget = s.opts.budget.is_some();
    for round in 1..=full {
        let since = round_start();
        if full > 1 || budget {
            let of = if budget {
                "a budget".to_string()
            } else {
                full.to_string()
            };
            eprintln!("round {round} of {of}");
        }
        let order: Vec<&plan::Step> = if round == 1 {
            plan.steps.iter().collect()
        } else {
            rounds::shuffled(&plan.steps, rng)
        };
        let n = order.len();
        for (i, step) in order.iter().enumerate() {
            let p = step.program;
            // This step and the rest of this round, then the full rounds
            // after it.
            let rest = order[i..].iter().map(|s| (s.program, s.metrics));
            let later = plan.steps.iter().map(|s| (s.program, s.metrics));
            let later_rounds = (full - round) as usize;
            let left = eta::left(
                durations.estimate(rest.chain(later.cycle().take(later_rounds * plan.steps.len()))),
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
            let metrics = plan::step_metrics(step);
            let Some(took) = s.step(p, step.filter.as_deref(), &metrics)? else {
                continue;
            };
            durations.record(p, step.metrics, took);
            eprintln!(
                "      {} done in {:.1}s (total {:.0}s)",
                p.name,
                took.as_secs_f64(),
                s.started.elapsed().as_secs_f64()
            );
        }
        let results = local::results_since(&plan.programs, plan.results.as_deref(), since)?;
        if results.is_empty() {
            if let Some(first) = s.failed.first() {
                bail!("every program failed; the first: {first}");
            }
            bail!(
                "the run left no Criterion results in {}",
                crate::criterion_files::home().display()
            );
        }
        s.end_round(results)?;
    }
    Ok(())
}

/// Rounds of the metrics still undecided (against `against`, or against
/// themselves), each fitted to a share of the time left, until every
/// metric is decided or `budget` is spent.
fn budget_rounds(
    s: &mut Session,
    against: Option<&Run>,
    budget: Duration,
    rng: &mut Rng,
) -> Result<()> {
    let threshold = s.opts.threshold.get();
    // Metrics not asked for again: they failed, or their bench did not
    // measure them when asked for alone.
    let mut unmeasured = BTreeSet::new();
    loop {
        let left = budget.saturating_sub(s.started.elapsed());
        let mut undecided = rounds::undecided(&s.pooled(), against, threshold);
        undecided.retain(|c| !unmeasured.contains(&c.id));
        if undecided.is_empty() {
            eprintln!(
                "every metric is decided after {:.0} s",
                s.started.elapsed().as_secs_f64()
            );
            return Ok(());
        }
        let mut round = rounds::fit_round(&undecided, &s.costs, rounds::round_time(left));
        if round.is_empty() {
            eprintln!(
                "budget spent ({:.0} s): {} metrics still undecided",
                s.started.elapsed().as_secs_f64(),
                undecided.len()
            );
            return Ok(());
        }
        let k: usize = round.iter().map(|(_, ids)| ids.len()).sum();
        eprintln!(
            "round {} ({} undecided; re-measuring {k} of them, {:.0} s left)",
            s.rounds.len() + 1,
            undecided.len(),
            left.as_secs_f64()
        );
        let since = round_start();
        rng.shuffle(&mut round);
        let mut asked = Vec::new();
        for (p, ids) in &round {
            eprintln!("      {} ({} metrics)", p.name, ids.len());
            let metrics: Vec<&'static Metric> = p
                .metrics
                .iter()
                .copied()
                .filter(|m| ids.iter().any(|i| i == m.id))
                .collect();
            if s.step(p, Some(&rounds::exact(ids)), &metrics)?.is_none() {
                // Not asked for again: it would fail again.
                unmeasured.extend(ids.iter().cloned());
                continue;
            }
            asked.extend(ids.iter().cloned());
        }
        let programs: Vec<&'static Program> = round.iter().map(|(p, _)| *p).collect();
        let results = local::results_since(&programs, Some(&rounds::exact(&asked)), since)?;
        // A metric its bench places itself (a point a sweep bisects to)
        // may not be measured when asked for alone: it is not asked for
        // again, and a round that measured nothing ends nothing but itself.
        let missed: Vec<String> = asked
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
        if !results.is_empty() {
            s.end_round(results)?;
        }
    }
}

/// The run the rounds so far make: every metric's samples pooled over the
/// rounds that measured it, and the failures of the metrics no round
/// measured, on the machine of `facts`.
pub fn live_run(
    rounds: &[BTreeMap<String, MetricStats>],
    facts: &Facts,
    failed: &[Failure],
) -> Run {
    let metrics = pool(rounds);
    let mut run = crate::store::live_run(metrics, facts.clone(), rounds.len() as u32);
    run.meta.failed = failures::unmeasured(failed, &run.metrics);
    run
}

/// One set of statistics per metric from every round's samples.
pub fn pool(rounds: &[BTreeMap<String, MetricStats>]) -> BTreeMap<String, MetricStats> {
    if rounds.len() == 1 {
        return rounds[0].clone();
    }
    let ids: BTreeSet<&String> = rounds.iter().flat_map(|r| r.keys()).collect();
    ids.into_iter()
        .filter_map(|id| {
            let parts: Vec<MetricStats> =
                rounds.iter().filter_map(|r| r.get(id).cloned()).collect();
            MetricStats::pool(&parts).map(|s| (id.clone(), s))
        })
        .collect()
}
