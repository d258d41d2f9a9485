//! `lmbench compare OLD NEW [--threshold PCT] [--filter REGEX]
//! [--fail-on-regression PCT] [--busy-threshold PCT]`: first the machine
//! facts that differ (what may explain a change), then per metric the old
//! and new headline figures, the change, the p-value of Welch's t-test on
//! the raw per-sample nanoseconds per iteration, the smallest change the
//! data could detect, and a verdict:
//!
//! - *faster* / *slower*: the test rejects equal means (p < 0.05) and the
//!   change is at least the threshold (default 1%, Criterion's noise
//!   threshold);
//! - *within noise*: a significant change under the threshold, or none
//!   where the data could have seen one of the threshold's size;
//! - *cannot tell*: no significant change, but the data could not have
//!   seen one of the threshold's size either: a change up to the
//!   detectable size may hide there ("within noise" would read as
//!   "unchanged");
//! - metrics measured while other work used the machine (either side) get
//!   no verdict: they are listed apart, with what ran.
//!
//! The detectable change is the difference of means that Welch's test at
//! 95% confidence finds with 80% power, from the spread the test used, as a
//! share of the old mean.
//!
//! Which samples: when both runs pool two or more runs of the suite
//! (`--runs N`), the test compares the per-run means, so run-to-run noise
//! (load, frequency, layout) counts; otherwise it compares the samples of
//! one run each, which only know within-run noise and so call small shifts
//! between runs significant more often (the report says which it used).

use anyhow::{bail, Result};
use lmbench_support::catalog::{Metric, Unit};
use regex::Regex;

use lmbench_support::activity::Activity;

use crate::cells::busy_window;
use crate::results::Run;
use crate::stats::{self, Welch};
use crate::{store, table};

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    pub old: String,
    pub new: String,
    /// Smaller changes are within noise even if significant (percent).
    #[arg(long, default_value_t = 1.0)]
    pub threshold: f64,
    /// Only metrics whose id matches this regular expression.
    #[arg(long)]
    pub filter: Option<String>,
    /// Exit non-zero if a significant regression beyond PCT exists.
    #[arg(long, value_name = "PCT")]
    pub fail_on_regression: Option<f64>,
    /// Give no verdict on metrics measured while other work used at
    /// least PCT% of a CPU (either run).
    #[arg(long, value_name = "PCT", default_value_t = super::BUSY_PCT)]
    pub busy_threshold: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    Faster,
    Slower,
    Noise,
    /// No significant change, and none of the threshold's size could
    /// have been seen.
    CannotTell,
    /// A side has fewer than two samples: no variance, no test.
    Untested,
    /// Measured while other work used the machine: no verdict.
    Busy,
}

impl Verdict {
    fn text(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::Noise => "within noise",
            Verdict::CannotTell => "cannot tell",
            Verdict::Untested => "untested (<2 samples)",
            Verdict::Busy => "busy machine",
        }
    }
}

/// One metric's comparison.
pub struct Row {
    pub id: String,
    pub unit: &'static str,
    pub old: f64,
    pub new: f64,
    /// Change of the shown figure, percent.
    pub change_pct: f64,
    /// Change of the time per iteration (headline), percent: + is slower.
    pub time_change_pct: f64,
    pub test: Option<Welch>,
    /// True if the test compared per-run means (pooled runs on both sides).
    pub on_runs: bool,
    /// The smallest change of the mean the test could detect (95%
    /// confidence, 80% power), percent of the old mean.
    pub detectable_pct: Option<f64>,
    pub verdict: Verdict,
    /// The busiest window of each side, if it was busy.
    pub busy: [Option<Activity>; 2],
}

/// The facts that differ: (key, old, new); absent facts show as "(absent)".
pub fn fact_diff(old: &Run, new: &Run) -> Vec<(String, String, String)> {
    let keys: std::collections::BTreeSet<&String> =
        old.machine.0.keys().chain(new.machine.0.keys()).collect();
    let show = |r: &Run, k: &str| {
        r.machine
            .get(k)
            .map_or("(absent)".to_string(), |v| v.replace('\n', "; "))
    };
    keys.into_iter()
        .filter(|k| old.machine.get(k) != new.machine.get(k))
        .map(|k| (k.clone(), show(old, k), show(new, k)))
        .collect()
}

