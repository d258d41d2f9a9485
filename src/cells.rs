//! One summary cell as every output format shows it: the column's figure
//! for a run, whether any metric behind it was measured on a busy machine
//! (and what ran), and with `--spread` how far the samples spread.
//!
//! A column may be computed from several metrics (null I/O is a mean, sig
//! hndl a difference, the ctx columns subtract an overhead): the metrics it
//! reads are found by evaluating it once with a lookup that notes what it
//! is asked, and its spread propagates each metric's spread through the
//! column's own formula (half the change from the metric's low to its high
//! end, the metrics combined in quadrature, as for independent errors).

use std::cell::RefCell;

use lmbench_support::activity::Activity;
use lmbench_support::catalog::{Column, Lookup, Metric, Table};

use crate::run::{MetricStats, Run};
use crate::stats;

/// How `--spread` describes a figure's samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Spread {
    /// Half the interquartile range of the samples: median ± this holds
    /// the middle half of them.
    Iqr,
    /// The 95% confidence interval of the median (distribution-free, from
    /// the order statistics of the samples).
    Ci,
}

impl Spread {
    pub fn describe(self) -> &'static str {
        match self {
            Spread::Iqr => "± half the interquartile range of the samples",
            Spread::Ci => "± half the 95% confidence interval of the median",
        }
    }

    /// (low, high) of one metric's samples in ns per iteration.
    fn bounds_ns(self, s: &MetricStats) -> Option<(f64, f64)> {
        match self {
            Spread::Iqr => {
                let mut x = s.per_iter_ns();
                if x.len() < 2 {
                    return None;
                }
                x.sort_by(f64::total_cmp);
                Some((stats::quantile(&x, 0.25), stats::quantile(&x, 0.75)))
            }
            Spread::Ci => s.median_ci_ns(),
        }
    }
}

/// What a cell shows.
#[derive(Debug, Clone, Default)]
pub struct Cell {
    pub value: Option<f64>,
    /// The busiest window of the metrics behind it, if it was busy.
    pub busy: Option<Activity>,
    /// Half-width of the spread, in the column's unit.
    pub spread: Option<f64>,
}

/// A lookup that notes every metric a column asks for.
struct Reads<'a> {
    run: &'a Run,
    ids: RefCell<Vec<String>>,
}

impl Lookup for Reads<'_> {
    fn value(&self, metric: &Metric) -> Option<f64> {
        self.ids.borrow_mut().push(metric.id.to_string());
        self.run.value(metric)
    }
    fn fact(&self, key: &str) -> Option<String> {
        self.run.fact(key)
    }
    fn median_interval(&self, metric: &Metric) -> Option<(f64, f64)> {
        self.run.median_interval(metric)
    }
}

/// The run with one metric's figure replaced.
struct With<'a> {
    run: &'a Run,
    id: &'a str,
    value: f64,
}

impl Lookup for With<'_> {
    fn value(&self, metric: &Metric) -> Option<f64> {
        if metric.id == self.id {
            Some(self.value)
        } else {
            self.run.value(metric)
        }
    }
    fn fact(&self, key: &str) -> Option<String> {
        self.run.fact(key)
    }
    fn median_interval(&self, metric: &Metric) -> Option<(f64, f64)> {
        self.run.median_interval(metric)
    }
}

/// The window in which other work used the most CPU (the last of equals);
/// `None` if there are none.
pub fn busiest<'a>(windows: impl IntoIterator<Item = &'a Activity>) -> Option<&'a Activity> {
    windows.into_iter().max_by(|a, b| {
        a.other_cpus()
            .unwrap_or(0.0)
            .total_cmp(&b.other_cpus().unwrap_or(0.0))
    })
}

