//! `lmbench run --paired`: each metric that has a floor run right before
//! its floor, and each round's ratios.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use lmbench_support::catalog::floors::FLOORS;
use lmbench_support::catalog::{Metric, Program, PROGRAMS};

use crate::results::MetricStats;

/// `--paired`: each floor whose metric matches `filter`, as two steps (the
/// metric's program on exactly that metric, then the floor program on
/// exactly its floor); the programs those steps run; and one filter that
/// matches every id of the plan (which results are this run's).
#[allow(clippy::type_complexity)]
pub(super) fn plan(
    filter: Option<&str>,
) -> Result<(
    Vec<(&'static Program, Option<String>)>,
    Vec<&'static Program>,
    Option<String>,
)> {
    let re = filter
        .map(|f| crate::filter::metric_regex(f, "FILTER"))
        .transpose()?;
    // The program that registers the metric: the bench that measures it.
    let program = |m: &Metric| -> Result<&'static Program> {
        PROGRAMS
            .iter()
            .copied()
            .find(|p| p.metrics.iter().any(|x| std::ptr::eq(*x, m)))
            .with_context(|| format!("{}: no program registers it", m.id))
    };
    let exact = |id: &str| format!("^{}$", regex::escape(id));
    let mut steps = Vec::new();
    let mut ids = Vec::new();
    for f in FLOORS {
        if re.as_ref().is_some_and(|re| !re.is_match(f.metric.id)) {
            continue;
        }
        for m in [f.metric, f.floor] {
            steps.push((program(m)?, Some(exact(m.id))));
            ids.push(regex::escape(m.id));
        }
    }
    if steps.is_empty() {
        bail!(
            "--paired: no metric that has a floor matches FILTER {:?}; \
             `lmbench summary --floors` on any run lists them",
            filter.unwrap_or_default()
        );
    }
    let mut programs: Vec<&'static Program> = Vec::new();
    for (p, _) in &steps {
        if !programs.iter().any(|q| std::ptr::eq(*q, *p)) {
            programs.push(p);
        }
    }
    Ok((steps, programs, Some(format!("^({})$", ids.join("|")))))
}

/// `--paired`: each floor's ratio (figure / floor) in every round, and
/// their median: the paired figure a drifting host cannot fake.
pub(super) fn rounds(reps: &[BTreeMap<String, MetricStats>]) -> String {
    let value = |rep: &BTreeMap<String, MetricStats>, m: &Metric| {
        rep.get(m.id).map(|s| s.headline_ns(m.headline))
    };
    let mut out = format!(
        "Paired ratios (figure / floor) per round, {} round(s):\n",
        reps.len()
    );
    for f in FLOORS {
        let ratios: Vec<f64> = reps
            .iter()
            .filter_map(|rep| Some(value(rep, f.metric)? / value(rep, f.floor)?))
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

    #[test]
    fn a_paired_plan_runs_each_metric_exactly_then_its_floor() {
        let (steps, programs, filter) = plan(None).unwrap();
        assert_eq!(steps.len(), 2 * FLOORS.len());
        let all = Regex::new(filter.as_deref().unwrap()).unwrap();
        for (pair, f) in steps.chunks(2).zip(FLOORS) {
            for ((p, step), m) in pair.iter().zip([f.metric, f.floor]) {
                assert_eq!(p.name, m.program(), "{}", m.id);
                let re = Regex::new(step.as_deref().unwrap()).unwrap();
                let hits: Vec<_> = p.metrics.iter().filter(|x| re.is_match(x.id)).collect();
                assert_eq!(
                    hits.len(),
                    1,
                    "{}: its step's filter matches {hits:?}",
                    m.id
                );
                assert!(std::ptr::eq(*hits[0], m));
                assert!(all.is_match(m.id));
                assert!(programs.iter().any(|q| q.name == p.name));
            }
        }
        // The plan's filter takes this run's results only: no other metric.
        let others = PROGRAMS
            .iter()
            .flat_map(|p| p.metrics.iter())
            .filter(|m| all.is_match(m.id))
            .count();
        assert_eq!(others, 2 * FLOORS.len());
    }

    #[test]
    fn a_paired_filter_narrows_the_floors_and_one_matching_none_is_an_error() {
        let (steps, _, _) = plan(Some("lat_syscall/(null|read)$")).unwrap();
        let ids: Vec<_> = steps.iter().map(|(_, f)| f.clone().unwrap()).collect();
        assert_eq!(
            ids,
            [
                "^lat_syscall/null$",
                "^floor/null$",
                "^lat_syscall/read$",
                "^floor/read$"
            ]
        );
        let e = plan(Some("lat_mem_rd")).unwrap_err().to_string();
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