/// Compares every metric both runs have (and `filter` matches); metrics
/// measured while other work used at least `busy_cpus` CPUs get no verdict.
pub fn compare(
    old: &Run,
    new: &Run,
    threshold: f64,
    busy_cpus: f64,
    filter: Option<&Regex>,
) -> Vec<Row> {
    let mut rows = Vec::new();
    for (id, o) in &old.metrics {
        let Some(n) = new.metrics.get(id) else {
            continue;
        };
        if filter.is_some_and(|re| !re.is_match(id)) {
            continue;
        }
        let metric = Metric::by_id(id);
        let headline = metric.map_or(lmbench_support::catalog::Headline::Median, |m| m.headline);
        let unit = metric.map_or(Unit::Nanos, |m| m.unit);
        let (o_ns, n_ns) = (o.headline_ns(headline), n.headline_ns(headline));
        let shown = |ns: f64, s: &crate::results::MetricStats| {
            unit.from_ns_per_iter(ns, s.bytes_per_iter.map(|b| b as f64))
                .unwrap_or(ns)
        };
        let (old_v, new_v) = (shown(o_ns, o), shown(n_ns, n));
        let pct = |a: f64, b: f64| if a != 0.0 { (b - a) / a * 100.0 } else { 0.0 };
        let time_change_pct = pct(o_ns, n_ns);
        let (a, b, on_runs) = match (o.rep_means(), n.rep_means()) {
            (Some(a), Some(b)) => (a, b, true),
            _ => (o.per_iter_ns(), n.per_iter_ns(), false),
        };
        let test = stats::welch(&a, &b);
        let old_mean = stats::mean(&a);
        let detectable_pct = stats::min_detectable(&a, &b)
            .filter(|_| old_mean != 0.0)
            .map(|d| 100.0 * d / old_mean.abs());
        let busy = [
            busy_window(o, busy_cpus).cloned(),
            busy_window(n, busy_cpus).cloned(),
        ];
        let verdict = if busy.iter().any(Option::is_some) {
            Verdict::Busy
        } else {
            verdict(test, time_change_pct, detectable_pct, threshold)
        };
        rows.push(Row {
            id: id.clone(),
            unit: unit.label(),
            old: old_v,
            new: new_v,
            change_pct: pct(old_v, new_v),
            time_change_pct,
            test,
            on_runs,
            detectable_pct,
            verdict,
            busy,
        });
    }
    // Significant changes first, the largest on top; then the rest.
    rows.sort_by(|a, b| {
        let sig = |r: &Row| !matches!(r.verdict, Verdict::Faster | Verdict::Slower);
        sig(a)
            .cmp(&sig(b))
            .then(b.time_change_pct.abs().total_cmp(&a.time_change_pct.abs()))
            .then(a.id.cmp(&b.id))
    });
    rows
}

/// The verdict on one metric (see the module doc).
fn verdict(
    test: Option<Welch>,
    time_change_pct: f64,
    detectable_pct: Option<f64>,
    threshold: f64,
) -> Verdict {
    let Some(w) = test else {
        return Verdict::Untested;
    };
    if w.p < 0.05 {
        // The test's direction (means) decides; the headline must agree.
        if time_change_pct.abs() >= threshold {
            if w.t < 0.0 && time_change_pct < 0.0 {
                return Verdict::Faster;
            } else if w.t > 0.0 && time_change_pct > 0.0 {
                return Verdict::Slower;
            }
        }
        return Verdict::Noise;
    }
    match detectable_pct {
        Some(d) if d <= threshold => Verdict::Noise,
        _ => Verdict::CannotTell,
    }
}

