//! What `lmbench run` runs, step by step, and `--paired`'s per-round
//! ratios.
//!
//! A step is one `cargo bench` of one program with a filter. A metric that
//! has a floor is always its own step, followed at once by its floor's
//! (with each floor minutes after its metric, a host whose speed drifts
//! in minutes gave open/close 0.87-1.18 of its floor in the fastest
//! samples, against 0.98-1.01 paired). The other metrics of a program run
//! together, in one step.

use std::collections::BTreeMap;

use crate::run::MetricStats;
use anyhow::{bail, Context, Result};
use lmbench_support::catalog::floor_pairs::{floor_of, FLOORS};
use lmbench_support::catalog::{floor, Metric, Program, PROGRAMS};

/// One `cargo bench`: a program and the filter its bench gets (none: all
/// of its metrics).
#[derive(Debug)]
pub(super) struct Step {
    pub program: &'static Program,
    pub filter: Option<String>,
    /// How many of the program's metrics the step runs (for progress).
    pub metrics: usize,
}

/// The steps of a run, the programs they run, and the filter that picks
/// this run's results among every program's.
#[derive(Debug)]
pub(super) struct Plan {
    pub steps: Vec<Step>,
    pub programs: Vec<&'static Program>,
    pub results: Option<String>,
}

/// The metrics a step runs: its program's that its filter matches (all
/// without one).
pub(super) fn step_metrics(step: &Step) -> Vec<&'static Metric> {
    let re = step
        .filter
        .as_deref()
        .and_then(|f| regex::Regex::new(f).ok());
    step.program
        .metrics
        .iter()
        .copied()
        .filter(|m| re.as_ref().is_none_or(|re| re.is_match(m.id)))
        .collect()
}

/// A filter matching exactly these ids.
fn exact(ids: &[&Metric]) -> String {
    let ids: Vec<String> = ids.iter().map(|m| regex::escape(m.id)).collect();
    match ids.as_slice() {
        [one] => format!("^{one}$"),
        _ => format!("^({})$", ids.join("|")),
    }
}

/// The program that registers `m`: the bench that measures it.
fn program_of(m: &Metric) -> Result<&'static Program> {
    PROGRAMS
        .iter()
        .copied()
        .find(|p| p.metrics.iter().any(|x| std::ptr::eq(*x, m)))
        .with_context(|| format!("{}: no program registers it", m.id))
}

