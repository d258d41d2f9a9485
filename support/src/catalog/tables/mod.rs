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

use super::{Column, Lookup, Metric, Source, Table, Unit};

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
    Column::new(MHZ_HEADER, "", width, Source::Computed(mhz_inputs, mhz)).in_unit(Unit::Mhz)
}

/// The clock in MHz: measured by the mhz program (its add and xor chains,
/// see [`measured_mhz`]) when the run has both and they agree, else the
/// OS's nominal figure (machine fact `cpu_mhz`).
pub fn mhz(run: &dyn Lookup) -> Option<f64> {
    measured_mhz(run).or_else(|| nominal_mhz(run))
}

/// The OS's nominal clock (machine fact `cpu_mhz`).
pub fn nominal_mhz(run: &dyn Lookup) -> Option<f64> {
    run.fact("cpu_mhz")?.trim().parse::<f64>().ok()
}

/// The clock measured by the mhz program from two dependency chains of
/// 1-cycle instructions (64-bit add and xor): 1000 / ns per step, only
/// when the two agree within 15 % (the check that both ran as one
/// instruction per step).
pub fn measured_mhz(run: &dyn Lookup) -> Option<f64> {
    use super::mhz::{ADD, XOR};
    let add = 1e3 / run.value(&ADD)?;
    let xor = 1e3 / run.value(&XOR)?;
    let (lo, hi) = (add.min(xor), add.max(xor));
    (lo > 0.0 && hi.is_finite() && hi <= 1.15 * lo).then_some(hi)
}
