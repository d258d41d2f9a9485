use crate::catalog::{Column, Source, Table, Unit};

pub static FS_VM: Table = Table {
    key: "fs_vm",
    title: "File & VM system latencies in microseconds - smaller is better",
    unit: Unit::Micros,
    columns: &[
        Column::new("0K File", "Create", 6, Source::Pending),
        Column::new("", "Delete", 6, Source::Pending),
        Column::new("10K File", "Create", 8, Source::Pending),
        Column::new("", "Delete", 6, Source::Pending),
        Column::new("Mmap", "Latency", 7, Source::Pending),
        Column::new("Prot", "Fault", 5, Source::Pending),
        Column::new("Page", "Fault", 7, Source::Pending),
        Column::new(
            "100fd",
            "selct",
            5,
            Source::Metric(&crate::catalog::lat_select::FILE_100),
        ),
    ],
};
