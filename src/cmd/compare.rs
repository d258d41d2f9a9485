//! `lmbench compare OLD NEW`: first the machine facts that differ (what
//! may explain a change) and whether the machine itself changed (the
//! CPU-only metrics), then per metric the old and new figures, the change
//! with its 95% interval, the adjusted p-value, the smallest change the
//! data could detect, the statistic compared and a verdict. The method is
//! `lmbench::verdict`'s and the report's model `lmbench::report::compare`'s
//! (`lmbench::report::imported`'s for a run without samples); this file
//! parses the options, runs the command and hands the model to `format`.

use crate::exit::Outcome;
use anyhow::{bail, Result};

use crate::format::{self, Format};
use crate::store;
use crate::verdict::sittings::Sittings;
use crate::verdict::{self, Comparison};

use lmbench::flags::{BusyShare, MetricFilter, Percent, RunSpec};
use lmbench::report;

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// The earlier run: `latest`, MACHINE/LABEL, a label or a directory.
    pub old: RunSpec,
    /// The later run, as OLD.
    pub new: RunSpec,
    /// The change that matters, percent: calls of a smaller change are
    /// "small", and "unchanged" means a change this large would have been
    /// seen and the interval lies within it.
    #[arg(long, default_value = "5", value_name = "PCT")]
    pub threshold: Percent,
    /// Only metrics whose id matches this regular expression.
    #[arg(long)]
    pub filter: Option<MetricFilter>,
    /// Exit with code 1 if a metric is called slower by PCT or more.
    #[arg(long, value_name = "PCT")]
    pub fail_on_regression: Option<Percent>,
    /// Give no verdict on metrics measured while other work used at
    /// least PCT% of a CPU (either run).
    #[arg(long, value_name = "PCT", default_value_t = BusyShare::DEFAULT)]
    pub busy_threshold: BusyShare,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// An A/A pair of this machine (two sittings of one build, nothing
    /// changed between them), as OLD: how far each program's metrics moved
    /// between them beyond their runs' spread is added to every test, so
    /// a move of the host between sittings is not called a change. Repeat
    /// it for more pairs: their moves are estimated together.
    #[arg(long, num_args = 2, value_names = ["A", "B"], action = clap::ArgAction::Append)]
    pub aa: Option<Vec<RunSpec>>,
}

/// `lmbench compare`.
pub fn run(opts: Args) -> Result<Outcome> {
    let busy_cpus = opts.busy_threshold.cpus();
    let threshold = opts.threshold.get();
    let filter = opts.filter.as_ref().map(MetricFilter::regex);
    let old = store::resolve(opts.old.as_str())?;
    let new = store::resolve(opts.new.as_str())?;
    if old.imported.is_some() || new.imported.is_some() {
        print!(
            "{}",
            format::render(&report::imported::report(&old, &new)?, opts.format)?
        );
        return Ok(Outcome::Done);
    }
    let sittings = match opts.aa.as_deref() {
        Some(runs) if !runs.is_empty() => {
            let pairs: Vec<(&str, &str)> = runs
                .chunks_exact(2)
                .map(|p| (p[0].as_str(), p[1].as_str()))
                .collect();
            Some(sittings_of(&pairs, threshold, busy_cpus)?)
        }
        _ => None,
    };
    let c = verdict::compare(
        &old,
        &new,
        &verdict::Options {
            threshold_pct: threshold,
            busy_cpus,
            filter,
            sittings: sittings.as_ref(),
        },
    );
    if c.rows.is_empty() {
        bail!(
            "{} and {} have no metric in common{} ({} and {} metrics)",
            opts.old,
            opts.new,
            if filter.is_some() {
                " matching --filter"
            } else {
                ""
            },
            old.metrics.len(),
            new.metrics.len()
        );
    }
    let model = report::compare::report(&old, &new, &c, busy_cpus);
    print!("{}", format::render(&model, opts.format)?);
    if let Some(limit) = opts.fail_on_regression {
        let limit = limit.get();
        let bad = report::compare::regressions(&c, limit);
        if !bad.is_empty() {
            eprintln!(
                "lmbench: {} regression(s) of {limit}% or more: {}",
                bad.len(),
                bad.join(", ")
            );
            return Ok(Outcome::Regression);
        }
    }
    Ok(Outcome::Done)
}

