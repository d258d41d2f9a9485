//! tlb: how many pages a chain can touch before its loads slow down: one
//! load per 4 KB page versus the same number of loads packed in adjacent
//! cache lines. Ids: `tlb/<pages|lines>/<count>`.
use super::{Headline, Metric, Program, Unit};

macro_rules! counts {
    ($($fun:literal : $doc:literal;)*) => {
        &[$(
            &Metric { id: concat!("tlb/", $fun, "/8"), unit: Unit::Nanos, headline: Headline::Min, timed: $doc },
            &Metric { id: concat!("tlb/", $fun, "/16"), unit: Unit::Nanos, headline: Headline::Min, timed: $doc },
            &Metric { id: concat!("tlb/", $fun, "/32"), unit: Unit::Nanos, headline: Headline::Min, timed: $doc },
            &Metric { id: concat!("tlb/", $fun, "/64"), unit: Unit::Nanos, headline: Headline::Min, timed: $doc },
            &Metric { id: concat!("tlb/", $fun, "/128"), unit: Unit::Nanos, headline: Headline::Min, timed: $doc },
            &Metric { id: concat!("tlb/", $fun, "/256"), unit: Unit::Nanos, headline: Headline::Min, timed: $doc },
            &Metric { id: concat!("tlb/", $fun, "/512"), unit: Unit::Nanos, headline: Headline::Min, timed: $doc },
            &Metric { id: concat!("tlb/", $fun, "/1024"), unit: Unit::Nanos, headline: Headline::Min, timed: $doc },
            &Metric { id: concat!("tlb/", $fun, "/2048"), unit: Unit::Nanos, headline: Headline::Min, timed: $doc },
            &Metric { id: concat!("tlb/", $fun, "/4096"), unit: Unit::Nanos, headline: Headline::Min, timed: $doc },
            &Metric { id: concat!("tlb/", $fun, "/8192"), unit: Unit::Nanos, headline: Headline::Min, timed: $doc },
        )*]
    };
}

pub static PROGRAM: Program = Program {
    name: "tlb",
    about: "TLB reach: one load per page vs the same loads packed in cache lines (ns per load, minimum)",
    metrics: counts! {
        "pages": "one dependent load of a random-order chain with one slot per 4 KB base page (line staggered), over N pages";
        "lines": "one dependent load of a random-order chain with one slot per 64 B line, over N adjacent lines";
    },
};

/// The metric of `function` ("pages" or "lines") at `count`.
pub fn point(function: &str, count: u64) -> Option<&'static Metric> {
    PROGRAM
        .metrics
        .iter()
        .copied()
        .find(|m| m.function_and_parameter() == (function, Some(count.to_string().as_str())))
}

/// The counts of the sweep, increasing.
pub fn counts() -> Vec<u64> {
    let mut v: Vec<u64> = PROGRAM
        .metrics
        .iter()
        .filter(|m| m.function_and_parameter().0 == "pages")
        .filter_map(|m| m.function_and_parameter().1?.parse().ok())
        .collect();
    v.sort_unstable();
    v
}
