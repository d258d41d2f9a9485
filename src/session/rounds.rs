//! Rounds: how `run` repeats the suite. Every round runs its programs in
//! a fresh random order (a host that drifts for minutes then moves every
//! program a little, not one program a lot), and `--budget` spends the
//! time left after the first round where the doubt is: each further
//! round re-measures only the metrics that are still undecided (against
//! `--against`'s run, or against a copy of themselves when there is none:
//! "could this run see a change of the threshold?"): those behind
//! lmbench's own columns first, then those behind the other summary
//! columns, then the rest (sweeps no column shows), the most uncertain
//! first within each when the time left cannot hold them all.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use lmbench_support::catalog::{floor, Metric, Program, TABLES};
use lmbench_support::rng::SplitMix64;

use super::plan::Step;
use crate::run::Run;
use crate::verdict::{self, Verdict};

/// The generator of a round's order.
pub struct Rng(SplitMix64);

impl Rng {
    /// Seeded from the clock (the seed is printed, so an order can be
    /// told apart from another).
    pub fn from_clock() -> Rng {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Rng::seeded(nanos ^ u64::from(std::process::id()).rotate_left(32))
    }

    pub fn seeded(seed: u64) -> Rng {
        Rng(SplitMix64(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        self.0.shuffle(v)
    }
}

pub(super) fn shuffled<'a>(steps: &'a [Step], rng: &mut Rng) -> Vec<&'a Step> {
    let mut blocks: Vec<Vec<&Step>> = Vec::new();
    for s in steps {
        let is_floor = std::ptr::eq(s.program, &floor::PROGRAM);
        match blocks.last_mut() {
            Some(b) if is_floor || std::ptr::eq(b[0].program, s.program) => b.push(s),
            _ => blocks.push(vec![s]),
        }
    }
    rng.shuffle(&mut blocks);
    blocks.into_iter().flatten().collect()
}

/// The runs a `--budget` sitting gives every metric behind lmbench's own
/// columns, decided or not, when the time allows: enough for the
/// comparison to tell a run slowed whole from the others
/// ([`MIN_RUNS_TO_JUDGE`](crate::verdict::estimate::MIN_RUNS_TO_JUDGE)).
/// On a 2-vCPU AMD EPYC guest a 15-minute quick sitting left 54 of 111
/// such metrics (system calls, signals, lat_ops, the in-cache chains) at
/// two runs, decided against themselves, while undecided ones got 10-15.
pub const COLUMN_RUNS: usize = crate::verdict::estimate::MIN_RUNS_TO_JUDGE;

/// A metric a further round may re-measure.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub id: String,
    /// 0: behind a column of lmbench's own tables, or the pinned twin of
    /// one; 1: behind another summary column; 2: behind none.
    pub tier: u8,
    /// Its detectable change now, percent.
    pub detect_pct: f64,
    /// Runs a side that would bring its detectable change to the
    /// threshold at its spread now (`None`: beyond reach, or unknown).
    pub runs_needed: Option<usize>,
    /// It has a single run so far: compare neither calls nor decides it
    /// until it has a second.
    pub single: bool,
}

/// The metrics behind the summary's columns in `run`: lmbench's own
/// columns' and the pinned twins that answer for its unpinned round trips
/// (tier 0), then the other tables' (tier 1).
pub fn column_metrics(run: &Run) -> BTreeMap<String, u8> {
    let mut out: BTreeMap<String, u8> = BTreeMap::new();
    for id in crate::columns::lmbench_column_metrics(run) {
        out.insert(id, 0);
    }
    for twin in crate::columns::pinned_twins(run).into_values() {
        out.insert(twin, 0);
    }
    for t in TABLES {
        for c in t.columns {
            for id in crate::cells::reads(c, run) {
                out.entry(id).or_insert(1);
            }
        }
    }
    out
}

/// The undecided metrics: "cannot tell" (or busy) against `against`, or,
/// without it, against the run itself; and every metric behind lmbench's
/// own columns that has fewer than [`COLUMN_RUNS`] runs, whatever its
/// verdict: one run shows nothing of the run-to-run noise that dominates
/// most metrics (the spread it borrows comes from whichever metrics
/// happened to get runs), and a side of two or three runs that agree by
/// chance reads as decided until the other side's runs differ, while a
/// run slowed whole can only be told apart with
/// [`MIN_RUNS_TO_JUDGE`](crate::verdict::estimate::MIN_RUNS_TO_JUDGE)
/// runs. Such a metric needs [`COLUMN_RUNS`] runs, and is ordered so.
/// In order: lmbench's columns first, then the other columns, then the
/// rest; within each, single runs first, then the metrics the fewest
/// further runs would settle (a metric that needs hundreds is measured
/// last, not first), then the most uncertain.
pub fn undecided(run: &Run, against: Option<&Run>, threshold_pct: f64) -> Vec<Candidate> {
    candidates(run, against, threshold_pct, false, COLUMN_RUNS)
}

/// [`undecided`]'s metrics, and those behind lmbench's own columns that
/// are decided but cannot yet see a change of the threshold (a change
/// called at ±4.9% says that a column moved, not by how much): what a
/// sitting of two kernels spends its further rounds on, since the share
/// of lmbench's columns that can see the threshold is its answer's
/// resolution. A column's metric with fewer than `column_runs` runs is
/// in doubt too: [`COLUMN_RUNS`] where the host's time enters the
/// figures (a run slowed whole), 2 where it does not (instructions
/// counted under icount: no boot is slowed by the host).
pub fn unresolved(
    run: &Run,
    against: Option<&Run>,
    threshold_pct: f64,
    column_runs: usize,
) -> Vec<Candidate> {
    candidates(run, against, threshold_pct, true, column_runs)
}

