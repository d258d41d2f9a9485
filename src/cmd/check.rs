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

use anyhow::{bail, Result};

use crate::verdict::{Answer, Comparison, Verdict};
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

/// What the comparison answers, as `check`'s exit code.
pub fn outcome(c: &Comparison) -> Outcome {
    match c.answer() {
        Answer::NoRegression => Outcome::Done,
        Answer::Regression => Outcome::Regression,
        Answer::CannotTell => Outcome::CannotTell,
    }
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
    let c = crate::verdict::compare(
        &old,
        &new,
        &crate::verdict::Options {
            busy_cpus: busy,
            filter,
            ..crate::verdict::Options::at(threshold)
        },
    );
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
    print!("{}", crate::report::compare::render(&old, &new, &c, busy));
    let found = outcome(&c);
    let by_twins = c
        .rows
        .iter()
        .filter(|r| !r.verdict.decided() && c.settling_twin(r).is_some())
        .count();
    let what = match found {
        Outcome::Done => "no regression".to_string(),
        Outcome::Regression => format!(
            "regression: {}",
            crate::report::compare::regressions(&c, threshold).join(", ")
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
