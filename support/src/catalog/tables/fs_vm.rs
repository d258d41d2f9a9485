use crate::catalog::lat_fs as fs;
use crate::catalog::lat_mmap as mmap;
use crate::catalog::lat_pagefault as pf;
use crate::catalog::lat_sig as sig;
use crate::catalog::{no_notes, Column, Source, Table, Unit};

pub static FS_VM: Table = Table {
    key: "fs_vm",
    title: "File & VM system latencies in microseconds - smaller is better",
    unit: Unit::Micros,
    notes: no_notes,
    columns: &[
        Column::new("0K File", "Create", 6, Source::Metric(&fs::CREATE_0K)),
        Column::new("", "Delete", 6, Source::Metric(&fs::DELETE_0K)),
        Column::new("10K File", "Create", 8, Source::Metric(&fs::CREATE_10K)),
        Column::new("", "Delete", 6, Source::Metric(&fs::DELETE_10K)),
        Column::new(
            "Mmap",
            "Latency",
            7,
            Source::Computed(|| mmap::ALL.to_vec(), mmap::largest),
        ),
        Column::new(
            "Prot",
            "Fault",
            5,
            Source::Computed(|| sig::PROT_FAULT_INPUTS.to_vec(), sig::prot_fault),
        ),
        Column::new(
            "Page",
            "Fault",
            7,
            Source::Minus(&pf::PAGE, &pf::PAGE_REMAP),
        ),
        Column::new(
            "100fd",
            "selct",
            5,
            Source::Metric(&crate::catalog::lat_select::FILE_100),
        ),
    ],
};