/// The plan for `filter` (a regular expression over metric ids). Every
/// program in catalog order; within one, its metrics without a floor in
/// one step, then each metric that has one, each followed by its floor.
/// Floors whose metric is not run (a FILTER naming floors) run in the
/// floor program's place. `paired_only` (`--paired`): only the metrics
/// that have a floor, and their floors.
pub(super) fn plan(filter: Option<&str>, paired_only: bool) -> Result<Plan> {
    let re = filter
        .map(|f| crate::filter::metric_regex(f, "FILTER"))
        .transpose()?;
    let chosen = |m: &Metric| re.as_ref().is_none_or(|re| re.is_match(m.id));
    // The floors run right after their metric.
    let paired: Vec<&Metric> = FLOORS
        .iter()
        .filter(|f| chosen(f.metric))
        .map(|f| f.floor)
        .collect();
    let mut steps = Vec::new();
    let mut ids: Vec<&Metric> = Vec::new();
    for &p in PROGRAMS {
        let is_floor = std::ptr::eq(p, &floor::PROGRAM);
        let picked: Vec<&'static Metric> = p
            .metrics
            .iter()
            .copied()
            .filter(|m| chosen(m))
            .filter(|m| !is_floor || !paired.iter().any(|f| std::ptr::eq(*f, *m)))
            .collect();
        let (floored, plain): (Vec<_>, Vec<_>) =
            picked.into_iter().partition(|m| floor_of(m).is_some());
        if !plain.is_empty() && !paired_only {
            // A program with no floor keeps the user's filter as given
            // (none: the whole program), as before floors were paired.
            let filter = if floored.is_empty() && !is_floor {
                filter.map(str::to_string)
            } else {
                Some(exact(&plain))
            };
            let metrics = plain.len();
            steps.push(Step {
                program: p,
                filter,
                metrics,
            });
            ids.extend(plain);
        }
        for m in floored {
            let fl = floor_of(m).expect("partitioned on it");
            for x in [m, fl] {
                let program = program_of(x)?;
                steps.push(Step {
                    program,
                    filter: Some(exact(&[x])),
                    metrics: 1,
                });
                ids.push(x);
            }
        }
    }
    if steps.is_empty() {
        if paired_only {
            bail!(
                "--paired: no metric that has a floor matches FILTER {:?}; \
                 `lmbench summary --floors` on any run lists them",
                filter.unwrap_or_default()
            );
        }
        bail!(
            "FILTER {:?} matches no metric; `lmbench list` shows them all",
            filter.unwrap_or_default()
        );
    }
    let mut programs: Vec<&'static Program> = Vec::new();
    for s in &steps {
        if !programs.iter().any(|q| std::ptr::eq(*q, s.program)) {
            programs.push(s.program);
        }
    }
    // This run's results: the user's filter (none: all) for a run,
    // exactly the plan's ids for --paired.
    let results = if paired_only {
        Some(exact(&ids))
    } else {
        filter.map(str::to_string)
    };
    Ok(Plan {
        steps,
        programs,
        results,
    })
}

