//! What a measuring session is asked to do: the options `run`, `check`
//! (and any other command that measures) give the measurer, built from
//! each command's own flags. A new measuring option is a field here with
//! its default, so a command that does not take the flag needs no change.

use crate::flags::{Budget, Count, Label, MachineName, MetricFilter, Percent, RunSpec, Secs};

/// Where a session saves its run (`run --save`).
#[derive(Clone, Debug)]
pub struct SaveTo {
    pub label: Label,
    /// Default: the host name.
    pub machine: Option<MachineName>,
    /// Replace an existing label.
    pub force: bool,
}

/// The options of one measuring session; `Default` is a plain `run`.
#[derive(Clone, Debug)]
pub struct MeasureOptions {
    /// The quick preset (10 samples a metric).
    pub quick: bool,
    /// Wait at most this long for the machine to be idle before starting.
    pub wait_idle: Option<Secs>,
    /// Only the metrics matching this.
    pub filter: Option<MetricFilter>,
    /// Full rounds of the suite (with no budget).
    pub runs: Count,
    /// After a first round, re-measure the undecided metrics until this is
    /// spent.
    pub budget: Option<Budget>,
    /// With a budget: undecided means against this run.
    pub against: Option<RunSpec>,
    /// What "decided" means for a budget.
    pub threshold: Percent,
    /// Only the metrics with a floor, each beside its floor.
    pub paired: bool,
    /// Stop at the first failed program, saving nothing.
    pub fail_fast: bool,
}

impl Default for MeasureOptions {
    fn default() -> Self {
        MeasureOptions {
            quick: false,
            wait_idle: None,
            filter: None,
            runs: Count::ONE,
            budget: None,
            against: None,
            threshold: Percent::DEFAULT_THRESHOLD,
            paired: false,
            fail_fast: false,
        }
    }
}