/// The moves between sittings that the A/A pairs show, pooled.
pub fn sittings_of(pairs: &[(&str, &str)], threshold: f64, busy_cpus: f64) -> Result<Sittings> {
    let mut comparisons = Vec::new();
    let mut private_cache = None;
    for &(a, b) in pairs {
        let (ra, rb) = (store::resolve(a)?, store::resolve(b)?);
        if ra.imported.is_some() || rb.imported.is_some() {
            bail!("--aa {a} {b}: an A/A pair needs samples; an imported run has none");
        }
        let c = verdict::compare(
            &ra,
            &rb,
            &verdict::Options {
                busy_cpus,
                ..verdict::Options::at(threshold)
            },
        );
        if c.rows.is_empty() {
            bail!("--aa {a} {b}: the two runs have no metric in common");
        }
        private_cache = private_cache
            .or_else(|| verdict::private_cache(&ra))
            .or_else(|| verdict::private_cache(&rb));
        comparisons.push((c, [ra.host(), rb.host()]));
    }
    let pairs: Vec<(&Comparison, [String; 2])> =
        comparisons.iter().map(|(c, p)| (c, p.clone())).collect();
    Ok(Sittings::from_aa(&pairs, private_cache))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{MetricStats, Origin, Run};
    use lmbench::report::compare::render;
    use lmbench_support::catalog::{lat_pipe, lat_unix, Metric};
    use lmbench_support::machine::Facts;

    /// One run a level: ten samples each, a tenth of a percent apart.
    fn stats(levels: &[f64]) -> MetricStats {
        let runs: Vec<MetricStats> = levels
            .iter()
            .map(|&level| {
                let mut s = MetricStats::single(level);
                s.iters = (1..=10).map(|i| 100.0 * i as f64).collect();
                s.times_ns = (s.iters.iter().enumerate())
                    .map(|(j, n)| level * n * (1.0 + 0.001 * j as f64))
                    .collect();
                s
            })
            .collect();
        MetricStats::pool(&runs).expect("runs")
    }

    fn run(metrics: &[(&Metric, &[f64])]) -> Run {
        Run {
            machine: Facts::default(),
            metrics: (metrics.iter())
                .map(|(m, levels)| (m.id.to_string(), stats(levels)))
                .collect(),
            origin: Origin::Live,
            meta: crate::store::current_meta(8),
            imported: None,
        }
    }

    #[test]
    fn an_unpinned_round_trip_its_own_runs_cannot_settle_is_answered_by_its_pinned_twin() {
        // The unpinned figures spread 30% run to run (placement); the
        // pinned pipe repeats to a tenth of a percent, the pinned AF_UNIX
        // spreads as its unpinned figure does.
        let lottery: &[f64] = &[10e3, 14e3, 11.5e3, 13e3, 10.5e3, 12.5e3, 11e3, 13.5e3];
        let steady: &[f64] = &[5e3, 5.01e3, 4.99e3, 5.02e3, 5e3, 4.98e3, 5.01e3, 5e3];
        let side = run(&[
            (&lat_pipe::PIPE, lottery),
            (&lat_pipe::PINNED, steady),
            (&lat_unix::STREAM, lottery),
            (&lat_unix::PINNED, lottery),
        ]);
        let opts = verdict::Options {
            threshold_pct: 5.0,
            busy_cpus: lmbench_support::activity::BUSY_CPUS,
            filter: None,
            sittings: None,
        };
        let c = verdict::compare(&side, &side, &opts);
        let text = render(&side, &side, &c, opts.busy_cpus);
        assert!(
            text.contains(
                "2 metrics behind them here, 0 (0%) can detect a 5% change; 1 (50%) with \
                 the pinned twins of 1 unpinned figures (below)"
            ),
            "{text}"
        );
        let settled = text
            .lines()
            .find(|l| l.trim_start().starts_with("lat_pipe/pipe ±"))
            .unwrap_or_else(|| panic!("no twin line in {text}"));
        assert!(
            settled.contains(": lat_pipe/pinned unchanged +0.0% [") && settled.contains("detect ±"),
            "{settled}"
        );
        // AF_UNIX's twin cannot settle it either: it stays short, on its
        // own figure.
        assert!(text.contains("    lat_unix: stream ±"), "{text}");
        assert!(!text.contains("    lat_pipe: pipe ±"), "{text}");
        let model = report::compare::report(&side, &side, &c, opts.busy_cpus);
        let json = format::render(&model, Format::Json).expect("json");
        let json: serde_json::Value = serde_json::from_str(&json).expect("parse");
        assert_eq!(json["pinned_twins"]["lat_pipe/pipe"], "lat_pipe/pinned");
    }
}
