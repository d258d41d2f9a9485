use crate::catalog::{Column, Source, Table, Unit};

pub static COMM_LAT: Table = Table {
    key: "comm_lat",
    title: "*Local* Communication latencies in microseconds - smaller is better",
    unit: Unit::Micros,
    columns: &[
        Column::new("2p/0K", "ctxsw", 5, Source::Pending),
        Column::new("Pipe", "", 5, Source::Pending),
        Column::new("AF", "UNIX", 5, Source::Pending),
        Column::new("UDP", "", 5, Source::Pending),
        Column::new("RPC/", "UDP", 5, Source::Pending),
        Column::new("TCP", "", 5, Source::Pending),
        Column::new("RPC/", "TCP", 5, Source::Pending),
        Column::new("TCP", "conn", 5, Source::Pending),
    ],
};
