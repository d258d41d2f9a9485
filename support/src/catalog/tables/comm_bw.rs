//! "*Local* Communication bandwidths", and its pinned twin. What the
//! computed columns read at, and the notes, are in `analysis::bandwidth`.
use crate::analysis::bandwidth::{
    bcopy_hand, bcopy_libc, bw_notes, file_reread, heap_reread, mem_read, mem_write, mmap_reread,
    thp_read, write_up,
};
use crate::catalog::bw_file_rd::mode::IO_ONLY;
use crate::catalog::bw_mem::mode::{BCOPY, BREAD, FCP, FRD, FRD_HUGE, FWR, FWR_UP};
use crate::catalog::bw_mmap_rd::mode::MMAP_ONLY;
use crate::catalog::{
    bw_file_rd, bw_mem, bw_mmap_rd, bw_pipe, bw_tcp, bw_unix, Column, Metric, Program, Source,
    Table, Unit,
};

/// Not an lmbench table: the local stream bandwidths with the bench and
/// its writer bound to one CPU (as `comm_lat_pinned` for the round trips),
/// a stable figure beside lmbench's placement-dependent one on a VM.
pub static COMM_BW_PINNED: Table = Table {
    key: "comm_bw_pinned",
    title: "*Local* Communication bandwidths, both ends on one CPU (not in lmbench) - MB/s, bigger is better",
    unit: Unit::MBps,
    notes: crate::catalog::no_notes,
    columns: &[
        Column::new("Pipe", "", 5, Source::Metric(&bw_pipe::PINNED_64K)),
        Column::new("AF", "UNIX", 5, Source::Metric(&bw_unix::PINNED_64K)),
        Column::new("TCP", "", 5, Source::Metric(&bw_tcp::PINNED_10M)),
    ],
};

pub static COMM_BW: Table = Table {
    key: "comm_bw",
    title: "*Local* Communication bandwidths in MB/s - bigger is better",
    unit: Unit::MBps,
    notes: bw_notes,
    columns: &[
        Column::new("Pipe", "", 5, Source::Metric(&bw_pipe::READ_64K)),
        Column::new("AF", "UNIX", 5, Source::Metric(&bw_unix::READ_64K)),
        Column::new("TCP", "", 5, Source::Metric(&bw_tcp::READ_10M)),
        Column::new(
            "File",
            "reread",
            6,
            Source::Computed(|| reread_inputs(&bw_file_rd::PROGRAM, IO_ONLY), file_reread),
        ),
        Column::new(
            "Mmap",
            "reread",
            6,
            Source::Computed(
                || reread_inputs(&bw_mmap_rd::PROGRAM, MMAP_ONLY),
                mmap_reread,
            ),
        ),
        Column::new(
            "Bcopy",
            "(libc)",
            6,
            Source::Computed(|| mem_inputs(BCOPY), bcopy_libc),
        ),
        Column::new(
            "Bcopy",
            "(hand)",
            6,
            Source::Computed(|| mem_inputs(FCP), bcopy_hand),
        ),
        Column::new(
            "Mem",
            "read",
            5,
            Source::Computed(|| mem_inputs(FRD), mem_read),
        ),
        Column::new(
            "Mem",
            "write",
            5,
            Source::Computed(|| mem_inputs(FWR), mem_write),
        ),
        // Not in lmbench: after its columns (imports place by position).
        Column::new(
            "THP",
            "read",
            5,
            Source::Computed(|| reread_inputs(&bw_mem::PROGRAM, FRD_HUGE), thp_read),
        ),
        Column::new(
            "Heap",
            "reread",
            6,
            Source::Computed(|| reread_inputs(&bw_mem::PROGRAM, BREAD), heap_reread),
        ),
        Column::new(
            "Write",
            "up",
            5,
            Source::Computed(|| mem_inputs(FWR_UP), write_up),
        ),
    ],
};

/// Every size of one bw_mem mode.
fn mem_inputs(mode: &str) -> Vec<&'static Metric> {
    bw_mem::PROGRAM.function(mode).collect()
}

/// Every size of one reread mode, and Mem read's sizes (which choose the
/// reread's).
fn reread_inputs(program: &'static Program, mode: &str) -> Vec<&'static Metric> {
    program.function(mode).chain(mem_inputs(FRD)).collect()
}
