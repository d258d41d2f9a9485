//! What moved beside the rows: the sentinels (the CPU-only metrics, main
//! memory, the shared cache) whose moving together says the machine changed
//! rather than the code, and the core clock the probes read.

use serde::Serialize;

use super::{Row, Verdict};
use crate::run::{MetricStats, Run};
use crate::stats;

/// How a set of sentinel metrics moved (the CPU-only ones, or main
/// memory's).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Drift {
    /// Sentinel metrics compared.
    pub metrics: usize,
    /// Of them, called changed.
    pub called: usize,
    /// Their median change of time, percent.
    pub median_pct: f64,
    /// Of them, moved by 1% or more in the median's direction.
    pub same_way: usize,
}

/// The median move of the sentinels that says the machine changed even
/// when few of them are called one by one. Each sentinel of a sitting has
/// a run or three, each on whatever clock the host gave its process, so
/// an A/A pair's sentinels spread by a few percent around a median near
/// zero, and a host that ran slower moves most of them the same way by
/// more (docs/compare.md, "What an A/A pair shows").
pub const DRIFT_PCT: f64 = 5.0;

/// The fewest sentinels whose uncalled moves can say together that the
/// machine changed: one or two wide intervals moving one way are what
/// noise does.
pub const TOGETHER_MIN: usize = 3;

impl Drift {
    /// Most sentinels called changed, in one direction by 1% or more; or
    /// three in four of at least [`TOGETHER_MIN`] moved the same way, by
    /// [`DRIFT_PCT`] at the median.
    pub fn machine_changed(&self) -> bool {
        let called = self.called * 2 > self.metrics && self.median_pct.abs() >= 1.0;
        let together = self.metrics >= TOGETHER_MIN
            && self.same_way * 4 >= self.metrics * 3
            && self.median_pct.abs() >= DRIFT_PCT;
        self.metrics > 0 && (called || together)
    }
}

/// The core clock of the two runs, as the probes beside their samples
/// read it (`lmbench_support::clock`).
#[derive(Debug, Clone, Serialize)]
pub struct Clock {
    /// The median clock over every steady sample, MHz: old, new.
    pub mhz: [f64; 2],
    /// Metrics compared per cycle.
    pub per_cycle: usize,
}

impl Clock {
    /// Both runs' clocks, if both were probed.
    pub(super) fn of(old: &Run, new: &Run) -> Option<[f64; 2]> {
        let mhz = |r: &Run| {
            let ns: Vec<f64> = r
                .metrics
                .values()
                .flat_map(MetricStats::steady_cycles_ns)
                .collect();
            (!ns.is_empty()).then(|| 1000.0 / stats::median(&ns))
        };
        Some([mhz(old)?, mhz(new)?])
    }

    /// The change of the clock's speed, percent.
    pub fn change_pct(&self) -> f64 {
        100.0 * (self.mhz[1] / self.mhz[0] - 1.0)
    }
}

/// How the metrics `is_sentinel` picks moved.
pub(super) fn drift(rows: &[Row], is_sentinel: impl Fn(&str) -> bool) -> Drift {
    let sentinel: Vec<&Row> = rows
        .iter()
        .filter(|r| is_sentinel(&r.id))
        .filter(|r| r.verdict != Verdict::Busy && r.test.is_some())
        .collect();
    let changes: Vec<f64> = sentinel
        .iter()
        .map(|r| r.in_time_change_pct.unwrap_or(r.time_change_pct))
        .collect();
    let median_pct = if changes.is_empty() {
        0.0
    } else {
        stats::median(&changes)
    };
    Drift {
        metrics: sentinel.len(),
        called: sentinel.iter().filter(|r| r.verdict.called()).count(),
        median_pct,
        same_way: changes
            .iter()
            .filter(|c| c.abs() >= 1.0 && c.signum() == median_pct.signum())
            .count(),
    }
}

#[cfg(test)]
mod tests {
    use super::Drift;

    fn drift(called: usize, same_way: usize, median_pct: f64) -> Drift {
        Drift {
            metrics: 20,
            called,
            median_pct,
            same_way,
        }
    }

    #[test]
    fn the_machine_changed_when_its_sentinels_move_together() {
        // A host 12% faster: every sentinel called.
        assert!(drift(19, 20, -12.2).machine_changed());
        // A host 8% slower, few sentinels called with one run a side, but
        // 16 of 20 moved the same way.
        assert!(drift(7, 16, 7.7).machine_changed());
        // A/A: sentinels scattered either way, a small median.
        assert!(!drift(0, 11, 1.3).machine_changed());
        // Together but small, or large but scattered: not the machine.
        assert!(!drift(4, 14, 3.4).machine_changed());
        assert!(!drift(2, 12, 6.0).machine_changed());
        // One or two uncalled sentinels moving one way say nothing alone.
        let few = |metrics, same_way| Drift {
            metrics,
            called: 0,
            median_pct: 45.7,
            same_way,
        };
        assert!(!few(1, 1).machine_changed());
        assert!(!few(2, 2).machine_changed());
        assert!(few(3, 3).machine_changed());
        assert!(!Drift {
            metrics: 0,
            called: 0,
            median_pct: 0.0,
            same_way: 0
        }
        .machine_changed());
    }
}