/// The cells of table `t`, one row per run: what every output format of
/// `summary` shows. `busy_cpus` is the busy threshold (CPUs of other work).
pub fn grid(t: &Table, runs: &[Run], busy_cpus: f64, spread: Option<Spread>) -> Vec<Vec<Cell>> {
    runs.iter()
        .map(|r| {
            t.columns
                .iter()
                .enumerate()
                .map(|(i, c)| match r.imported {
                    // Imported figures have no samples: no busy mark, no spread.
                    Some(_) => Cell {
                        value: r.cell(t, i),
                        busy: None,
                        spread: None,
                    },
                    None => cell(c, r, busy_cpus, spread),
                })
                .collect()
        })
        .collect()
}

/// The metrics of `run` that `column` reads to make its figure (sorted,
/// each once; those the run lacks left out).
pub fn reads(column: &Column, run: &Run) -> Vec<String> {
    reads_and_value(column, run)
        .0
        .into_iter()
        .filter(|id| run.metrics.contains_key(id))
        .collect()
}

/// Every metric id `column` asks `run` for (sorted, each once), and its
/// figure.
fn reads_and_value(column: &Column, run: &Run) -> (Vec<String>, Option<f64>) {
    let reads = Reads {
        run,
        ids: RefCell::new(Vec::new()),
    };
    let value = column.source.eval(&reads);
    let mut ids = reads.ids.into_inner();
    ids.sort();
    ids.dedup();
    (ids, value)
}

/// The cell of `column` for `run`.
pub fn cell(column: &Column, run: &Run, threshold: f64, spread: Option<Spread>) -> Cell {
    let (ids, value) = reads_and_value(column, run);
    let busy = busiest(
        ids.iter()
            .filter_map(|id| run.metrics.get(id)?.busy_window(threshold)),
    )
    .cloned();
    let spread = match (value, spread) {
        (Some(v), Some(kind)) => propagate(column, run, &ids, v, kind),
        _ => None,
    };
    Cell {
        value,
        busy,
        spread,
    }
}

fn propagate(column: &Column, run: &Run, ids: &[String], value: f64, kind: Spread) -> Option<f64> {
    let mut sum_sq = 0.0;
    let mut used = 0;
    for id in ids {
        // A metric the column asked for but the run lacks (a fallback's
        // input, e.g. lat_ctx's overhead of older runs) adds no spread.
        let Some(s) = run.metrics.get(id) else {
            continue;
        };
        used += 1;
        let metric = Metric::by_id(id)?;
        let (lo, hi) = kind.bounds_ns(s)?;
        let bytes = s.bytes_per_iter.map(|b| b as f64);
        let at = |ns: f64| -> Option<f64> {
            let v = metric.unit.from_ns_per_iter(ns, bytes)?;
            column.source.eval(&With { run, id, value: v })
        };
        let half = (at(hi)? - at(lo)?).abs() / 2.0;
        sum_sq += half * half;
    }
    (value.is_finite() && used > 0).then(|| sum_sq.sqrt())
}

/// A spread as a share of the figure, to fit `width` characters: "±2.3%",
/// "±12%".
pub fn fmt_spread(half: f64, value: f64, width: usize) -> String {
    if value == 0.0 || !half.is_finite() {
        return "-".to_string();
    }
    let pct = 100.0 * half / value.abs();
    let candidates = [
        format!("±{pct:.1}%"),
        format!("±{pct:.0}%"),
        format!("{pct:.0}%"),
    ];
    let fits = |s: &String| s.chars().count() <= width;
    let start = if pct >= 9.95 { 1 } else { 0 };
    candidates[start..]
        .iter()
        .find(|s| fits(s))
        .cloned()
        .unwrap_or_else(|| "#".repeat(width))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads_fit_their_columns() {
        assert_eq!(fmt_spread(0.023, 1.0, 5), "±2.3%");
        assert_eq!(fmt_spread(0.023, 1.0, 4), "±2%");
        assert_eq!(fmt_spread(0.12, 1.0, 4), "±12%");
        assert_eq!(fmt_spread(1.5, 1.0, 4), "150%");
        assert_eq!(fmt_spread(0.5, 0.0, 4), "-");
    }
}
