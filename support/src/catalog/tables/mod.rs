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
