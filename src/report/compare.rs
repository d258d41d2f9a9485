//! `compare`'s report: the model of a comparison of two runs with
//! samples, in every format. The text format shows the runs, the machine
//! facts that differ, whether the machine itself changed, a row per metric,
//! the counts and the notes on the test and the noise (`text`, `notes`);
//! Markdown the runs, the facts, the rows and the counts (`formats`),
//! both from the same cells (`row_cells`); CSV a record per row and JSON
//! the whole comparison (`formats`). What a verdict is, is the
//! comparison's (`verdict::Comparison`); this builds the model once, and
//! the writers in `format` only lay it out.

use crate::format::{self, Format, Report};
use crate::run::Run;
use crate::verdict::Comparison;

mod formats;
mod notes;
mod row_cells;
mod text;

/// The facts that differ: (key, old, new); absent facts show as "(absent)".
pub fn fact_diff(old: &Run, new: &Run) -> Vec<(String, String, String)> {
    let keys: std::collections::BTreeSet<&String> =
        old.machine.0.keys().chain(new.machine.0.keys()).collect();
    let show = |r: &Run, k: &str| {
        r.machine
            .get(k)
            .map_or("(absent)".to_string(), |v| v.replace('\n', "; "))
    };
    keys.into_iter()
        .filter(|k| old.machine.get(k) != new.machine.get(k))
        .map(|k| (k.clone(), show(old, k), show(new, k)))
        .collect()
}

/// The model of the comparison `c` of `old` and `new`, in every format;
/// `busy_cpus` is the busy threshold it was made with.
pub fn report(old: &Run, new: &Run, c: &Comparison, busy_cpus: f64) -> Report {
    let diff = fact_diff(old, new);
    let mut blocks = text::blocks(old, new, c, busy_cpus, &diff);
    blocks.extend(formats::markdown(old, new, c, &diff));
    Report {
        blocks,
        records: formats::records(c),
        data: formats::data(old, new, c, &diff),
    }
}

/// The comparison as text (what `run --against`, `check` and `kernels`
/// print).
pub fn render(old: &Run, new: &Run, c: &Comparison, busy_cpus: f64) -> String {
    format::render(&report(old, new, c, busy_cpus), Format::Text)
        .expect("the text writer has no way to fail")
}

/// The rows the comparison calls regressions at `limit` percent, as "id
/// (+x.y%)": the list `compare --fail-on-regression` and `check` end with.
pub fn regressions(c: &Comparison, limit: f64) -> Vec<String> {
    c.regressions(limit)
        .map(|r| format!("{} (+{:.1}%)", r.id, r.time_change_pct))
        .collect()
}