fn candidates(
    run: &Run,
    against: Option<&Run>,
    threshold_pct: f64,
    coarse_columns: bool,
    column_runs: usize,
) -> Vec<Candidate> {
    let columns = column_metrics(run);
    let c = verdict::compare(
        against.unwrap_or(run),
        run,
        &verdict::Options::at(threshold_pct),
    );
    let runs_of = |id: &str| run.metrics.get(id).map_or(0, |s| s.rounds().len());
    let mut out: Vec<Candidate> = c
        .rows
        .iter()
        .filter_map(|r| {
            let k = Candidate {
                id: r.id.clone(),
                tier: columns.get(&r.id).copied().unwrap_or(2),
                detect_pct: r.test.as_ref().map_or(f64::INFINITY, |t| t.detect_pct),
                runs_needed: r.test.as_ref().and_then(|t| t.runs_needed),
                single: runs_of(&r.id) < 2,
            };
            // A metric the other side measured once stays "cannot tell"
            // whatever this side adds (a side of one run is never called):
            // past a second run of its own, more are time lost.
            let stuck = against
                .is_some_and(|a| a.metrics.get(&r.id).map_or(0, |s| s.rounds().len()) < 2)
                && runs_of(&r.id) >= 2;
            let coarse = coarse_columns && k.tier == 0 && k.detect_pct > threshold_pct;
            let undecided =
                (matches!(r.verdict, Verdict::CannotTell | Verdict::Busy) || coarse) && !stuck;
            let short = k.tier == 0 && runs_of(&r.id) < column_runs;
            match (undecided, short) {
                (true, _) => Some(k),
                (false, true) => Some(Candidate {
                    runs_needed: Some(column_runs),
                    ..k
                }),
                (false, false) => None,
            }
        })
        .collect();
    order(&mut out);
    out
}

/// Sorts candidates as [`undecided`] lists them.
fn order(out: &mut [Candidate]) {
    out.sort_by(|a, b| {
        a.tier
            .cmp(&b.tier)
            .then(b.single.cmp(&a.single))
            .then(
                a.runs_needed
                    .unwrap_or(usize::MAX)
                    .cmp(&b.runs_needed.unwrap_or(usize::MAX)),
            )
            .then(b.detect_pct.total_cmp(&a.detect_pct))
    });
}

/// What one metric's measurement took, from the rounds so far: the time
/// from the result before it to its own result when the bench printed
/// one (a 2g bandwidth costs far more than a 4k one of the same program),
/// else its step's time over the step's metrics.
#[derive(Default)]
pub struct Costs(BTreeMap<String, Duration>);

/// What starting one bench program costs beyond its metrics: cargo's
/// freshness check and the process start (about 0.6 s for a one-metric
/// lat_syscall step on the Xeon guest, most of it this).
pub const PROGRAM_START: Duration = Duration::from_secs(1);

impl Costs {
    /// A step of `ids` that took `took` in all, of which `timed` holds the
    /// metrics whose results were seen, each with the time since the
    /// result before it (the first from the start of the step).
    pub fn record(
        &mut self,
        ids: &[&'static Metric],
        took: Duration,
        timed: &[(String, Duration)],
    ) {
        if ids.is_empty() {
            return;
        }
        let each = took / ids.len() as u32;
        for m in ids {
            self.0.insert(m.id.to_string(), each);
        }
        for (id, d) in timed {
            if ids.iter().any(|m| m.id == id) {
                self.0.insert(id.clone(), *d);
            }
        }
    }

    /// A metric's cost; one never measured is taken as a second.
    pub fn of(&self, id: &str) -> Duration {
        self.0.get(id).copied().unwrap_or(Duration::from_secs(1))
    }
}

/// How long one further round may take when `left` remains: a third of
/// it, so the time left is spent over several rounds (each re-measuring
/// the most uncertain metrics so far) rather than on one round of all,
/// and never less than a minute or more than what is left.
pub fn round_time(left: Duration) -> Duration {
    (left / 3).max(Duration::from_secs(60)).min(left)
}

/// The candidates a round can hold in `left`, in their order of doubt,
/// grouped by program: each program's ids, programs in the order of
/// their most uncertain metric.
pub fn fit_round(
    candidates: &[Candidate],
    costs: &Costs,
    left: Duration,
) -> Vec<(&'static Program, Vec<String>)> {
    let mut spent = Duration::ZERO;
    let mut out: Vec<(&'static Program, Vec<String>)> = Vec::new();
    let mut taken = BTreeSet::new();
    for c in candidates {
        let cost = costs.of(&c.id);
        if spent + cost > left || !taken.insert(c.id.clone()) {
            continue;
        }
        let Some(program) = program_of(&c.id) else {
            continue;
        };
        let start = if out.iter().any(|(p, _)| std::ptr::eq(*p, program)) {
            Duration::ZERO
        } else {
            PROGRAM_START
        };
        if spent + start + cost > left {
            taken.remove(&c.id);
            continue;
        }
        spent += start + cost;
        match out.iter_mut().find(|(p, _)| std::ptr::eq(*p, program)) {
            Some((_, ids)) => ids.push(c.id.clone()),
            None => out.push((program, vec![c.id.clone()])),
        }
    }
    out
}

/// The program that measures metric `id`.
fn program_of(id: &str) -> Option<&'static Program> {
    lmbench_support::catalog::PROGRAMS
        .iter()
        .copied()
        .find(|p| p.metrics.iter().any(|m| m.id == id))
}

/// A filter matching exactly these ids.
pub fn exact(ids: &[String]) -> String {
    let ids: Vec<String> = ids.iter().map(|i| regex::escape(i)).collect();
    format!("^({})$", ids.join("|"))
}

#[cfg(test)]
mod tests;
