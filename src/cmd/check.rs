//! `lmbench check BASELINE [FILTER]`: did anything regress since the
//! baseline? Measures FILTER's metrics now (quick sampling, rounds until
//! each is decided or `--budget` is spent, as `run --budget --against`),
//! compares them with the baseline, prints the comparison and exits:
//!
//! - 0: nothing regressed: every metric is unchanged, faster, or slower by
//!   less than the threshold;
//! - 1: a regression: a metric called slower by at least the threshold;
//! - 125: cannot tell: a metric stayed undecided, or was measured only on
//!   a busy machine (`git bisect run` skips such a commit). An unpinned
//!   column (a context switch, a local round trip or stream, whose ends
//!   the scheduler places) that stays undecided while its pinned twin (the
//!   same kernel path with every end on one CPU) is decided and could have
//!   found the threshold is answered by the twin, as `compare` lists it:
//!   the twin's own row then says whether that path regressed;
//! - 2: an error (a bad baseline, a failed bench).
//!
//! With `--new RUN` it checks a saved run instead of measuring.

use std::collections::BTreeMap;

use anyhow::{bail, Result};

use crate::verdict::{Comparison, Row, Verdict};
use lmbench::flags::{Budget, BusyShare, MetricFilter, Percent, RunSpec};
use lmbench::session::MeasureOptions;

use crate::exit::Outcome;

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// The baseline: MACHINE/LABEL, a label or a run directory.
    pub baseline: RunSpec,
    /// Only metrics whose id matches this regular expression (default:
    /// every metric the baseline has).
    pub filter: Option<MetricFilter>,
    /// The slowdown that counts as a regression, percent.
    #[arg(long, default_value = "5", value_name = "PCT")]
    pub threshold: Percent,
    /// How long to measure (90s, 15m; at most 168h): rounds until every
    /// metric is decided or this is spent.
    #[arg(long, default_value = "3m", value_name = "DURATION")]
    pub budget: Budget,
    /// The default sampling instead of the quick preset.
    #[arg(long)]
    pub full: bool,
    /// Give no verdict on metrics measured while other work used at
    /// least PCT% of a CPU (either run): they make the check "cannot tell".
    #[arg(long, value_name = "PCT", default_value_t = BusyShare::DEFAULT)]
    pub busy_threshold: BusyShare,
    /// Check this saved run instead of measuring (so --budget and --full,
    /// which say how to measure, are refused beside it).
    #[arg(long, value_name = "RUN", conflicts_with_all = ["budget", "full"])]
    pub new: Option<RunSpec>,
}

/// What the comparison says, as `check`'s exit code; `twins` maps an
/// unpinned metric to its pinned twin (`columns::pinned_twins`).
pub fn outcome(c: &Comparison, twins: &BTreeMap<String, String>) -> Outcome {
    let t = c.threshold_pct;
    if c.regressions(t).next().is_some() {
        Outcome::Regression
    } else if undecided(c, twins).next().is_some() {
        Outcome::CannotTell
    } else {
        Outcome::Done
    }
}

/// The rows that leave the check unable to tell: neither decided nor
/// answered by a pinned twin that is decided and detects the threshold.
fn undecided<'a>(
    c: &'a Comparison,
    twins: &'a BTreeMap<String, String>,
) -> impl Iterator<Item = &'a Row> {
    c.rows
        .iter()
        .filter(move |r| !r.verdict.decided() && settled_by(c, twins, r).is_none())
}

/// The pinned twin that answers undecided row `r`, if any (never for a
/// busy row: a busy machine is a reason to skip the commit either way).
fn settled_by<'a>(c: &'a Comparison, twins: &BTreeMap<String, String>, r: &Row) -> Option<&'a Row> {
    if r.verdict == Verdict::Busy {
        return None;
    }
    let twin = twins.get(&r.id)?;
    c.rows
        .iter()
        .find(|t| &t.id == twin && t.verdict.decided() && t.detects(c.threshold_pct))
}

