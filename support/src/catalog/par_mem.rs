//! par_mem: memory-level parallelism: k independent random chains through
//! the largest working set, advanced in lock step. Ids: `par_mem/chains/<k>`.
use super::{Headline, Metric, Program, Unit};

/// The working set the chains share (lat_mem_rd's largest size).
pub const SIZE: u64 = super::lat_mem_rd::MAX_SIZE;

macro_rules! ks {
    ($($k:literal)*) => {
        &[$(&Metric {
            id: concat!("par_mem/chains/", $k),
            unit: Unit::Nanos,
            headline: Headline::Min,
            timed: concat!("one hop of each of ", $k, " independent random one-per-page chains through 1 GiB (", $k, " loads that may overlap)"),
        },)*]
    };
}

pub static PROGRAM: Program = Program {
    name: "par_mem",
    about: "memory-level parallelism: k independent chains at the largest size (ns per k-load hop, minimum)",
    metrics: ks!(1 2 3 4 6 8 12 16),
};

/// Chain count of a metric of this program.
pub fn k_of(m: &Metric) -> Option<usize> {
    m.function_and_parameter().1?.parse().ok()
}