/// The whole report as text.
pub fn render(old: &Run, new: &Run, rows: &[Row], threshold: f64, busy_cpus: f64) -> String {
    let busy_pct = 100.0 * busy_cpus;
    let mut out = String::new();
    let name = |r: &Run| {
        let commit = r.meta.commit.as_deref().unwrap_or("unknown");
        let pooled = match r.meta.runs_pooled {
            0 | 1 => String::new(),
            n => format!(", {n} runs pooled"),
        };
        format!(
            "{}  {}, lmbench-rs {} ({}){pooled}",
            r.host(),
            r.meta.date,
            r.meta.suite_version,
            &commit[..commit.len().min(12)]
        )
    };
    out.push_str(&format!("OLD {}\nNEW {}\n\n", name(old), name(new)));
    let diff = fact_diff(old, new);
    if diff.is_empty() {
        out.push_str("machine facts: no difference\n\n");
    } else {
        out.push_str("machine facts that differ:\n");
        let w = diff.iter().map(|d| d.0.len()).max().unwrap_or(0);
        for (k, o, n) in &diff {
            out.push_str(&format!("  {k:<w$}  {o}\n  {:<w$}  -> {n}\n", ""));
        }
        out.push('\n');
    }
    let idw = rows.iter().map(|r| r.id.len()).max().unwrap_or(6).max(6);
    let (judged, busy): (Vec<&Row>, Vec<&Row>) =
        rows.iter().partition(|r| r.verdict != Verdict::Busy);
    out.push_str(&format!(
        "{:<idw$} {:>5} {:>9} {:>9} {:>8}  {:>7}  {:>8}  verdict\n",
        "metric", "unit", "old", "new", "change", "p", "detect"
    ));
    for r in &judged {
        let p = r.test.map_or("-".to_string(), |w| format!("{:.3}", w.p));
        let detect = r
            .detectable_pct
            .map_or("-".to_string(), |d| format!("±{}%", table::fmt_num(d, 5)));
        out.push_str(&format!(
            "{}  {:>7}  {:>8}  {}\n",
            figures(r, idw),
            p,
            detect,
            r.verdict.text()
        ));
    }
    let count = |v: Verdict| rows.iter().filter(|r| r.verdict == v).count();
    let (noise, unsure) = (count(Verdict::Noise), count(Verdict::CannotTell));
    let extra = |n: usize, what: &str| match n {
        0 => String::new(),
        n => format!(", {n} {what}"),
    };
    out.push_str(&format!(
        "\n{} metrics: {} faster, {} slower, {noise} within noise, {unsure} cannot tell \
         ({:.0}% within noise or cannot tell){}{}. Welch's t-test at 95%, threshold \
         {threshold}%; \"detect\": the smallest change of the mean the data could \
         detect (95% confidence, 80% power).\n",
        rows.len(),
        count(Verdict::Faster),
        count(Verdict::Slower),
        100.0 * (noise + unsure) as f64 / judged.len().max(1) as f64,
        extra(count(Verdict::Untested), "untested"),
        extra(busy.len(), "measured on a busy machine"),
    ));
    let on_runs = rows.iter().filter(|r| r.on_runs).count();
    out.push_str(&if on_runs == rows.len() {
        "The test compared per-run means of the pooled runs (run-to-run noise included).\n"
            .to_string()
    } else if on_runs == 0 {
        "The test compared samples within one run per side: it cannot see run-to-run \
         noise; save with `run --runs N` (N >= 2) for a test on run means.\n"
            .to_string()
    } else {
        format!("{on_runs} metrics tested on per-run means, the others on samples of one run.\n")
    });
    let only = |a: &Run, b: &Run| -> Vec<String> {
        a.metrics
            .keys()
            .filter(|k| !b.metrics.contains_key(*k))
            .cloned()
            .collect()
    };
    for (what, ids) in [("OLD", only(old, new)), ("NEW", only(new, old))] {
        if !ids.is_empty() {
            out.push_str(&format!("only in {what}: {}\n", ids.join(", ")));
        }
    }
    for (what, run) in [("OLD", old), ("NEW", new)] {
        if !run.metrics.values().any(|s| !s.activity.is_empty()) {
            out.push_str(&format!(
                "{what} has no record of what else the machine did (saved before \
                 lmbench-rs kept one): its figures cannot be checked for a busy machine.\n"
            ));
        }
    }
    if !busy.is_empty() {
        out.push_str(&format!(
            "\nmeasured on a busy machine (other work used at least {busy_pct}% of a CPU; \
             no verdict: measure again on an idle machine):\n"
        ));
        out.push_str(&format!(
            "{:<idw$} {:>5} {:>9} {:>9} {:>8}  what ran\n",
            "metric", "unit", "old", "new", "change"
        ));
        for r in busy {
            let what: Vec<String> = [("OLD", &r.busy[0]), ("NEW", &r.busy[1])]
                .into_iter()
                .filter_map(|(side, a)| Some(format!("{side}: {}", a.as_ref()?.describe())))
                .collect();
            out.push_str(&format!("{}  {}\n", figures(r, idw), what.join("; ")));
        }
    }
    out
}

/// A comparison with an imported run: the summary columns both have, old
/// and new and the change, and "no samples" where a verdict would be (an
/// imported figure has no samples to test).
pub fn render_imported(old: &Run, new: &Run) -> Result<String> {
    use lmbench_support::catalog::TABLES;
    let mut rows = Vec::new();
    for t in TABLES {
        for i in 0..t.columns.len() {
            if let (Some(o), Some(n)) = (old.cell(t, i), new.cell(t, i)) {
                rows.push((format!("{}: {}", t.key, t.column_name(i)), o, n));
            }
        }
    }
    if rows.is_empty() {
        bail!(
            "{} and {} have no summary column in common",
            old.host(),
            new.host()
        );
    }
    let origin = |r: &Run| match &r.imported {
        Some(i) => format!("{}, imported from {}", i.format, i.source),
        None => format!("lmbench-rs {}, {}", r.meta.suite_version, r.meta.date),
    };
    let mut out = format!(
        "OLD {}  {}\nNEW {}  {}\n\n",
        old.host(),
        origin(old),
        new.host(),
        origin(new)
    );
    let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(6).max(6);
    out.push_str(&format!(
        "{:<w$} {:>9} {:>9} {:>8}  verdict\n",
        "column", "old", "new", "change"
    ));
    for (name, o, n) in &rows {
        let change = if *o != 0.0 { (n - o) / o * 100.0 } else { 0.0 };
        out.push_str(&format!(
            "{name:<w$} {:>9} {:>9} {:>+7.1}%  no samples\n",
            table::fmt_num(*o, 9),
            table::fmt_num(*n, 9),
            change
        ));
    }
    out.push_str(&format!(
        "\n{} summary columns; no verdicts: an imported run has figures, not samples.\n",
        rows.len()
    ));
    Ok(out)
}

