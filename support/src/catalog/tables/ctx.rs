use crate::catalog::{Column, Source, Table, Unit};

pub static CTX: Table = Table {
    key: "ctx",
    title: "Context switching - times in microseconds - smaller is better",
    unit: Unit::Micros,
    columns: &[
        Column::new("2p/0K", "ctxsw", 6, Source::Pending),
        Column::new("2p/16K", "ctxsw", 6, Source::Pending),
        Column::new("2p/64K", "ctxsw", 6, Source::Pending),
        Column::new("8p/16K", "ctxsw", 6, Source::Pending),
        Column::new("8p/64K", "ctxsw", 6, Source::Pending),
        Column::new("16p/16K", "ctxsw", 7, Source::Pending),
        Column::new("16p/64K", "ctxsw", 7, Source::Pending),
    ],
};
