//! `lmbench check BASELINE [FILTER]`: did anything regress since the
//! baseline? Measures FILTER's metrics now (quick sampling, rounds until
//! each is decided or `--budget` is spent, as `run --budget --against`),
//! compares them with the baseline, prints the comparison and exits:
//!
//! - 0: nothing regressed: every metric is unchanged, faster, or slower by
//!   less than the threshold;
//! - 1: a regression: a metric called slower by at least the threshold;
//! - 125: cannot tell: a metric stayed undecided, or was measured only on
//!   a busy machine (`git bisect run` skips such a commit);
//! - 2: an error (a bad baseline, a failed bench).
//!
//! With `--new RUN` it checks a saved run instead of measuring.

use anyhow::{bail, Result};

use super::run;
use crate::verdict::{Comparison, Verdict};

/// "Cannot tell" for `git bisect run`: skip this commit.
pub const EXIT_CANNOT_TELL: i32 = 125;

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// The baseline: MACHINE/LABEL, a label or a run directory.
    pub baseline: String,
    /// Only metrics whose id matches this regular expression (default:
    /// every metric the baseline has).
    pub filter: Option<String>,
    /// The slowdown that counts as a regression, percent.
    #[arg(long, default_value_t = 5.0, value_name = "PCT")]
    pub threshold: f64,
    /// How long to measure (90s, 15m): rounds until every metric is
    /// decided or this is spent.
    #[arg(long, default_value = "3m", value_name = "DURATION")]
    pub budget: String,
    /// The default sampling instead of the quick preset.
    #[arg(long)]
    pub full: bool,
    /// Give no verdict on metrics measured while other work used at
    /// least PCT% of a CPU (either run): they make the check "cannot tell".
    #[arg(long, value_name = "PCT", default_value_t = super::BUSY_PCT)]
    pub busy_threshold: f64,
    /// Check this saved run instead of measuring.
    #[arg(long, value_name = "RUN")]
    pub new: Option<String>,
}

/// What the comparison says, as `check`'s exit code.
pub fn outcome(c: &Comparison) -> i32 {
    let t = c.threshold_pct;
    if c.rows
        .iter()
        .any(|r| r.verdict == Verdict::Slower && r.time_change_pct >= t)
    {
        super::EXIT_REGRESSION
    } else if c.rows.iter().any(|r| {
        matches!(
            r.verdict,
            Verdict::CannotTell | Verdict::Untested | Verdict::Busy
        )
    }) {
        EXIT_CANNOT_TELL
    } else {
        0
    }
}

pub fn run(opts: Args) -> Result<()> {
    if !(opts.threshold.is_finite() && opts.threshold > 0.0) {
        bail!("--threshold must be a percentage > 0");
    }
    let filter = opts
        .filter
        .as_deref()
        .map(|f| crate::filter::metric_regex(f, "FILTER"))
        .transpose()?;
    let (new, old) = match &opts.new {
        Some(spec) => (
            crate::store::resolve(spec)?,
            crate::store::resolve(&opts.baseline)?,
        ),
        None => {
            let measured = run::measure(&run::Args {
                quick: !opts.full,
                wait_idle: None,
                filter: opts.filter.clone(),
                runs: 1,
                budget: Some(opts.budget.clone()),
                against: Some(opts.baseline.clone()),
                threshold: opts.threshold,
                save: None,
                machine: None,
                force: false,
                paired: false,
                keep_going: false,
            })?;
            let old = measured.against.expect("measure resolves --against");
            (measured.run, old)
        }
    };
    let busy = opts.busy_threshold / 100.0;
    if !(busy.is_finite() && busy > 0.0) {
        bail!("--busy-threshold must be a percentage of a CPU > 0");
    }
    let c = super::compare::comparison(&old, &new, opts.threshold, busy, filter.as_ref(), None);
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
    let code = outcome(&c);
    let what = match code {
        0 => "no regression".to_string(),
        1 => format!(
            "regression: {}",
            super::compare::regressions(&c, opts.threshold).join(", ")
        ),
        _ => format!(
            "cannot tell: {} undecided, {} busy",
            c.count(Verdict::CannotTell) + c.count(Verdict::Untested),
            c.count(Verdict::Busy)
        ),
    };
    eprintln!("lmbench check: {what} (exit {code})");
    std::process::exit(code);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::{Comparison, Drift, Level, Row, Verdict};

    fn comparison(verdicts: &[(Verdict, f64)]) -> Comparison {
        Comparison {
            rows: verdicts
                .iter()
                .map(|&(verdict, change)| Row {
                    id: "lat_syscall/null".into(),
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
                    busy_runs: [0, 0],
                    interfered_runs: [0, 0],
                    level: Level::Runs,
                    test: None,
                    modes: None,
                    verdict,
                    busy: [None, None],
                })
                .collect(),
            drift: Drift::default(),
            memory: Drift::default(),
            shared: Drift::default(),
            private_cache: None,
            clock: None,
            tested: verdicts.len(),
            sittings: None,
            threshold_pct: 5.0,
        }
    }

    #[test]
    fn exit_codes_follow_git_bisect() {
        use Verdict::*;
        assert_eq!(outcome(&comparison(&[(Unchanged, 0.1), (Faster, -9.0)])), 0);
        // A small slowdown is not a regression at the threshold.
        assert_eq!(outcome(&comparison(&[(Small, 2.0), (Unchanged, 0.0)])), 0);
        assert_eq!(outcome(&comparison(&[(Slower, 7.0), (CannotTell, 0.0)])), 1);
        assert_eq!(
            outcome(&comparison(&[(Unchanged, 0.0), (CannotTell, 3.0)])),
            125
        );
        assert_eq!(outcome(&comparison(&[(Busy, 0.0)])), 125);
    }
}
