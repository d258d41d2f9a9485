//! Floors: each metric beside a bare loop of the same operation (no
//! Criterion per-iteration machinery, no threads), measured in the same
//! run, so any reader sees the harness's share of a figure. A metric's
//! figure divided by its floor's should be close to 1; `lmbench summary
//! --floors` prints both and the ratio.
//!
//! Adding a floor: a metric for the bare loop (in the `floor` program or,
//! for a reference that needs the bench's own setup, in the metric's own
//! program), and one [`Floor`] line below.
use super::Metric;

/// A metric and the bare loop it is judged against.
#[derive(Debug)]
pub struct Floor {
    /// The suite's figure.
    pub metric: &'static Metric,
    /// The bare loop of the same operation, in the same unit.
    pub floor: &'static Metric,
}

/// Every metric that has a floor.
pub static FLOORS: &[Floor] = &[];
