//! From two runs to rows: each metric both have, its sides and raw test
//! (`pending`), the priors its variance is moderated with (`Priors`),
//! and its row, figures in its unit and the moderated test (`row`).

use std::collections::BTreeMap;

use lmbench_support::activity::Activity;
use lmbench_support::catalog::{Metric, Unit};

use super::raw::{self, raw_test, Raw};
use super::sides::{sides, Sides};
use super::{moderate, Level, Options, Row, Verdict};
use crate::run::Run;

/// A metric on its way to a row: both sides' runs and its raw test.
pub(super) struct Pending {
    id: String,
    metric: Option<&'static Metric>,
    sides: Sides,
    raw: Option<Raw>,
    busy: [Option<Activity>; 2],
    bytes: Option<f64>,
    /// The change in time, for a metric compared per cycle: the machine's
    /// own drift is judged in time.
    in_time: Option<f64>,
}

/// Every metric both runs have that the filter matches, with its sides
/// and its raw test.
pub(super) fn pending(old: &Run, new: &Run, opts: &Options) -> Vec<Pending> {
    let paired = same_sitting(old, new);
    let mut out = Vec::new();
    for (id, o) in &old.metrics {
        let Some(n) = new.metrics.get(id) else {
            continue;
        };
        if opts.filter.is_some_and(|re| !re.is_match(id)) {
            continue;
        }
        let s = sides(id, o, n, opts.busy_cpus, true);
        let raw = raw_test(&s, paired);
        let in_time = s.per_cycle.then(|| {
            let t = sides(id, o, n, opts.busy_cpus, false);
            gmean_change_pct(&t.old, &t.new)
        });
        out.push(Pending {
            id: id.clone(),
            metric: Metric::by_id(id),
            busy: s.busy.clone(),
            sides: s,
            raw,
            bytes: o.bytes_per_iter.or(n.bytes_per_iter).map(|b| b as f64),
            in_time,
        });
    }
    out
}

/// The program of a metric id.
fn program(id: &str) -> &str {
    id.split('/').next().unwrap_or(id)
}

/// The priors the run-to-run variances are moderated with: each
/// program's, fitted to its idle metrics' run-level tests (the whole
/// comparison's where a program has too few).
pub(super) struct Priors {
    pub(super) global: moderate::Prior,
    by_program: BTreeMap<String, moderate::Prior>,
}

impl Priors {
    pub(super) fn fit(pending: &[Pending]) -> Priors {
        let mut groups: BTreeMap<String, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
        let mut everyone = (Vec::new(), Vec::new());
        for p in pending
            .iter()
            .filter(|p| p.busy.iter().all(Option::is_none))
        {
            let Some(r) = p
                .raw
                .as_ref()
                .filter(|r| r.level == Level::Runs && r.d > 0.0)
            else {
                continue;
            };
            let g = groups.entry(program(&p.id).to_string()).or_default();
            g.0.push(r.s2);
            g.1.push(r.d);
            everyone.0.push(r.s2);
            everyone.1.push(r.d);
        }
        let global = moderate::fit(&everyone.0, &everyone.1);
        let by_program = groups
            .into_iter()
            .map(|(k, (s2, d))| {
                let prior = if s2.len() >= moderate::MIN_GROUP {
                    moderate::fit(&s2, &d)
                } else {
                    global
                };
                (k, prior)
            })
            .collect();
        Priors { global, by_program }
    }

    fn of(&self, id: &str) -> moderate::Prior {
        self.by_program
            .get(program(id))
            .copied()
            .unwrap_or(self.global)
    }
}

/// A metric's row: its figures in its unit, and its test moderated by its
/// program's prior; the verdict is left to [`calls::call`] (busy rows are
/// busy already).
pub(super) fn row(p: Pending, priors: &Priors, threshold: f64, opts: &Options) -> Row {
    let unit = p.metric.map_or(Unit::Nanos, |m| m.unit);
    let gmean = |x: &[f64]| (x.iter().map(|v| v.ln()).sum::<f64>() / x.len() as f64).exp();
    let (o_ns, n_ns) = if p.sides.old.is_empty() || p.sides.new.is_empty() {
        (f64::NAN, f64::NAN)
    } else {
        (gmean(&p.sides.old), gmean(&p.sides.new))
    };
    let shown = |ns: f64| unit.from_ns_per_iter(ns, p.bytes).unwrap_or(ns);
    let (old_v, new_v) = (shown(o_ns), shown(n_ns));
    let pct = |a: f64, b: f64| if a != 0.0 { (b - a) / a * 100.0 } else { 0.0 };
    // The host's move between sittings, where an A/A pair showed one:
    // more runs of one sitting do not shrink it.
    let tau2 = opts.sittings.map_or(0.0, |x| x.tau2(&p.id));
    let (level, test) = match &p.raw {
        Some(r) => {
            let (level, test) = raw::moderated(r, priors.of(&p.id), priors.global, threshold, tau2);
            (level, Some(test))
        }
        None => (Level::Runs, None),
    };
    Row {
        id: p.id,
        unit: unit.label(),
        old: old_v,
        new: new_v,
        change_pct: pct(old_v, new_v),
        time_change_pct: pct(o_ns, n_ns),
        estimator: p.sides.estimator,
        per_cycle: p.sides.per_cycle,
        in_time_change_pct: p.in_time,
        m: p.sides.m,
        runs: p.raw.as_ref().map_or([0, 0], |r| r.runs),
        paired: p.raw.as_ref().is_some_and(|r| r.paired),
        busy_runs: p.sides.busy_runs,
        interfered_runs: p.sides.interfered_runs,
        level,
        test,
        modes: p.sides.modes,
        verdict: if p.busy.iter().any(Option::is_some) {
            Verdict::Busy
        } else {
            Verdict::Untested
        },
        busy: p.busy,
    }
}

/// The change of the geometric mean of per-run statistics, percent.
fn gmean_change_pct(old: &[f64], new: &[f64]) -> f64 {
    if old.is_empty() || new.is_empty() {
        return f64::NAN;
    }
    let lm = |x: &[f64]| x.iter().map(|v| v.ln()).sum::<f64>() / x.len() as f64;
    100.0 * ((lm(new) - lm(old)).exp() - 1.0)
}

/// True when `old` and `new` are two sides of one interleaved sitting
/// (`lmbench kernels`): the same sitting, different sides, so their runs
/// pair up round by round.
fn same_sitting(old: &Run, new: &Run) -> bool {
    let fact = |r: &Run, k: &str| r.machine.get(k).map(str::to_string);
    fact(old, "sitting").is_some()
        && fact(old, "sitting") == fact(new, "sitting")
        && fact(old, "sitting_side") != fact(new, "sitting_side")
}