/// `--paired`: each floor's ratio (figure / floor) in every round, and
/// their median: the paired figure a drifting host cannot fake.
pub(super) fn rounds(rounds: &[BTreeMap<String, MetricStats>]) -> String {
    let value = |round: &BTreeMap<String, MetricStats>, m: &Metric| {
        round.get(m.id).map(|s| s.headline_ns(m.headline))
    };
    let mut out = format!(
        "Paired ratios (figure / floor) per round, {} round(s):\n",
        rounds.len()
    );
    for f in FLOORS {
        let ratios: Vec<f64> = rounds
            .iter()
            .filter_map(|round| Some(value(round, f.metric)? / value(round, f.floor)?))
            .collect();
        if ratios.is_empty() {
            continue;
        }
        let each: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
        let median = crate::stats::median(&ratios);
        out += &format!(
            "  {:<22} median {median:.2}  rounds {}\n",
            f.metric.id,
            each.join(" ")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    fn run_by(step: &Step) -> Vec<&'static Metric> {
        step_metrics(step)
    }

    /// Asserts the floors of `steps` follow their metrics: a step of a
    /// metric that has a floor runs that metric alone, and the next step
    /// runs exactly its floor.
    fn assert_pairs(steps: &[Step]) -> usize {
        let mut pairs = 0;
        for (i, s) in steps.iter().enumerate() {
            let ms = run_by(s);
            assert_eq!(s.metrics, ms.len(), "{s:?}");
            let Some(fl) = ms.iter().find_map(|m| floor_of(m)) else {
                continue;
            };
            assert_eq!(ms.len(), 1, "a floored metric shares its step: {s:?}");
            let next = run_by(&steps[i + 1]);
            assert!(
                next.len() == 1 && std::ptr::eq(next[0], fl),
                "{}: next step {next:?}",
                ms[0].id
            );
            pairs += 1;
        }
        pairs
    }

    #[test]
    fn a_run_measures_every_metric_once_each_floor_right_after_its_metric() {
        let plan = plan(None, false).unwrap();
        assert_eq!(plan.results, None);
        let mut seen: Vec<&Metric> = plan.steps.iter().flat_map(run_by).collect();
        let all: Vec<&Metric> = PROGRAMS
            .iter()
            .flat_map(|p| p.metrics.iter().copied())
            .collect();
        assert_eq!(seen.len(), all.len(), "a metric runs twice or never");
        seen.retain(|m| all.iter().any(|a| std::ptr::eq(*a, *m)));
        assert_eq!(seen.len(), all.len());
        assert_eq!(assert_pairs(&plan.steps), FLOORS.len());
        // A program without floors is one step with no filter, as before.
        let mem = plan
            .steps
            .iter()
            .find(|s| s.program.name == "bw_mem")
            .unwrap();
        assert_eq!(mem.filter, None);
        // Programs in catalog order (the floor program's steps go with
        // their metrics').
        let order: Vec<usize> = plan
            .programs
            .iter()
            .filter(|p| !std::ptr::eq(**p, &floor::PROGRAM))
            .map(|p| PROGRAMS.iter().position(|q| std::ptr::eq(*p, *q)).unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    }

    #[test]
    fn a_filter_keeps_the_pairs_and_runs_a_floor_it_names_alone() {
        let ids = |plan: &Plan| -> Vec<String> {
            plan.steps
                .iter()
                .map(|s| s.filter.clone().unwrap_or_default())
                .collect()
        };
        let p = plan(Some("^lat_syscall/(null|read)$|^floor/exec$"), false).unwrap();
        assert_eq!(
            ids(&p),
            [
                "^lat_syscall/null$",
                "^floor/null$",
                "^lat_syscall/read$",
                "^floor/read$",
                "^floor/exec$"
            ]
        );
        // A program with no floor keeps the user's filter.
        let p = plan(Some("tlb|bw_mem/.*rd"), false).unwrap();
        assert_eq!(ids(&p), ["tlb|bw_mem/.*rd", "tlb|bw_mem/.*rd"]);
        assert_eq!(p.results.as_deref(), Some("tlb|bw_mem/.*rd"));
        let e = plan(Some("^nothing$"), false).unwrap_err().to_string();
        assert!(e.contains("matches no metric"), "{e}");
    }

    #[test]
    fn a_paired_plan_runs_only_the_floored_metrics_each_then_its_floor() {
        let plan = plan(None, true).unwrap();
        assert_eq!(plan.steps.len(), 2 * FLOORS.len());
        assert_eq!(assert_pairs(&plan.steps), FLOORS.len());
        // The results filter takes this run's results only: no other metric.
        let all = Regex::new(plan.results.as_deref().unwrap()).unwrap();
        let hits = PROGRAMS
            .iter()
            .flat_map(|p| p.metrics.iter())
            .filter(|m| all.is_match(m.id))
            .count();
        assert_eq!(hits, 2 * FLOORS.len());
    }

    #[test]
    fn a_paired_filter_narrows_the_floors_and_one_matching_none_is_an_error() {
        let p = plan(Some("lat_syscall/(null|read)$"), true).unwrap();
        let ids: Vec<_> = p.steps.iter().map(|s| s.filter.clone().unwrap()).collect();
        assert_eq!(
            ids,
            [
                "^lat_syscall/null$",
                "^floor/null$",
                "^lat_syscall/read$",
                "^floor/read$"
            ]
        );
        let e = plan(Some("bw_mem"), true).unwrap_err().to_string();
        assert!(e.contains("no metric that has a floor"), "{e}");
    }

    #[test]
    fn paired_rounds_print_each_rounds_ratio_and_their_median() {
        let round = |a: f64, b: f64| {
            BTreeMap::from([
                ("lat_syscall/null".to_string(), MetricStats::single(a)),
                ("floor/null".to_string(), MetricStats::single(b)),
            ])
        };
        let out = rounds(&[round(110.0, 100.0), round(90.0, 100.0), round(200.0, 100.0)]);
        assert!(
            out.contains("lat_syscall/null       median 1.10  rounds 1.10 0.90 2.00"),
            "{out}"
        );
        assert!(!out.contains("lat_syscall/read"), "{out}");
    }
}
