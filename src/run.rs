//! The one result type every command consumes: a run (live Criterion
//! results or a saved baseline) as per-metric statistics plus the facts of
//! the machine it ran on. Summary, compare, save, export and plot read this.

use std::collections::BTreeMap;
use std::path::PathBuf;

use lmbench_support::activity::Activity;
use lmbench_support::catalog::{Headline, Lookup, Metric, Table};
use lmbench_support::machine::Facts;
use serde::{Deserialize, Serialize};

use crate::stats;

/// Statistics of one metric, in nanoseconds per iteration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricStats {
    pub median_ns: f64,
    pub mean_ns: f64,
    /// 95% confidence interval of the mean (Criterion's bootstrap).
    pub mean_ci_ns: (f64, f64),
    pub min_ns: f64,
    pub mad_ns: f64,
    pub std_dev_ns: f64,
    /// Iteration count of each sample.
    pub iters: Vec<f64>,
    /// Total time of each sample, in nanoseconds.
    pub times_ns: Vec<f64>,
    /// Bytes one iteration moves, for bandwidths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_per_iter: Option<u64>,
    /// For samples pooled from several runs of the suite (`--runs N`): how
    /// many samples each run gave, in order. Empty for a single run.
    /// (Saved as `rep_sizes`, the key's name since the first saved runs.)
    #[serde(default, skip_serializing_if = "Vec::is_empty", rename = "rep_sizes")]
    pub round_sizes: Vec<usize>,
    /// What else the machine did while the metric was measured: one record
    /// per run of the suite (pooled runs keep each). Empty when unknown
    /// (a run saved before lmbench-rs recorded it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub activity: Vec<Activity>,
    /// The core clock around each sample (ns a cycle, before and after;
    /// zeros where unknown), as `lmbench_support::clock` probed it. Empty
    /// for a run saved before the harness probed the clock.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clock_ns: Vec<[f64; 2]>,
}

impl MetricStats {
    /// The metric's worst window if other work used at least `threshold`
    /// CPUs during it (in any of its pooled runs).
    pub fn busy_window(&self, threshold: f64) -> Option<&lmbench_support::activity::Activity> {
        lmbench_support::activity::Activity::worst(&self.activity).filter(|a| a.is_busy(threshold))
    }

    /// One sample of one iteration taking `ns` (tests' fixture runs).
    pub fn single(ns: f64) -> MetricStats {
        MetricStats {
            median_ns: ns,
            mean_ns: ns,
            mean_ci_ns: (ns, ns),
            min_ns: ns,
            mad_ns: 0.0,
            std_dev_ns: 0.0,
            iters: vec![1.0],
            times_ns: vec![ns],
            bytes_per_iter: None,
            round_sizes: vec![],
            activity: vec![],
            clock_ns: vec![],
        }
    }

