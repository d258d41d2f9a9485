//! Basic system parameters. Mhz is measured (the mhz program's 1-cycle
//! chains, see `analysis::mhz::measured_mhz`); "OS" beside it is the nominal figure the OS reports.
//! tlb pages, cache line and mem par are derived from the tlb, lat_mem_rd
//! and par_mem curves.
use crate::catalog::{no_notes, par_mem, tlb, Column, Lookup, Metric, Source, Table, Unit};

pub static SYSPARAMS: Table = Table {
    key: "sysparams",
    title: "Basic system parameters",
    unit: Unit::Count,
    notes: no_notes,
    columns: &[
        super::mhz_column(5),
        Column::new(
            super::MHZ_HEADER,
            "OS",
            5,
            Source::Fact(crate::analysis::mhz::nominal_mhz),
        )
        .in_unit(Unit::Mhz),
        Column::new(
            "tlb",
            "pages",
            5,
            Source::Computed(|| tlb::PROGRAM.metrics.to_vec(), tlb_pages),
        ),
        Column::new("cache", "line", 5, Source::Fact(cache_line)),
        Column::new(
            "mem",
            "par",
            6,
            Source::Computed(|| par_mem::PROGRAM.metrics.to_vec(), mem_par),
        ),
        Column::new("scal", "load", 4, Source::Computed(scal_inputs, scal_load)),
    ],
};

use crate::catalog::tlb::SLOWDOWN as TLB_SLOWDOWN;

/// The largest page count whose one-per-page chain is at most 15 % slower
/// than the packed chain, with every smaller measured count also within
/// 15 % (the sweep measures the powers of two and bisects finer counts
/// between them, so most counts are absent).
pub fn tlb_pages(run: &dyn Lookup) -> Option<f64> {
    let mut last_ok = None;
    for n in tlb::counts() {
        let (Some(p), Some(l)) = (
            run.value(tlb::point(tlb::function::PAGES, n)?),
            run.value(tlb::point(tlb::function::LINES, n)?),
        ) else {
            continue;
        };
        if p > TLB_SLOWDOWN * l {
            return last_ok;
        }
        last_ok = Some(n as f64);
    }
    last_ok
}

/// The OS's cache line; without one, the coherence detector's, else the
/// latency detector's (see `analysis::cache_line`).
pub fn cache_line(run: &dyn Lookup) -> Option<f64> {
    crate::analysis::cache_line::cache_line(run).map(|b| b as f64)
}

/// The best speed-up of k independent chains over one: max over k of
/// k * t(1) / t(k).
pub fn mem_par(run: &dyn Lookup) -> Option<f64> {
    let one = par_mem::PROGRAM.metrics.first()?;
    let t1 = run.value(one)?;
    par_mem::PROGRAM
        .metrics
        .iter()
        .filter_map(|m| Some(par_mem::k_of(m)? as f64 * t1 / run.value(m)?))
        .reduce(f64::max)
}

/// What the scal load column reads: the columns it stands beside.
fn scal_inputs() -> Vec<&'static Metric> {
    tlb::PROGRAM
        .metrics
        .iter()
        .chain(par_mem::PROGRAM.metrics)
        .copied()
        .collect()
}

/// The parallelism of the run: the `scal_load` fact if set, else 1 when
/// the run has any system-parameter figure.
pub fn scal_load(run: &dyn Lookup) -> Option<f64> {
    if let Some(v) = run.fact("scal_load").and_then(|s| s.parse().ok()) {
        return Some(v);
    }
    (tlb_pages(run).is_some() || mem_par(run).is_some()).then_some(1.0)
}
