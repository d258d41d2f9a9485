//! lmbench's summary tables, one module each, in lmbench's print order.
//! Columns whose bench does not exist yet are `Source::Pending` and print `-`.

mod comm_bw;
mod comm_lat;
mod ctx;
mod fs_vm;
mod mem_lat;
mod ops;
mod processes;
mod sysparams;

pub use comm_bw::COMM_BW;
pub use comm_lat::COMM_LAT;
pub use ctx::{CTX, CTX_PINNED};
pub use fs_vm::FS_VM;
pub use mem_lat::MEM_LAT;
pub use ops::{OPS_DOUBLE, OPS_FLOAT, OPS_INT, OPS_INT64};
pub use processes::PROCESSES;
pub use sysparams::SYSPARAMS;

use super::{Lookup, Table};

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
    &FS_VM,
    &COMM_BW,
    &MEM_LAT,
];

/// The clock in MHz: the OS's nominal figure (machine fact `cpu_mhz`) until
/// a measured clock exists in the catalog.
pub fn mhz(run: &dyn Lookup) -> Option<f64> {
    run.fact("cpu_mhz")?.trim().parse::<f64>().ok()
}
