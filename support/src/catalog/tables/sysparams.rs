use crate::catalog::{Column, Source, Table, Unit};

pub static SYSPARAMS: Table = Table {
    key: "sysparams",
    title: "Basic system parameters",
    unit: Unit::Count,
    columns: &[
        Column::new("Mhz", "", 5, Source::Derived(super::mhz)),
        Column::new("tlb", "pages", 5, Source::Pending),
        Column::new("cache", "line", 5, Source::Pending),
        Column::new("mem", "par", 6, Source::Pending),
        Column::new("scal", "load", 4, Source::Pending),
    ],
};
