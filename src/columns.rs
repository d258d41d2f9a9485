//! The metrics behind lmbench's own summary columns, and the pinned twins
//! that answer for its unpinned round trips.
//!
//! lmbench's context-switch and local-communication columns time two
//! processes left where the scheduler puts them. On a VM that is a
//! placement lottery, and the run-to-run spread it leaves hides a kernel's
//! change of several percent. The suite also measures each with every end
//! on one CPU (`catalog::tables::PINNED_TWINS`): the same kernel path,
//! repeatable to a few percent. `compare` reports the column's own verdict
//! and, where that cannot settle the threshold, its twin's beside it;
//! `run --budget` gives the twins the runs it gives the columns.

use std::collections::{BTreeMap, BTreeSet};

use lmbench_support::catalog::tables::{lmbench3_columns, pinned_twin};

use crate::cells::reads;
use crate::run::Run;

/// The metrics the columns of lmbench's own summary tables read in `run`
/// (the tables and columns lmbench 3 prints, local ones), for the share of
/// them a comparison can resolve.
pub fn lmbench_column_metrics(run: &Run) -> BTreeSet<String> {
    lmbench3_columns()
        .into_iter()
        .flat_map(|(t, i)| reads(&t.columns[i], run))
        .collect()
}

/// For each metric behind one of lmbench's own columns that has a pinned
/// twin in `run`, the twin's metric. Only columns that read one metric
/// each way are paired (every run saved since the switch was measured in
/// pairs; an older run's ring trips and overheads have no one-to-one twin).
pub fn pinned_twins(run: &Run) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (t, i) in lmbench3_columns() {
        let Some(twin) = pinned_twin(t, i) else {
            continue;
        };
        if let ([own], [other]) = (&reads(&t.columns[i], run)[..], &reads(twin, run)[..]) {
            out.insert(own.clone(), other.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::MetricStats;
    use crate::verdict::sim::run_of;
    use lmbench_support::catalog::{
        bw_pipe, lat_ctx, lat_pipe, lat_rpc, lat_tcp, lat_udp, lat_unix, Metric,
    };

    fn run_with(metrics: &[&'static Metric]) -> Run {
        run_of(
            metrics
                .iter()
                .map(|m| (*m, MetricStats::single(1e3)))
                .collect(),
        )
    }

    #[test]
    fn each_unpinned_round_trip_column_has_its_pinned_metric_as_twin() {
        let ids: Vec<&'static Metric> = lat_ctx::SHAPES
            .iter()
            .flat_map(|s| [s.2, s.3])
            .chain([
                &lat_pipe::PIPE,
                &lat_pipe::PINNED,
                &lat_unix::STREAM,
                &lat_unix::PINNED,
                &lat_udp::UDP,
                &lat_udp::PINNED,
                &lat_tcp::TCP,
                &lat_tcp::PINNED,
                &lat_rpc::UDP,
                &lat_rpc::PINNED_UDP,
                &lat_rpc::TCP,
                &bw_pipe::READ_64K,
                &bw_pipe::PINNED_64K,
            ])
            .collect();
        let twins = pinned_twins(&run_with(&ids));
        assert_eq!(twins.len(), lat_ctx::SHAPES.len() + 6, "{twins:?}");
        let pairs = lat_ctx::SHAPES.iter().map(|s| (s.2, s.3)).chain([
            (&lat_pipe::PIPE, &lat_pipe::PINNED),
            (&lat_tcp::TCP, &lat_tcp::PINNED),
            (&lat_rpc::UDP, &lat_rpc::PINNED_UDP),
            (&bw_pipe::READ_64K, &bw_pipe::PINNED_64K),
        ]);
        for (own, twin) in pairs {
            assert_eq!(twins.get(own.id).map(String::as_str), Some(twin.id));
        }
        // A column whose twin the run lacks stays on its own figure.
        assert!(!twins.contains_key(lat_rpc::TCP.id));
        // The twins are not lmbench's columns themselves.
        let columns = lmbench_column_metrics(&run_with(&ids));
        assert!(twins.values().all(|t| !columns.contains(t)), "{columns:?}");
        // A twin the run lacks pairs nothing.
        assert!(pinned_twins(&run_with(&[&lat_pipe::PIPE])).is_empty());
    }
}
