//! mhz: the clock, from dependency chains of 1-cycle instructions. Ids:
//! `mhz/<add|xor>`; the summary's Mhz is 1000 / ns per step when the two
//! chains agree.
use super::{Headline, Metric, Program, Unit};

pub static ADD: Metric = Metric {
    id: "mhz/add",
    unit: Unit::Nanos,
    headline: Headline::Min,
    timed: "one 64-bit x = x + k of a dependency chain: 1 cycle on every CPU this targets",
};
pub static XOR: Metric = Metric {
    id: "mhz/xor",
    unit: Unit::Nanos,
    headline: Headline::Min,
    timed: "one 64-bit x = x ^ k of a dependency chain: 1 cycle, the check on the add chain",
};

pub static PROGRAM: Program = Program {
    name: "mhz",
    about: "the processor clock from 1-cycle dependency chains (ns per cycle, minimum)",
    metrics: &[&ADD, &XOR],
};
