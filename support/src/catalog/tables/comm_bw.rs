use crate::catalog::{Column, Source, Table, Unit};

pub static COMM_BW: Table = Table {
    key: "comm_bw",
    title: "*Local* Communication bandwidths in MB/s - bigger is better",
    unit: Unit::MBps,
    columns: &[
        Column::new("Pipe", "", 5, Source::Pending),
        Column::new("AF", "UNIX", 5, Source::Pending),
        Column::new("TCP", "", 5, Source::Pending),
        Column::new("File", "reread", 6, Source::Pending),
        Column::new("Mmap", "reread", 6, Source::Pending),
        Column::new("Bcopy", "(libc)", 6, Source::Pending),
        Column::new("Bcopy", "(hand)", 6, Source::Pending),
        Column::new("Mem", "read", 5, Source::Pending),
        Column::new("Mem", "write", 5, Source::Pending),
    ],
};