/// A row's metric, unit, old and new figures and change, aligned.
fn figures(r: &Row, idw: usize) -> String {
    format!(
        "{:<idw$} {:>5} {:>9} {:>9} {:>+7.1}%",
        r.id,
        r.unit,
        table::fmt_num(r.old, 9),
        table::fmt_num(r.new, 9),
        r.change_pct
    )
}

/// `lmbench compare`.
pub fn run(opts: Args) -> Result<()> {
    let busy_cpus = opts.busy_threshold / 100.0;
    if !(opts.threshold.is_finite() && opts.threshold >= 0.0) {
        bail!("--threshold must be a percentage >= 0");
    }
    let filter = opts
        .filter
        .as_deref()
        .map(|f| crate::filter::metric_regex(f, "--filter"))
        .transpose()?;
    let old = store::resolve(&opts.old)?;
    let new = store::resolve(&opts.new)?;
    if old.imported.is_some() || new.imported.is_some() {
        print!("{}", render_imported(&old, &new)?);
        return Ok(());
    }
    if !(busy_cpus.is_finite() && busy_cpus > 0.0) {
        bail!("--busy-threshold must be a percentage of a CPU > 0");
    }
    let rows = compare(&old, &new, opts.threshold, busy_cpus, filter.as_ref());
    if rows.is_empty() {
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
    print!("{}", render(&old, &new, &rows, opts.threshold, busy_cpus));
    if let Some(limit) = opts.fail_on_regression {
        let bad: Vec<String> = rows
            .iter()
            .filter(|r| r.verdict == Verdict::Slower && r.time_change_pct > limit)
            .map(|r| format!("{} (+{:.1}%)", r.id, r.time_change_pct))
            .collect();
        if !bad.is_empty() {
            bail!(
                "{} significant regression(s) beyond {limit}%: {}",
                bad.len(),
                bad.join(", ")
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod sim;

#[cfg(test)]
mod tests {
    use super::*;
    use lmbench_support::activity::BUSY_CPUS;

    /// A run of the first catalog metric: `reps` runs of 5 samples each at
    /// the given means, each sample within ±0.1% of its run's mean.
    fn run(reps: &[f64]) -> Run {
        let (mut iters, mut times) = (Vec::new(), Vec::new());
        for &m in reps {
            for i in 0..5 {
                iters.push(100.0);
                times.push(100.0 * m * (1.0 + 0.001 * (i as f64 - 2.0)));
            }
        }
        let rep_sizes = if reps.len() > 1 {
            vec![5; reps.len()]
        } else {
            vec![]
        };
        super::sim::one_metric_run(iters, times, rep_sizes)
    }

    #[test]
    fn pooled_runs_are_tested_on_run_means() {
        // A/A with run-to-run noise of a few percent: the samples of one run
        // each differ "significantly", the per-run means do not.
        let rows = compare(&run(&[100.0]), &run(&[104.0]), 1.0, BUSY_CPUS, None);
        assert_eq!(rows[0].verdict, Verdict::Slower);
        assert!(!rows[0].on_runs);
        let rows = compare(
            &run(&[100.0, 106.0, 98.0]),
            &run(&[104.0, 99.0, 103.0]),
            1.0,
            BUSY_CPUS,
            None,
        );
        // Three run means a side cannot see a change of a few percent: the
        // verdict says so instead of "within noise".
        assert_eq!(rows[0].verdict, Verdict::CannotTell);
        assert!(rows[0].on_runs);
        assert!(
            rows[0].detectable_pct.unwrap() > 5.0,
            "{:?}",
            rows[0].detectable_pct
        );
        // A real shift well beyond the run-to-run noise still shows.
        let rows = compare(
            &run(&[100.0, 101.0, 99.0]),
            &run(&[150.0, 151.0, 149.0]),
            1.0,
            BUSY_CPUS,
            None,
        );
        assert_eq!(rows[0].verdict, Verdict::Slower);
        assert!((rows[0].time_change_pct - 50.0).abs() < 1.0);
    }

    #[test]
    fn threshold_hides_small_significant_changes() {
        let rows = compare(&run(&[100.0]), &run(&[100.5]), 1.0, BUSY_CPUS, None);
        assert_eq!(rows[0].verdict, Verdict::Noise);
        let rows = compare(&run(&[100.0]), &run(&[100.5]), 0.1, BUSY_CPUS, None);
        assert_eq!(rows[0].verdict, Verdict::Slower);
    }
}