    /// What makes these statistics unusable, if anything, as "has ...":
    /// samples (as many iteration counts as times, at least one), each
    /// count and time finite and > 0; every summary statistic finite; and
    /// each optional field, where present, right (round sizes adding up to
    /// the samples, a clock probe per sample, finite and not negative;
    /// activity figures finite and not negative; bytes > 0). Every loader
    /// refuses a metric with a defect, so what reads a `MetricStats` never
    /// meets NaN or a sign it cannot use.
    pub fn defect(&self) -> Option<String> {
        let (n, times) = (self.iters.len(), self.times_ns.len());
        if n == 0 || n != times {
            return Some(format!("{n} iteration counts and {times} sample times"));
        }
        let bad = |v: &[f64], what: &str| {
            v.iter()
                .position(|x| !(x.is_finite() && *x > 0.0))
                .map(|i| {
                    format!(
                        "{what} {} at sample {} (must be finite and > 0)",
                        v[i],
                        i + 1
                    )
                })
        };
        if let Some(d) =
            bad(&self.iters, "iteration count").or_else(|| bad(&self.times_ns, "sample time"))
        {
            return Some(d);
        }
        // Finite counts and times can still divide to an infinite or zero
        // figure (5e-324 iterations).
        if let Some(d) = bad(&self.per_iter_ns(), "time per iteration") {
            return Some(d);
        }
        let (lo, hi) = self.mean_ci_ns;
        for (what, v) in [
            ("median_ns", self.median_ns),
            ("mean_ns", self.mean_ns),
            ("mean_ci_ns lower bound", lo),
            ("mean_ci_ns upper bound", hi),
            ("min_ns", self.min_ns),
            ("mad_ns", self.mad_ns),
            ("std_dev_ns", self.std_dev_ns),
        ] {
            if !v.is_finite() {
                return Some(format!("{what} {v} (must be finite)"));
            }
        }
        if self.bytes_per_iter == Some(0) {
            return Some("bytes_per_iter 0 (must be > 0 or absent)".into());
        }
        let total = self
            .round_sizes
            .iter()
            .try_fold(0usize, |s, &k| s.checked_add(k));
        if !self.round_sizes.is_empty() && (total != Some(n) || self.round_sizes.contains(&0)) {
            return Some(format!("rep_sizes {:?} for {n} samples", self.round_sizes));
        }
        if !self.clock_ns.is_empty() && self.clock_ns.len() != n {
            return Some(format!(
                "{} clock probes for {n} samples",
                self.clock_ns.len()
            ));
        }
        if let Some(c) = self
            .clock_ns
            .iter()
            .flatten()
            .find(|c| !(c.is_finite() && **c >= 0.0))
        {
            return Some(format!("clock probe {c} (must be finite and not negative)"));
        }
        self.activity.iter().find_map(|a| a.defect())
    }

    /// The headline figure in nanoseconds per iteration.
    pub fn headline_ns(&self, headline: Headline) -> f64 {
        match headline {
            Headline::Median => self.median_ns,
            Headline::Min => self.min_ns,
        }
    }

    /// The distribution-free interval of at least 95% for the median, ns
    /// per iteration (see `stats::median_ci_ranks`); `None` under 2 samples.
    pub fn median_ci_ns(&self) -> Option<(f64, f64)> {
        let mut x = self.per_iter_ns();
        if x.len() < 2 {
            return None;
        }
        x.sort_by(f64::total_cmp);
        let (j, k) = stats::median_ci_ranks(x.len());
        Some((x[j], x[k]))
    }

    /// Nanoseconds per iteration of each sample: what tests compare.
    pub fn per_iter_ns(&self) -> Vec<f64> {
        self.iters
            .iter()
            .zip(&self.times_ns)
            .map(|(i, t)| t / i)
            .collect()
    }

    /// The samples of each pooled run (ns per iteration), in order: one
    /// run for an unpooled metric, or when the sizes do not add up.
    pub fn rounds(&self) -> Vec<Vec<f64>> {
        self.split_by_round(self.per_iter_ns())
    }

    /// Per-sample values `x` cut into the pooled runs, in order: one run
    /// for an unpooled metric, or when the sizes do not add up.
    fn split_by_round<T: Clone>(&self, x: Vec<T>) -> Vec<Vec<T>> {
        // Sizes come from a file: a sum that overflows does not add up.
        let total = self
            .round_sizes
            .iter()
            .try_fold(0usize, |sum, &n| sum.checked_add(n));
        if self.round_sizes.len() < 2 || total != Some(x.len()) {
            return vec![x];
        }
        let mut start = 0;
        self.round_sizes
            .iter()
            .map(|&n| {
                let part = x[start..start + n].to_vec();
                start += n;
                part
            })
            .collect()
    }

    /// The samples of each pooled run in cycles (ns per iteration over the
    /// cycle time the clock probes found), keeping only samples run at one
    /// steady clock (`lmbench_support::clock::steady_cycle_ns`) and short
    /// enough to ([`MAX_CYCLE_SAMPLE_NS`]). `None` when the run has no
    /// probes for every sample.
    pub fn reps_in_cycles(&self) -> Option<Vec<Vec<f64>>> {
        self.reps_over_clock(|b, a, t| {
            lmbench_support::clock::steady_cycle_ns(b, a).filter(|_| t <= MAX_CYCLE_SAMPLE_NS)
        })
    }

