//! lmbench's summary tables, one module each, in lmbench's print order:
//! each table's columns and the metrics each reads. What a computed column
//! or a table's notes work out from a run is in `crate::analysis`.

mod cache_line;
mod comm_bw;
mod comm_lat;
mod ctx;
mod fs_vm;
mod mem_lat;
mod modern;
mod ops;
mod processes;
mod remote;
mod scaling;
mod sysparams;

pub use cache_line::CACHE_LINE;
pub use comm_bw::{COMM_BW, COMM_BW_PINNED};
pub use comm_lat::{COMM_LAT, COMM_LAT_PINNED};
pub use ctx::{CTX, CTX_PINNED};
pub use fs_vm::FS_VM;
pub use mem_lat::{MEM_LAT, MEM_RAND};
pub use modern::{MODERN, MODERN_PROC};
pub use ops::{OPS_DOUBLE, OPS_FLOAT, OPS_INT, OPS_INT64};
pub use processes::PROCESSES;
pub use remote::{remote_metrics, REMOTE_BW, REMOTE_LAT};
pub use scaling::{SCALING, SCALING_AGG};
pub use sysparams::{tlb_pages, SYSPARAMS};

use super::{Column, Metric, Source, Table, Unit};

/// Every table, in the order lmbench's summary prints them.
pub static TABLES: &[&Table] = &[
    &SYSPARAMS,
    &PROCESSES,
    &OPS_INT,
    &OPS_INT64,
    &OPS_FLOAT,
    &OPS_DOUBLE,
    &CTX,
    &CTX_PINNED,
    &COMM_LAT,
    &COMM_LAT_PINNED,
    &REMOTE_LAT,
    &FS_VM,
    &COMM_BW,
    &COMM_BW_PINNED,
    &REMOTE_BW,
    &MEM_LAT,
    &MEM_RAND,
    &CACHE_LINE,
    &MODERN,
    &MODERN_PROC,
    &SCALING,
    &SCALING_AGG,
];

/// lmbench's tables of round trips and streams between processes left
/// where the scheduler puts them, each beside the table of the same
/// columns measured with every end on one CPU. On a VM the first is a
/// placement lottery (a ring sharing a vCPU or not, 2 us or 34 us in one
/// run) whose run-to-run spread hides a kernel's change of several
/// percent; the pinned twin runs the same kernel path and repeats to a
/// few percent. `compare`
/// answers a column its own figure cannot settle with the column of the
/// same header in the twin table, and says so.
pub static PINNED_TWINS: [(&Table, &Table); 3] = [
    (&CTX, &CTX_PINNED),
    (&COMM_LAT, &COMM_LAT_PINNED),
    (&COMM_BW, &COMM_BW_PINNED),
];

/// The columns lmbench 3's own summary prints, its local tables (the
/// remote ones left out), by [`Table::cell_key`]: what "lmbench's
/// columns" means wherever the suite measures itself against them
/// (`compare` counts the share of them that can detect the threshold,
/// and answers their unpinned round trips with pinned twins). The
/// importer's layouts of lmbench 3.0 posts are tested to read exactly
/// these.
pub static LMBENCH3_COLUMNS: &[&str] = &[
    "sysparams/Mhz",
    "sysparams/tlb pages",
    "sysparams/cache line",
    "sysparams/mem par",
    "sysparams/scal load",
    "processes/Mhz",
    "processes/null call",
    "processes/null I/O",
    "processes/stat",
    "processes/open clos",
    "processes/slct TCP",
    "processes/sig inst",
    "processes/sig hndl",
    "processes/fork proc",
    "processes/exec proc",
    "processes/sh proc",
    "ops_int/intgr bit",
    "ops_int/intgr add",
    "ops_int/intgr mul",
    "ops_int/intgr div",
    "ops_int/intgr mod",
    "ops_int64/int64 bit",
    "ops_int64/int64 add",
    "ops_int64/int64 mul",
    "ops_int64/int64 div",
    "ops_int64/int64 mod",
    "ops_float/float add",
    "ops_float/float mul",
    "ops_float/float div",
    "ops_float/float bogo",
    "ops_double/double add",
    "ops_double/double mul",
    "ops_double/double div",
    "ops_double/double bogo",
    "ctx/2p/0K ctxsw",
    "ctx/2p/16K ctxsw",
    "ctx/2p/64K ctxsw",
    "ctx/8p/16K ctxsw",
    "ctx/8p/64K ctxsw",
    "ctx/16p/16K ctxsw",
    "ctx/16p/64K ctxsw",
    "comm_lat/2p/0K ctxsw",
    "comm_lat/Pipe",
    "comm_lat/AF UNIX",
    "comm_lat/UDP",
    "comm_lat/RPC/ UDP",
    "comm_lat/TCP",
    "comm_lat/RPC/ TCP",
    "comm_lat/TCP conn",
    "fs_vm/0K File Create",
    "fs_vm/0K File Delete",
    "fs_vm/10K File Create",
    "fs_vm/Delete",
    "fs_vm/Mmap Latency",
    "fs_vm/Prot Fault",
    "fs_vm/Page Fault",
    "fs_vm/100fd selct",
    "comm_bw/Pipe",
    "comm_bw/AF UNIX",
    "comm_bw/TCP",
    "comm_bw/File reread",
    "comm_bw/Mmap reread",
    "comm_bw/Bcopy (libc)",
    "comm_bw/Bcopy (hand)",
    "comm_bw/Mem read",
    "comm_bw/Mem write",
    "mem_lat/Mhz",
    "mem_lat/L1 $",
    "mem_lat/L2 $",
    "mem_lat/Main mem",
    "mem_lat/Rand mem",
];

/// [`LMBENCH3_COLUMNS`] as (table, column index), in that order.
pub fn lmbench3_columns() -> Vec<(&'static Table, usize)> {
    LMBENCH3_COLUMNS
        .iter()
        .filter_map(|key| {
            TABLES.iter().find_map(|t| {
                (0..t.columns.len())
                    .find(|&i| t.cell_key(i) == *key)
                    .map(|i| (*t, i))
            })
        })
        .collect()
}

/// The column of `table` (at index `i`) in its pinned twin table: the one
/// of the same header, if the table has a twin and the twin that column.
pub fn pinned_twin(table: &Table, i: usize) -> Option<&'static Column> {
    let (_, twin) = PINNED_TWINS.iter().find(|(t, _)| std::ptr::eq(*t, table))?;
    let header = table.columns.get(i)?.header;
    twin.columns.iter().find(|c| c.header == header)
}

/// What the clock columns read: the mhz program's two chains.
fn mhz_inputs() -> Vec<&'static Metric> {
    vec![&super::mhz::ADD, &super::mhz::XOR]
}

/// The clock columns' header.
pub const MHZ_HEADER: &str = "Mhz";

/// The clock column of the tables that open with one (lmbench's first
/// column), `width` wide.
pub const fn mhz_column(width: usize) -> Column {
    Column::new(
        MHZ_HEADER,
        "",
        width,
        Source::Computed(mhz_inputs, crate::analysis::mhz::mhz),
    )
    .in_unit(Unit::Mhz)
}