pub fn run(opts: Args) -> Result<Outcome> {
    let filter = opts.filter.as_ref().map(MetricFilter::regex);
    let (new, old) = match &opts.new {
        Some(spec) => (
            crate::store::resolve(spec.as_str())?,
            crate::store::resolve(opts.baseline.as_str())?,
        ),
        None => {
            let measured = lmbench::session::measure(
                &MeasureOptions {
                    quick: !opts.full,
                    filter: opts.filter.clone(),
                    budget: Some(opts.budget),
                    against: Some(opts.baseline.clone()),
                    threshold: opts.threshold,
                    // A bisect step must not pass on a partial run.
                    fail_fast: true,
                    ..MeasureOptions::default()
                },
                None,
            )?;
            let Some(old) = measured.against else {
                bail!(
                    "internal error: measuring against {} returned no baseline",
                    opts.baseline
                );
            };
            (measured.run, old)
        }
    };
    let busy = opts.busy_threshold.cpus();
    let threshold = opts.threshold.get();
    let c = super::compare::comparison(&old, &new, threshold, busy, filter, None);
    if c.rows.is_empty() {
        bail!(
            "{} and the new run have no metric in common{}",
            opts.baseline,
            if filter.is_some() {
                " matching FILTER"
            } else {
                ""
            }
        );
    }
    print!("{}", super::compare::render(&old, &new, &c, busy));
    let twins = crate::columns::pinned_twins(&new);
    let found = outcome(&c, &twins);
    let by_twins = c
        .rows
        .iter()
        .filter(|r| !r.verdict.decided() && settled_by(&c, &twins, r).is_some())
        .count();
    let what = match found {
        Outcome::Done => "no regression".to_string(),
        Outcome::Regression => format!(
            "regression: {}",
            super::compare::regressions(&c, threshold).join(", ")
        ),
        Outcome::CannotTell => format!(
            "cannot tell: {} undecided, {} busy",
            c.count(Verdict::CannotTell) + c.count(Verdict::Untested) - by_twins,
            c.count(Verdict::Busy)
        ),
    };
    let what = match by_twins {
        0 => what,
        n => format!("{what}; {n} unpinned answered by their pinned twins"),
    };
    eprintln!("lmbench check: {what} (exit {})", found.code());
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::{Comparison, Drift, Level, Row, Test, Verdict};

    /// A row of metric `id` with `verdict`, `change` percent and, when
    /// `detect` is given, a test that finds that change.
    fn row(id: &str, verdict: Verdict, change: f64, detect: Option<f64>) -> Row {
        Row {
            id: id.into(),
            unit: "us",
            old: 1.0,
            new: 1.0,
            change_pct: change,
            time_change_pct: change,
            estimator: crate::verdict::estimate::Estimator::Fastest,
            per_cycle: false,
            in_time_change_pct: None,
            m: 10,
            runs: [3, 3],
            paired: false,
            busy_runs: [0, 0],
            interfered_runs: [0, 0],
            level: Level::Runs,
            test: detect.map(|detect_pct| Test {
                ratio: 1.0 + change / 100.0,
                interval: (1.0, 1.0),
                df: 4.0,
                p: 0.5,
                q: 0.5,
                detect_pct,
                runs_needed: None,
                borrowed_df: 0.0,
            }),
            modes: None,
            verdict,
            busy: [None, None],
        }
    }

    fn comparison_of(rows: Vec<Row>) -> Comparison {
        Comparison {
            tested: rows.len(),
            rows,
            drift: Drift::default(),
            memory: Drift::default(),
            shared: Drift::default(),
            private_cache: None,
            clock: None,
            sittings: None,
            threshold_pct: 5.0,
        }
    }

    fn comparison(verdicts: &[(Verdict, f64)]) -> Comparison {
        comparison_of(
            verdicts
                .iter()
                .map(|&(v, change)| row("lat_syscall/null", v, change, None))
                .collect(),
        )
    }

    #[test]
    fn exit_codes_follow_git_bisect() {
        use Verdict::*;
        let none = BTreeMap::new();
        let code = |v: &[(Verdict, f64)]| outcome(&comparison(v), &none).code();
        assert_eq!(code(&[(Unchanged, 0.1), (Faster, -9.0)]), 0);
        // A small slowdown is not a regression at the threshold.
        assert_eq!(code(&[(Small, 2.0), (Unchanged, 0.0)]), 0);
        assert_eq!(code(&[(Slower, 7.0), (CannotTell, 0.0)]), 1);
        assert_eq!(code(&[(Unchanged, 0.0), (CannotTell, 3.0)]), 125);
        assert_eq!(code(&[(Busy, 0.0)]), 125);
    }

    #[test]
    fn an_unpinned_column_is_answered_by_a_decided_pinned_twin() {
        use Verdict::*;
        let (own, twin) = ("lat_pipe/pipe", "lat_pipe/pipe_pinned");
        let twins = BTreeMap::from([(own.to_string(), twin.to_string())]);
        let with = |own_row: Row, twin_row: Row| {
            outcome(&comparison_of(vec![own_row, twin_row]), &twins).code()
        };
        // The twin unchanged and able to find 5%: nothing regressed.
        assert_eq!(
            with(
                row(own, CannotTell, 9.0, Some(40.0)),
                row(twin, Unchanged, 0.5, Some(2.0))
            ),
            0
        );
        // The twin slower: that path regressed.
        assert_eq!(
            with(
                row(own, CannotTell, 9.0, Some(40.0)),
                row(twin, Slower, 8.0, Some(2.0))
            ),
            1
        );
        // A twin that cannot find 5% itself answers nothing.
        assert_eq!(
            with(
                row(own, CannotTell, 9.0, Some(40.0)),
                row(twin, Unchanged, 0.5, Some(7.0))
            ),
            125
        );
        // Nor does an undecided twin, nor any twin for a busy row.
        assert_eq!(
            with(
                row(own, CannotTell, 9.0, Some(40.0)),
                row(twin, CannotTell, 1.0, Some(9.0))
            ),
            125
        );
        assert_eq!(
            with(
                row(own, Busy, 9.0, None),
                row(twin, Unchanged, 0.5, Some(2.0))
            ),
            125
        );
        // Without the twin in the comparison (a filter left it out): cannot tell.
        let alone = comparison_of(vec![row(own, CannotTell, 9.0, Some(40.0))]);
        assert_eq!(outcome(&alone, &twins), Outcome::CannotTell);
    }
}
