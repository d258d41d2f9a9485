//! "Memory latencies in nanoseconds", with an L3 column lmbench's table
//! predates. The L1/L2/L3 points are chosen inside each level from the
//! machine's cache sizes (the OS's; the curve's where the OS is silent),
//! not at lmbench's fixed 1 KB and 128 KB; the notes say which sizes
//! were used and which levels the curve does not confirm (lmbench's
//! "Guesses"). What the columns compute is in `analysis::cache_levels`
//! and `analysis::mem_curve`.
use crate::analysis::cache_levels::{in_level_value, level_value, mem_notes, rand_notes};
use crate::analysis::mem_curve::{in_page_mem, main_mem, page_walk, rand_mem, LEVEL_FN};
use crate::catalog::lat_mem_rd::{self as lm, INPAGE_FN, LOW_TOP, PAGE_FN, RAND_FN, TABLE_FN};
use crate::catalog::{Column, Metric, Source, Table, Unit};

pub static MEM_LAT: Table = Table {
    key: "mem_lat",
    title: "Memory latencies in nanoseconds - smaller is better",
    unit: Unit::Nanos,
    notes: mem_notes,
    columns: &[
        super::mhz_column(5),
        Column::new(
            "L1 $",
            "",
            6,
            Source::Computed(table_sweep, |r| level_value(r, 0)),
        ),
        Column::new(
            "L2 $",
            "",
            6,
            Source::Computed(table_sweep, |r| level_value(r, 1)),
        ),
        Column::new(
            "L3 $",
            "",
            6,
            Source::Computed(table_sweep, |r| level_value(r, 2)),
        ),
        Column::new(
            "Main mem",
            "",
            8,
            Source::Computed(|| top_points(TABLE_FN), main_mem),
        ),
        Column::new(
            "Rand mem",
            "",
            8,
            Source::Computed(|| top_points(RAND_FN), rand_mem),
        ),
    ],
};

/// The modern figures beside lmbench's: each level's latency from a chain
/// the prefetchers cannot follow (random lines within random pages, at the
/// middle of each level), memory's at the largest size, and the one-load-
/// per-page chain's (TLB misses and page walks, mostly cached lines).
pub static MEM_RAND: Table = Table {
    key: "mem_rand",
    title: "Memory latencies, random in level (not in lmbench) - times in nanoseconds",
    unit: Unit::Nanos,
    notes: rand_notes,
    columns: &[
        Column::new(
            "L1 $",
            "",
            6,
            Source::Computed(inpage_sweep, |r| in_level_value(r, 0)),
        ),
        Column::new(
            "L2 $",
            "",
            6,
            Source::Computed(inpage_sweep, |r| in_level_value(r, 1)),
        ),
        Column::new(
            "L3 $",
            "",
            6,
            Source::Computed(inpage_sweep, |r| in_level_value(r, 2)),
        ),
        Column::new(
            "Main mem",
            "",
            8,
            Source::Computed(|| top_points(INPAGE_FN), in_page_mem),
        ),
        Column::new(
            "TLB/page",
            "walk",
            8,
            Source::Computed(|| top_points(PAGE_FN), page_walk),
        ),
    ],
};

/// The points a level column may read: the whole stride-128 sweep (which
/// one depends on the machine's caches), and the curve that places the
/// levels the OS does not give.
fn table_sweep() -> Vec<&'static Metric> {
    lm::PROGRAM
        .function(TABLE_FN)
        .chain(lm::PROGRAM.function(LEVEL_FN))
        .collect()
}

/// The points a random-in-level column may read (as [`table_sweep`]).
fn inpage_sweep() -> Vec<&'static Metric> {
    lm::PROGRAM
        .function(INPAGE_FN)
        .chain(lm::PROGRAM.function(LEVEL_FN))
        .collect()
}

/// The points of chain `function` a run's top size can be at, then those
/// `analysis::mem_curve::run_top` reads to find it.
fn top_points(function: &str) -> Vec<&'static Metric> {
    let mut v: Vec<&'static Metric> = Vec::new();
    for f in [function, RAND_FN, TABLE_FN] {
        for (s, m) in lm::metrics_by_size(f) {
            if s >= LOW_TOP && !v.iter().any(|x| std::ptr::eq(*x, m)) {
                v.push(m);
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rand_mem_reads_lmbenchs_thrash_chain_from_the_lowest_top_size() {
        // Not the page walk; every top size a run can have is a source.
        let top = top_points(RAND_FN);
        assert_eq!(top.first().map(|m| m.id), Some("lat_mem_rd/thrash/64m"));
        assert!(top.iter().any(|m| m.id == "lat_mem_rd/thrash/2g"));
        // A column's own chain first, then the chains run_top reads.
        let page = top_points(PAGE_FN);
        assert_eq!(page.first().map(|m| m.id), Some("lat_mem_rd/page/64m"));
        assert!(page.iter().any(|m| m.id == "lat_mem_rd/s128/2g"));
    }
}
