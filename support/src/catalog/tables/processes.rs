use crate::catalog::{
    lat_proc, lat_select, lat_sig, lat_syscall, no_notes, Column, Source, Table, Unit,
};

pub static PROCESSES: Table = Table {
    key: "processes",
    title: "Processor, Processes - times in microseconds - smaller is better",
    unit: Unit::Micros,
    notes: no_notes,
    columns: &[
        super::mhz_column(4),
        Column::new("null", "call", 4, Source::Metric(&lat_syscall::NULL)),
        Column::new(
            "null",
            "I/O",
            4,
            Source::Mean(&[&lat_syscall::READ, &lat_syscall::WRITE]),
        ),
        Column::new("stat", "", 4, Source::Metric(&lat_syscall::STAT)),
        Column::new("open", "clos", 4, Source::Metric(&lat_syscall::OPEN)),
        Column::new("slct", "TCP", 4, Source::Metric(&lat_select::TCP_100)),
        Column::new("sig", "inst", 4, Source::Metric(&lat_sig::INSTALL)),
        Column::new(
            "sig",
            "hndl",
            4,
            Source::Minus(&lat_sig::CATCH, &lat_sig::KILL),
        ),
        Column::new("fork", "proc", 4, Source::Metric(&lat_proc::FORK)),
        Column::new("exec", "proc", 4, Source::Metric(&lat_proc::EXEC)),
        Column::new("sh", "proc", 4, Source::Metric(&lat_proc::SHELL)),
    ],
};
