//! lmbench's own columns in a comparison: which rows stand behind them,
//! how many of those can see the threshold, and the pinned twins that
//! answer for unpinned round trips. What `compare` reports as the share
//! and `check` exits on, decided here once.

use std::collections::{BTreeMap, BTreeSet};

use super::{Comparison, Row, Verdict};
use crate::run::Run;

/// Which metrics of a comparison stand behind lmbench's own columns, and
/// the pinned twin of each unpinned one (as the newer run has them).
#[derive(Debug, Clone, Default)]
pub struct Columns {
    pub metrics: BTreeSet<String>,
    /// Unpinned column metric -> its pinned twin.
    pub twins: BTreeMap<String, String>,
}

impl Columns {
    pub fn of(run: &Run) -> Columns {
        Columns {
            metrics: crate::columns::lmbench_column_metrics(run),
            twins: crate::columns::pinned_twins(run),
        }
    }
}

/// lmbench's own columns as a comparison answers them.
pub struct ColumnShare<'a> {
    /// The rows behind them, busy ones left out (they have no verdict).
    pub behind: Vec<&'a Row>,
    /// How many of `behind` can see the threshold on their own.
    pub resolved: usize,
    /// Those that cannot, each with the pinned twin that answers for it.
    pub by_twins: Vec<(&'a Row, &'a Row)>,
}

impl ColumnShare<'_> {
    /// The rows that see the threshold, themselves or through a twin.
    pub fn answered(&self) -> usize {
        self.resolved + self.by_twins.len()
    }
}

impl Comparison {
    /// The pinned twin that answers for row `r` (an unpinned round trip
    /// that cannot answer itself): the one rule of compare's share and
    /// check's outcome. The twin must be decided (called, or unchanged
    /// within the threshold) and able to see the threshold on its own;
    /// resolution alone answers nothing, for a twin still "cannot tell"
    /// has not said whether its path moved. A busy row is answered by no
    /// twin: the machine was busy, a reason to measure again either way.
    pub fn settling_twin(&self, r: &Row) -> Option<&Row> {
        if r.verdict == Verdict::Busy {
            return None;
        }
        let twin = self.columns.twins.get(&r.id)?;
        self.rows
            .iter()
            .find(|t| &t.id == twin && t.verdict.decided() && t.detects(self.threshold_pct))
    }

    /// lmbench's own columns here: the rows behind them, those that see
    /// the threshold, and the twins that answer for the rest they can.
    pub fn column_share(&self) -> ColumnShare<'_> {
        let behind: Vec<&Row> = self
            .rows
            .iter()
            .filter(|r| r.verdict != Verdict::Busy && self.columns.metrics.contains(&r.id))
            .collect();
        let threshold = self.threshold_pct;
        let resolved = behind.iter().filter(|r| r.detects(threshold)).count();
        let by_twins = behind
            .iter()
            .filter(|r| !r.detects(threshold))
            .filter_map(|r| Some((*r, self.settling_twin(r)?)))
            .collect();
        ColumnShare {
            behind,
            resolved,
            by_twins,
        }
    }

    /// The rows that leave the comparison unable to answer: neither
    /// decided nor answered by a pinned twin.
    pub fn unanswered(&self) -> impl Iterator<Item = &Row> {
        self.rows
            .iter()
            .filter(move |r| !r.verdict.decided() && self.settling_twin(r).is_none())
    }
}
