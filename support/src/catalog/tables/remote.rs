//! lmbench's *Remote* tables: the same round trips and transfers as the
//! *Local* ones, against `lmbench serve` on another machine
//! (`LMBENCH_REMOTE`). The summary names the peer under each table.

use crate::catalog::{
    bw_tcp, lat_connect, lat_rpc, lat_tcp, lat_udp, no_notes, Column, Metric, Source, Table, Unit,
};

/// The metrics measured against the remote peer: those of the two tables.
pub fn remote_metrics() -> Vec<&'static Metric> {
    [&REMOTE_LAT, &REMOTE_BW]
        .iter()
        .flat_map(|t| t.columns.iter().flat_map(|c| c.source.metrics()))
        .collect()
}

pub static REMOTE_LAT: Table = Table {
    key: "remote_lat",
    title: "*Remote* Communication latencies in microseconds - smaller is better",
    unit: Unit::Micros,
    notes: no_notes,
    columns: &[
        Column::new("UDP", "", 5, Source::Metric(&lat_udp::REMOTE)),
        Column::new("RPC/", "UDP", 5, Source::Metric(&lat_rpc::REMOTE_UDP)),
        Column::new("TCP", "", 5, Source::Metric(&lat_tcp::REMOTE)),
        Column::new("RPC/", "TCP", 5, Source::Metric(&lat_rpc::REMOTE_TCP)),
        Column::new("TCP", "conn", 5, Source::Metric(&lat_connect::REMOTE)),
    ],
};

/// lmbench 3's summary prints no remote bandwidth table, though its
/// results files carry the remote `bw_tcp` figure; this one shows it (TCP
/// read, the Local table's direction) and the reverse direction.
pub static REMOTE_BW: Table = Table {
    key: "remote_bw",
    title: "*Remote* Communication bandwidths in MB/s - bigger is better",
    unit: Unit::MBps,
    notes: no_notes,
    columns: &[
        Column::new("TCP", "read", 5, Source::Metric(&bw_tcp::REMOTE_READ_10M)),
        Column::new("TCP", "write", 5, Source::Metric(&bw_tcp::REMOTE_WRITE_10M)),
    ],
};
