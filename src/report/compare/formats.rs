//! `compare`'s model for Markdown, CSV and JSON (text's blocks are
//! `text`'s).

use crate::format::document::{Align, Block, Cell, Column, Field, Records, Shown, Table};
use crate::run::Run;
use crate::verdict::{self, Comparison, Row, Verdict};

use super::row_cells::{self, Cells};
use super::text::counts;

/// The comparison as Markdown, for a report or an issue: the runs, the
/// facts that differ, whether the machine itself changed, a row per metric
/// with the text table's cells, and the counts. (The text report's notes on
/// the test and the noise stay in the text format.)
pub fn markdown(
    old: &Run,
    new: &Run,
    c: &Comparison,
    diff: &[(String, String, String)],
) -> Vec<Block> {
    let prose = |s: String| Block::Prose(Shown::Markdown, s);
    let table = |names: &[&str], rows: Vec<Vec<Cell>>| {
        Block::Table(
            Shown::Markdown,
            Table {
                columns: names
                    .iter()
                    .map(|n| Column::new(n, 0, Align::Left))
                    .collect(),
                rows,
                ..Table::default()
            },
        )
    };
    let mut out = vec![Block::Heading(
        2,
        format!("`{}` → `{}`", old.host(), new.host()),
    )];
    if diff.is_empty() {
        out.push(prose("Machine facts: no difference.\n\n".into()));
    } else {
        out.push(table(
            &["machine fact", "old", "new"],
            diff.iter()
                .map(|(k, o, n)| vec![Cell::text(k), Cell::text(o), Cell::text(n)])
                .collect(),
        ));
        out.push(prose("\n".into()));
    }
    for (changed, what) in [
        (c.drift.machine_changed(), "CPU-only metrics"),
        (c.memory.machine_changed(), "main-memory metrics"),
        (c.shared.machine_changed(), "shared-cache metrics"),
    ] {
        if changed {
            out.push(prose(format!(
                "**The machine itself changed**: the {what} moved together \
                 (see the text report).\n\n"
            )));
        }
    }
    let (judged, busy): (Vec<&Row>, Vec<&Row>) =
        c.rows.iter().partition(|r| r.verdict != Verdict::Busy);
    out.push(table(
        &row_cells::HEADERS,
        judged
            .iter()
            .chain(&busy)
            .map(|r| Cells::of(r).all().map(Cell::text).to_vec())
            .collect(),
    ));
    out.push(prose(format!("\n{}\n", counts(c, busy.len()))));
    out
}

/// The comparison as CSV, a row per metric with raw figures (no units in
/// the numbers, an empty field where there is none): for a spreadsheet or
/// a script. The facts that differ and the notes are in the other formats.
pub fn records(c: &Comparison) -> Records {
    let finite = |x: f64| Some(x).filter(|x| x.is_finite());
    let rows = c.rows.iter().map(|r| {
        let (lo, hi) = r.change_interval_pct().unzip();
        let t = r.test.as_ref();
        let fields: Vec<Field> = vec![
            r.id.as_str().into(),
            r.unit.into(),
            finite(r.old).into(),
            finite(r.new).into(),
            finite(r.change_pct).into(),
            lo.and_then(finite).into(),
            hi.and_then(finite).into(),
            t.map(|t| t.q).and_then(finite).into(),
            t.map(|t| t.detect_pct).and_then(finite).into(),
            r.runs[0].to_string().into(),
            r.runs[1].to_string().into(),
            format!("{:?}", r.level).to_lowercase().into(),
            r.stat_label().into(),
            r.verdict.text().into(),
        ];
        fields
    });
    Records {
        header: vec![
            "metric",
            "unit",
            "old",
            "new",
            "change_pct",
            "interval_low_pct",
            "interval_high_pct",
            "q",
            "detect_pct",
            "runs_old",
            "runs_new",
            "level",
            "stat",
            "verdict",
        ],
        rows: rows.collect(),
    }
}

/// The comparison as JSON: the runs, the facts that differ, the drift,
/// and every row.
pub fn data(
    old: &Run,
    new: &Run,
    c: &Comparison,
    diff: &[(String, String, String)],
) -> serde_json::Value {
    let facts: Vec<serde_json::Value> = diff
        .iter()
        .map(|(k, o, n)| serde_json::json!({"fact": k, "old": o, "new": n}))
        .collect();
    serde_json::json!({
        "old": old.host(),
        "new": new.host(),
        "facts_that_differ": facts,
        "threshold_pct": c.threshold_pct,
        "alpha": verdict::ALPHA,
        "tested": c.tested,
        "drift": c.drift,
        "clock": c.clock,
        "machine_changed": c.drift.machine_changed(),
        "memory_drift": c.memory,
        "memory_changed": c.memory.machine_changed(),
        "shared_cache_drift": c.shared,
        "shared_cache_changed": c.shared.machine_changed(),
        "private_cache_bytes": c.private_cache,
        "between_sittings": c.sittings,
        "rows": c.rows,
        // The metrics behind lmbench 3's own summary columns: the rows a
        // script keeps to ask lmbench's question alone.
        "lmbench_columns": c.columns.metrics,
        // For each of those with a pinned twin (the same switch, round
        // trip or stream with every end on one CPU), the twin's metric.
        "pinned_twins": c.columns.twins,
    })
}
