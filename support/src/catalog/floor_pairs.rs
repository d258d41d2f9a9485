//! Floor pairs: each metric beside its floor, a bare loop of the same
//! operation (no Criterion per-iteration machinery, no threads), measured
//! in the same run, so any reader sees the harness's share of a figure. A
//! metric's figure divided by its floor's should be close to 1; `lmbench
//! summary --floors` prints both and the ratio.
//!
//! Adding a floor: a metric for the bare loop (in the `floor` program or,
//! for a reference that needs the bench's own setup, in the metric's own
//! program), and one [`Floor`] line below.
use super::lat_mem_rd::{function as mem, named_point as point};
use super::{floor, lat_pipe, lat_proc, lat_select, lat_syscall, lat_unix, Metric};

/// A metric and the bare loop it is judged against.
#[derive(Debug)]
pub struct Floor {
    /// The suite's figure.
    pub metric: &'static Metric,
    /// The bare loop of the same operation, in the same unit.
    pub floor: &'static Metric,
}

/// Every metric that has a floor.
pub static FLOORS: &[Floor] = &[
    f(&lat_syscall::NULL, &floor::NULL),
    f(&lat_syscall::READ, &floor::READ),
    f(&lat_syscall::WRITE, &floor::WRITE),
    f(&lat_syscall::STAT, &floor::STAT),
    f(&lat_syscall::FSTAT, &floor::FSTAT),
    f(&lat_syscall::OPEN, &floor::OPEN),
    f(&lat_select::FILE_100, &floor::SELECT_100),
    f(&lat_pipe::PINNED, &floor::PIPE_PINNED),
    f(&lat_unix::PINNED, &floor::UNIX_PINNED),
    f(&lat_proc::FORK, &floor::FORK),
    f(&lat_proc::EXEC, &floor::EXEC),
    f(&lat_proc::EXEC_STATIC, &floor::EXEC_STATIC),
    // The memory chains past the caches, and the L3 point of
    // "random in level" on a 32 MiB L3 (in a larger L3 still a cache).
    f(point(mem::THRASH, "1g"), &floor::THRASH_1G),
    f(point(mem::PAGE, "1g"), &floor::PAGE_1G),
    f(point(mem::INPAGE, "1g"), &floor::INPAGE_1G),
    f(point(mem::THRASH, "2g"), &floor::THRASH_2G),
    f(point(mem::PAGE, "2g"), &floor::PAGE_2G),
    f(point(mem::INPAGE, "2g"), &floor::INPAGE_2G),
    f(point(mem::INPAGE, "16m"), &floor::INPAGE_16M),
];

/// The floor of `metric`, if it has one.
pub fn floor_of(metric: &Metric) -> Option<&'static Metric> {
    FLOORS
        .iter()
        .find(|f| std::ptr::eq(f.metric, metric))
        .map(|f| f.floor)
}

/// The metrics `floor` is the floor of (none for a metric that is no floor).
pub fn floored_by(floor: &Metric) -> impl Iterator<Item = &'static Metric> + '_ {
    FLOORS
        .iter()
        .filter(move |f| std::ptr::eq(f.floor, floor))
        .map(|f| f.metric)
}

const fn f(metric: &'static Metric, floor: &'static Metric) -> Floor {
    Floor { metric, floor }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::all_metrics;

    #[test]
    fn every_floor_is_a_registered_floor_metric_of_the_same_unit() {
        for f in FLOORS {
            assert!(
                floor::PROGRAM
                    .metrics
                    .iter()
                    .any(|m| std::ptr::eq(*m, f.floor)),
                "{}: its floor {} is not in the floor program",
                f.metric.id,
                f.floor.id
            );
            assert!(
                all_metrics().any(|m| std::ptr::eq(m, f.metric)),
                "{} is not a registered metric",
                f.metric.id
            );
            assert_ne!(
                f.metric.program(),
                "floor",
                "{} is itself a floor",
                f.metric.id
            );
            assert_eq!(f.metric.unit, f.floor.unit, "{}: units differ", f.metric.id);
        }
    }

    #[test]
    fn every_floor_metric_is_some_metric_floor_once_per_metric() {
        for m in floor::PROGRAM.metrics {
            assert!(
                FLOORS.iter().any(|f| std::ptr::eq(f.floor, *m)),
                "{} is measured but is nobody's floor",
                m.id
            );
        }
        let mut seen = std::collections::HashSet::new();
        for f in FLOORS {
            assert!(seen.insert(f.metric.id), "{} has two floors", f.metric.id);
        }
    }
}
