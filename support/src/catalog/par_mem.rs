//! par_mem: memory-level parallelism: k independent random chains through
//! a working set of the memory bandwidth top size (4x+ the last-level
//! cache), advanced in lock step. Ids: `par_mem/chains/<k>`.
use super::{Headline, Metric, Program, Unit};

macro_rules! ks {
    ($($k:literal)*) => {
        &[$(&Metric {
            id: concat!("par_mem/chains/", $k),
            unit: Unit::Nanos,
            headline: Headline::Min,
            timed: concat!("one hop of each of ", $k, " independent thrash chains (every line once, consecutive loads on different pages) through 4x+ the last-level cache (", $k, " loads that may overlap)"),
        },)*]
    };
}

pub static PROGRAM: Program = Program {
    name: "par_mem",
    about: "memory-level parallelism: k independent chains at the largest size (ns per k-load hop, minimum)",
    metrics: ks!(1 2 3 4 6 8 12 16 24 32),
};

/// Chain count of a metric of this program.
pub fn k_of(m: &Metric) -> Option<usize> {
    m.function_and_parameter().1?.parse().ok()
}