    /// As [`Self::reps_in_cycles`], but every probed sample, each over the
    /// mean of its two probes (`lmbench_support::clock::probed_cycle_ns`):
    /// for metrics whose samples are too long, or the clock too restless,
    /// for steady ones.
    pub fn reps_in_probed_cycles(&self) -> Option<Vec<Vec<f64>>> {
        self.reps_over_clock(|b, a, _| lmbench_support::clock::probed_cycle_ns(b, a))
    }

    /// Each run's samples over the cycle time `cycle(before, after,
    /// sample ns)` gives them, those it gives none left out.
    fn reps_over_clock(
        &self,
        cycle: impl Fn(f64, f64, f64) -> Option<f64>,
    ) -> Option<Vec<Vec<f64>>> {
        if self.clock_ns.len() != self.times_ns.len() {
            return None;
        }
        let x: Vec<Option<f64>> = self
            .per_iter_ns()
            .into_iter()
            .zip(&self.clock_ns)
            .zip(&self.times_ns)
            .map(|((v, [b, a]), t)| cycle(*b, *a, *t).map(|c| v / c))
            .collect();
        Some(
            self.split_by_round(x)
                .into_iter()
                .map(|run| run.into_iter().flatten().collect())
                .collect(),
        )
    }

    /// The steady cycle times (ns) of every sample, for a run's clock.
    pub fn steady_cycles_ns(&self) -> Vec<f64> {
        self.clock_ns
            .iter()
            .filter_map(|[b, a]| lmbench_support::clock::steady_cycle_ns(*b, *a))
            .collect()
    }

    /// The cycle times (ns) of every probed sample, steady or not.
    pub fn probed_cycles_ns(&self) -> Vec<f64> {
        self.clock_ns
            .iter()
            .filter_map(|[b, a]| lmbench_support::clock::probed_cycle_ns(*b, *a))
            .collect()
    }

    /// Pools the raw samples of several runs of one metric into one set of
    /// statistics computed from all samples (`--runs N`). The mean's 95%
    /// interval is Student's (mean ± t·s/√n), not Criterion's bootstrap.
    pub fn pool(parts: &[MetricStats]) -> Option<MetricStats> {
        let first = parts.first()?;
        let iters: Vec<f64> = parts.iter().flat_map(|p| p.iters.clone()).collect();
        let times_ns: Vec<f64> = parts.iter().flat_map(|p| p.times_ns.clone()).collect();
        let mut pooled = MetricStats {
            iters,
            times_ns,
            bytes_per_iter: first.bytes_per_iter,
            round_sizes: parts.iter().map(|p| p.iters.len()).collect(),
            activity: parts.iter().flat_map(|p| p.activity.clone()).collect(),
            clock_ns: Vec::new(),
            ..first.clone()
        };
        // Probes stay aligned with their samples: a part without them
        // contributes zeros (unknown), and none at all keeps none.
        if parts.iter().any(|p| !p.clock_ns.is_empty()) {
            pooled.clock_ns = parts
                .iter()
                .flat_map(|p| {
                    if p.clock_ns.len() == p.times_ns.len() {
                        p.clock_ns.clone()
                    } else {
                        vec![[0.0; 2]; p.times_ns.len()]
                    }
                })
                .collect();
        }
        let x = pooled.per_iter_ns();
        let n = x.len() as f64;
        let mean = stats::mean(&x);
        let sd = stats::variance(&x).sqrt();
        let half = if x.len() > 1 {
            stats::t_quantile_975(n - 1.0) * sd / n.sqrt()
        } else {
            0.0
        };
        pooled.mean_ns = mean;
        pooled.mean_ci_ns = (mean - half, mean + half);
        pooled.median_ns = stats::median(&x);
        pooled.min_ns = x.iter().copied().fold(f64::INFINITY, f64::min);
        pooled.mad_ns = stats::mad(&x);
        pooled.std_dev_ns = sd;
        Some(pooled)
    }
}

