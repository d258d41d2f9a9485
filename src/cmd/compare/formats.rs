//! `compare` as Markdown, CSV and JSON (the text report is `text`).

use anyhow::Result;

use crate::columns::{lmbench_column_metrics, pinned_twins};
use crate::export::markdown::{self, Align};
use crate::export::{csv, json};
use crate::run::Run;
use crate::verdict::{self, Comparison, Row, Verdict};

use super::fact_diff;
use super::row_cells::{self, Cells};
use super::text::counts;

/// The comparison as Markdown, for a report or an issue: the runs, the
/// facts that differ, whether the machine itself changed, a row per metric
/// with the text table's cells, and the counts. (The text report's notes on
/// the test and the noise stay in the text format.)
pub fn render_markdown(old: &Run, new: &Run, c: &Comparison) -> String {
    let mut out = format!("## `{}` → `{}`\n\n", old.host(), new.host());
    let diff = fact_diff(old, new);
    if diff.is_empty() {
        out.push_str("Machine facts: no difference.\n\n");
    } else {
        out.push_str(&markdown::table(
            &[
                ("machine fact", Align::Left),
                ("old", Align::Left),
                ("new", Align::Left),
            ],
            diff.into_iter().map(|(k, o, n)| vec![k, o, n]),
        ));
        out.push('\n');
    }
    for (changed, what) in [
        (c.drift.machine_changed(), "CPU-only metrics"),
        (c.memory.machine_changed(), "main-memory metrics"),
        (c.shared.machine_changed(), "shared-cache metrics"),
    ] {
        if changed {
            out.push_str(&format!(
                "**The machine itself changed**: the {what} moved together \
                 (see the text report).\n\n"
            ));
        }
    }
    let (judged, busy): (Vec<&Row>, Vec<&Row>) =
        c.rows.iter().partition(|r| r.verdict != Verdict::Busy);
    let headers = row_cells::HEADERS.map(|h| (h, Align::Left));
    out.push_str(&markdown::table(
        &headers,
        judged
            .iter()
            .chain(&busy)
            .map(|r| Cells::of(r).all().map(String::from).to_vec()),
    ));
    out.push_str(&format!("\n{}\n", counts(c, busy.len())));
    out
}

/// The comparison as CSV, a row per metric with raw figures (no units in
/// the numbers, an empty field where there is none): for a spreadsheet or
/// a script. The facts that differ and the notes are in the other formats.
pub fn render_csv(c: &Comparison) -> Result<String> {
    let finite = |x: f64| Some(x).filter(|x| x.is_finite());
    let records = c.rows.iter().map(|r| {
        let (lo, hi) = r.change_interval_pct().unzip();
        let t = r.test.as_ref();
        vec![
            r.id.clone(),
            r.unit.to_string(),
            csv::num(finite(r.old)),
            csv::num(finite(r.new)),
            csv::num(finite(r.change_pct)),
            csv::num(lo.and_then(finite)),
            csv::num(hi.and_then(finite)),
            csv::num(t.map(|t| t.q).and_then(finite)),
            csv::num(t.map(|t| t.detect_pct).and_then(finite)),
            r.runs[0].to_string(),
            r.runs[1].to_string(),
            format!("{:?}", r.level).to_lowercase(),
            r.stat_label(),
            r.verdict.text().to_string(),
        ]
    });
    csv::document(
        "metric,unit,old,new,change_pct,interval_low_pct,interval_high_pct,q,detect_pct,\
         runs_old,runs_new,level,stat,verdict",
        records,
    )
}

/// The comparison as JSON: the runs, the facts that differ, the drift,
/// and every row.
pub fn render_json(old: &Run, new: &Run, c: &Comparison) -> Result<String> {
    let facts: Vec<serde_json::Value> = fact_diff(old, new)
        .into_iter()
        .map(|(k, o, n)| serde_json::json!({"fact": k, "old": o, "new": n}))
        .collect();
    let v = serde_json::json!({
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
        "lmbench_columns": lmbench_column_metrics(new),
        // For each of those with a pinned twin (the same switch, round
        // trip or stream with every end on one CPU), the twin's metric.
        "pinned_twins": pinned_twins(new),
    });
    json::document(&v)
}
