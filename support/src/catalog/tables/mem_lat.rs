use crate::catalog::{Column, Source, Table, Unit};

pub static MEM_LAT: Table = Table {
    key: "mem_lat",
    title: "Memory latencies in nanoseconds - smaller is better",
    unit: Unit::Nanos,
    columns: &[
        Column::new("Mhz", "", 5, Source::Derived(super::mhz)),
        Column::new("L1 $", "", 6, Source::Pending),
        Column::new("L2 $", "", 6, Source::Pending),
        Column::new("L3 $", "", 6, Source::Pending),
        Column::new("Main mem", "", 8, Source::Pending),
        Column::new("Rand mem", "", 8, Source::Pending),
    ],
};