/// The longest sample counted in cycles: the host changes the clock every
/// few tens of milliseconds, so a longer sample ran at a mix of speeds
/// that its two probes, taken at its ends, do not tell.
pub const MAX_CYCLE_SAMPLE_NS: f64 = 100e6;

/// Where a run comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// Criterion's latest results on this machine (`latest`).
    Live,
    /// A saved run: `results/<machine>/<label>/`.
    Saved {
        machine: String,
        label: String,
        dir: PathBuf,
    },
}

/// What produced a run: the suite and the tools, and when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    pub suite_version: String,
    /// `git rev-parse HEAD` of the suite, with "-dirty" if it had changes.
    pub commit: Option<String>,
    pub criterion_version: Option<String>,
    /// UTC, RFC 3339.
    pub date: String,
    /// How many runs of the suite the samples pool (`--runs N`).
    pub runs_pooled: u32,
    /// The metrics a failed program left unmeasured, with the reason (the
    /// bench's own line, or which failure stopped the program first).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub failed: BTreeMap<String, String>,
}

/// A run imported from the C suite's results (`lmbench import`): figures
/// without samples, by summary column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Imported {
    /// What was read, e.g. "lmbench 1.9 SUMMARY".
    pub format: String,
    /// The file (and line) the figures came from.
    pub source: String,
    /// Figures by `table key/column name` (`Table::cell_key`), in the
    /// column's unit.
    pub cells: BTreeMap<String, f64>,
    /// Figures of columns none of our tables has, kept as read.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, f64>,
}

/// One run: what a table row shows.
#[derive(Debug, Clone)]
pub struct Run {
    pub machine: Facts,
    pub metrics: BTreeMap<String, MetricStats>,
    pub origin: Origin,
    pub meta: Meta,
    /// Set for a run imported from the C suite: its figures, no samples.
    pub imported: Option<Imported>,
}

impl Run {
    /// The Host column: `machine/label` for a saved run, else the host name.
    pub fn host(&self) -> String {
        match &self.origin {
            Origin::Saved { machine, label, .. } => format!("{machine}/{label}"),
            Origin::Live => self.machine.get("host").unwrap_or("-").to_string(),
        }
    }

    /// Column `i` of table `t` for this run: the imported figure, or the
    /// column's source evaluated on the metrics.
    pub fn cell(&self, t: &Table, i: usize) -> Option<f64> {
        match &self.imported {
            Some(imp) => imp.cells.get(&t.cell_key(i)).copied(),
            None => t.columns[i].source.eval(self),
        }
    }

    /// The label of a saved run.
    pub fn label(&self) -> Option<&str> {
        match &self.origin {
            Origin::Saved { label, .. } => Some(label),
            Origin::Live => None,
        }
    }

    /// The machine name: the saved one, else this host's.
    pub fn machine_name(&self) -> String {
        match &self.origin {
            Origin::Saved { machine, .. } => machine.clone(),
            Origin::Live => self.machine.get("host").unwrap_or("-").to_string(),
        }
    }
}

impl Lookup for Run {
    fn value(&self, metric: &Metric) -> Option<f64> {
        let s = self.metrics.get(metric.id)?;
        let ns = s.headline_ns(metric.headline);
        metric
            .unit
            .from_ns_per_iter(ns, s.bytes_per_iter.map(|b| b as f64))
    }

    fn fact(&self, key: &str) -> Option<String> {
        self.machine.get(key).map(str::to_string)
    }

    fn median_interval(&self, metric: &Metric) -> Option<(f64, f64)> {
        let s = self.metrics.get(metric.id)?;
        let (lo, hi) = s.median_ci_ns()?;
        let bytes = s.bytes_per_iter.map(|b| b as f64);
        let unit = |ns| metric.unit.from_ns_per_iter(ns, bytes);
        Some((unit(lo)?, unit(hi)?))
    }
}

#[cfg(test)]
mod tests;
