use crate::catalog::{
    lat_connect, lat_pipe, lat_rpc, lat_tcp, lat_udp, lat_unix, no_notes, Column, Source, Table,
    Unit,
};

pub static COMM_LAT: Table = Table {
    key: "comm_lat",
    title: "*Local* Communication latencies in microseconds - smaller is better",
    unit: Unit::Micros,
    notes: no_notes,
    columns: &[
        Column::new(
            "2p/0K",
            "ctxsw",
            5,
            Source::Computed(super::ctx::u0_inputs, super::ctx::ctx_2p_0k),
        ),
        Column::new("Pipe", "", 5, Source::Metric(&lat_pipe::PIPE)),
        Column::new("AF", "UNIX", 5, Source::Metric(&lat_unix::STREAM)),
        Column::new("UDP", "", 5, Source::Metric(&lat_udp::UDP)),
        Column::new("RPC/", "UDP", 5, Source::Metric(&lat_rpc::UDP)),
        Column::new("TCP", "", 5, Source::Metric(&lat_tcp::TCP)),
        Column::new("RPC/", "TCP", 5, Source::Metric(&lat_rpc::TCP)),
        Column::new("TCP", "conn", 5, Source::Metric(&lat_connect::TCP)),
    ],
};

/// Not an lmbench table: the local round trips with the bench and its
/// peer bound to one CPU (as `ctx_pinned` for the rings), a stable figure
/// beside lmbench's placement-dependent one on a VM.
pub static COMM_LAT_PINNED: Table = Table {
    key: "comm_lat_pinned",
    title: "*Local* Communication latencies, both ends on one CPU (not in lmbench) - times in microseconds",
    unit: Unit::Micros,
    notes: no_notes,
    columns: &[
        Column::new(
            "2p/0K",
            "ctxsw",
            5,
            Source::Computed(super::ctx::p0_inputs, super::ctx::ctx_2p_0k_pinned),
        ),
        Column::new("Pipe", "", 5, Source::Metric(&lat_pipe::PINNED)),
        Column::new("AF", "UNIX", 5, Source::Metric(&lat_unix::PINNED)),
        Column::new("UDP", "", 5, Source::Metric(&lat_udp::PINNED)),
        Column::new("RPC/", "UDP", 5, Source::Metric(&lat_rpc::PINNED_UDP)),
        Column::new("TCP", "", 5, Source::Metric(&lat_tcp::PINNED)),
        Column::new("RPC/", "TCP", 5, Source::Metric(&lat_rpc::PINNED_TCP)),
    ],
};
