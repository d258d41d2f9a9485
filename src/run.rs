//! The one result type every command consumes: a run (live Criterion
//! results or a saved baseline) as per-metric statistics plus the facts of
//! the machine it ran on. Summary, compare, save and export all read this.

use std::collections::BTreeMap;

use lmbench_support::catalog::{Headline, Lookup, Metric};
use lmbench_support::machine::Facts;
use serde::{Deserialize, Serialize};

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
}

impl MetricStats {
    /// The headline figure in nanoseconds per iteration.
    pub fn headline_ns(&self, headline: Headline) -> f64 {
        match headline {
            Headline::Median => self.median_ns,
            Headline::Min => self.min_ns,
        }
    }
}

/// One run: what a table row shows.
#[derive(Debug, Clone)]
pub struct Run {
    pub machine: Facts,
    pub metrics: BTreeMap<String, MetricStats>,
}

impl Run {
    /// The Host column: the machine name.
    pub fn host(&self) -> String {
        self.machine.get("host").unwrap_or("-").to_string()
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
}
