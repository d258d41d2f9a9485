//! tlb: how many pages a chain can touch before its loads slow down: one
//! load per 4 KB page versus the same number of loads packed in adjacent
//! cache lines. Ids: `tlb/<pages|lines>/<count>`.
use super::{Headline, Metric, Program, Unit};

/// Counts: 8 steps per doubling from 8 to 8192 (8, 9, .., 15, 16, 18, ..,
/// 64, 72, 80, ..): the sweep measures the powers of two and bisects
/// between the last flat one and the first slow one (see benches/tlb.rs).
/// The two function words are spelled once: [`function`]'s constants and
/// the ids come from them.
macro_rules! program {
    ($n1:ident = $f1:tt: $d1:literal; $n2:ident = $f2:tt: $d2:literal;) => {
        program!(@ $n1 = $f1: $d1, $n2 = $f2: $d2, [
            "8", "9", "10", "11", "12", "13", "14", "15", "16", "18", "20", "22", "24", "26", "28",
            "30", "32", "36", "40", "44", "48", "52", "56", "60", "64", "72", "80", "88", "96", "104",
            "112", "120", "128", "144", "160", "176", "192", "208", "224", "240", "256", "288", "320",
            "352", "384", "416", "448", "480", "512", "576", "640", "704", "768", "832", "896", "960",
            "1024", "1152", "1280", "1408", "1536", "1664", "1792", "1920", "2048", "2304", "2560",
            "2816", "3072", "3328", "3584", "3840", "4096", "4608", "5120", "5632", "6144", "6656",
            "7168", "7680", "8192"
        ]);
    };
    (@ $n1:ident = $f1:tt: $d1:literal, $n2:ident = $f2:tt: $d2:literal, [$($n:literal),*]) => {
        /// The two chains' function words (Criterion function ids).
        pub mod function {
            pub const $n1: &str = $f1;
            pub const $n2: &str = $f2;
        }

        pub static PROGRAM: Program = Program {
            name: "tlb",
            about: "TLB reach: one load per page vs the same loads packed in cache lines (ns per load, minimum)",
            metrics: &[
                $(&Metric { id: concat!("tlb/", $f1, "/", $n), unit: Unit::Nanos, headline: Headline::Min, timed: $d1 },)*
                $(&Metric { id: concat!("tlb/", $f2, "/", $n), unit: Unit::Nanos, headline: Headline::Min, timed: $d2 },)*
            ],
        };
    };
}

program! {
    PAGES = "pages": "one dependent load of a random-order chain with one slot per 4 KB base page (line staggered), over N pages";
    LINES = "lines": "one dependent load of a random-order chain with one slot per 64 B line, over N adjacent lines";
}

/// How much slower one load per page may be than the same loads packed in
/// lines before we say the TLB ran out (lmbench's 15 %).
pub const SLOWDOWN: f64 = 1.15;

/// The metric of `function` ([`function::PAGES`] or [`function::LINES`])
/// at `count`.
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
        .filter(|m| m.function_and_parameter().0 == function::PAGES)
        .filter_map(|m| m.function_and_parameter().1?.parse().ok())
        .collect();
    v.sort_unstable();
    v
}
