//! "Cache line (not in lmbench)": the OS's line and the two detectors'.
//! What each detector reads, and the notes, are in `analysis::cache_line`.
use crate::analysis::cache_line::{coherence_line, line_from_curve, line_notes, os_line};
use crate::catalog::lat_mem_rd as lm;
use crate::catalog::line;
use crate::catalog::{Column, Metric, Source, Table, Unit};

/// The line three ways, and the two costs the coherence line is read
/// between. Printed for a run with either detector's figures.
pub static CACHE_LINE: Table = Table {
    key: "cache_line",
    title: "Cache line (not in lmbench) - bytes; atomic adds in nanoseconds",
    unit: Unit::Count,
    notes: line_notes,
    columns: &[
        Column::new("OS", "line", 5, Source::Fact(|r| as_f64(os_line(r)))),
        Column::new(
            "coher",
            "line",
            5,
            Source::Computed(coherence_inputs, |r| as_f64(coherence_line(r))),
        ),
        Column::new(
            "laten",
            "line",
            5,
            Source::Computed(latency_inputs, |r| as_f64(line_from_curve(r))),
        ),
        Column::new("add 8B", "apart", 7, Source::Metric(&line::D8)),
        Column::new("add 4K", "apart", 7, Source::Metric(&line::D4K)),
    ],
};

fn as_f64(b: Option<u64>) -> Option<f64> {
    b.map(|b| b as f64)
}

fn coherence_inputs() -> Vec<&'static Metric> {
    line::PROGRAM.metrics.to_vec()
}

fn latency_inputs() -> Vec<&'static Metric> {
    lm::LINE_SHAPES
        .iter()
        .filter_map(|(f, _)| lm::point(f, lm::LINE_SIZE))
        .collect()
}
