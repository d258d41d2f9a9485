//! `compare` with an imported run, which has figures but no samples: the
//! summary columns both runs have, old and new and the change, and "no
//! samples" where a verdict would be, in every format.

use anyhow::{bail, Result};
use lmbench_support::catalog::TABLES;
use serde_json::json;

use crate::export::markdown::{self, Align};
use crate::export::{csv, fmt_num, json, Format};
use crate::run::Run;

/// What stands where a verdict would be.
const NO_VERDICT: &str = "no samples";

/// One summary column both runs have.
struct Row {
    table: &'static str,
    column: String,
    old: f64,
    new: f64,
}

impl Row {
    fn name(&self) -> String {
        format!("{}: {}", self.table, self.column)
    }

    /// The change in percent of the old figure; `None` where that is 0.
    fn change_pct(&self) -> Option<f64> {
        (self.old != 0.0).then(|| (self.new - self.old) / self.old * 100.0)
    }
}

/// The summary columns both runs have, in the tables' order.
fn rows(old: &Run, new: &Run) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for t in TABLES {
        for i in 0..t.columns.len() {
            if let (Some(o), Some(n)) = (old.cell(t, i), new.cell(t, i)) {
                rows.push(Row {
                    table: t.key,
                    column: t.column_name(i),
                    old: o,
                    new: n,
                });
            }
        }
    }
    if rows.is_empty() {
        bail!(
            "{} and {} have no summary column in common",
            old.host(),
            new.host()
        );
    }
    Ok(rows)
}

/// Where a run's figures came from.
fn origin(r: &Run) -> String {
    match &r.imported {
        Some(i) => format!("{}, imported from {}", i.format, i.source),
        None => format!("lmbench-rs {}, {}", r.meta.suite_version, r.meta.date),
    }
}

/// The closing line of the text and Markdown reports.
fn closing(rows: &[Row]) -> String {
    format!(
        "{} summary columns; no verdicts: an imported run has figures, not samples.\n",
        rows.len()
    )
}

/// A comparison with an imported run, in `format`.
pub fn render_imported(old: &Run, new: &Run, format: Format) -> Result<String> {
    let rows = rows(old, new)?;
    Ok(match format {
        Format::Text => as_text(old, new, &rows),
        Format::Markdown => as_markdown(old, new, &rows),
        Format::Csv => as_csv(&rows)?,
        Format::Json => as_json(old, new, &rows)?,
    })
}

fn as_text(old: &Run, new: &Run, rows: &[Row]) -> String {
    let mut out = format!(
        "OLD {}  {}\nNEW {}  {}\n\n",
        old.host(),
        origin(old),
        new.host(),
        origin(new)
    );
    let w = rows
        .iter()
        .map(|r| r.name().len())
        .max()
        .unwrap_or(6)
        .max(6);
    out.push_str(&format!(
        "{:<w$} {:>9} {:>9} {:>8}  verdict\n",
        "column", "old", "new", "change"
    ));
    for r in rows {
        out.push_str(&format!(
            "{:<w$} {:>9} {:>9} {:>+7.1}%  {NO_VERDICT}\n",
            r.name(),
            fmt_num(r.old, 9),
            fmt_num(r.new, 9),
            r.change_pct().unwrap_or(0.0)
        ));
    }
    out.push('\n');
    out.push_str(&closing(rows));
    out
}

fn as_markdown(old: &Run, new: &Run, rows: &[Row]) -> String {
    let mut out = format!(
        "## `{}` → `{}`\n\n- OLD: {}\n- NEW: {}\n\n",
        old.host(),
        new.host(),
        origin(old),
        origin(new)
    );
    out.push_str(&markdown::table(
        &[
            ("column", Align::Left),
            ("old", Align::Right),
            ("new", Align::Right),
            ("change", Align::Right),
            ("verdict", Align::Left),
        ],
        rows.iter().map(|r| {
            vec![
                r.name(),
                fmt_num(r.old, 9),
                fmt_num(r.new, 9),
                r.change_pct().map_or("-".into(), |c| format!("{c:+.1}%")),
                NO_VERDICT.to_string(),
            ]
        }),
    ));
    out.push('\n');
    out.push_str(&closing(rows));
    out
}

/// A row per column with raw figures; the change is an empty field where
/// the old figure is 0.
fn as_csv(rows: &[Row]) -> Result<String> {
    csv::document(
        "table,column,old,new,change_pct,verdict",
        rows.iter().map(|r| {
            vec![
                r.table.to_string(),
                r.column.clone(),
                csv::num(Some(r.old)),
                csv::num(Some(r.new)),
                csv::num(r.change_pct()),
                NO_VERDICT.to_string(),
            ]
        }),
    )
}

fn as_json(old: &Run, new: &Run, rows: &[Row]) -> Result<String> {
    let rows: Vec<_> = rows
        .iter()
        .map(|r| {
            json!({ "table": r.table, "column": r.column, "old": r.old, "new": r.new,
                    "change_pct": r.change_pct(), "verdict": NO_VERDICT })
        })
        .collect();
    json::document(&json!({
        "old": old.host(),
        "new": new.host(),
        "old_origin": origin(old),
        "new_origin": origin(new),
        "rows": rows,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{Imported, Origin};
    use lmbench_support::machine::Facts;

    /// An imported run of `label` with the fork column at `fork` us.
    fn imported(label: &str, fork: f64) -> Run {
        let t = TABLES
            .iter()
            .find(|t| t.key == "processes")
            .expect("processes table");
        let i = (0..t.columns.len())
            .find(|&i| t.column_name(i) == "fork proc")
            .expect("fork column");
        Run {
            machine: Facts::default(),
            metrics: Default::default(),
            origin: Origin::Saved {
                machine: "ds20".into(),
                label: label.into(),
                dir: "/nonexistent".into(),
            },
            meta: crate::store::current_meta(1),
            imported: Some(Imported {
                format: "lmbench 1.9 SUMMARY".into(),
                source: format!("{label}.txt"),
                cells: [(t.cell_key(i), fork)].into(),
                extra: Default::default(),
            }),
        }
    }

    #[test]
    fn every_format_shows_the_figures_and_no_verdict() {
        let (old, new) = (imported("a", 500.0), imported("b", 550.0));
        let text = render_imported(&old, &new, Format::Text).unwrap();
        assert!(
            text.contains("processes: fork proc       500       550   +10.0%  no samples\n"),
            "{text}"
        );
        let md = render_imported(&old, &new, Format::Markdown).unwrap();
        assert!(
            md.contains("| processes: fork proc | 500 | 550 | +10.0% | no samples |\n"),
            "{md}"
        );
        let csv = render_imported(&old, &new, Format::Csv).unwrap();
        assert_eq!(
            csv,
            "table,column,old,new,change_pct,verdict\nprocesses,fork proc,500,550,10,no samples\n"
        );
        let doc: serde_json::Value =
            serde_json::from_str(&render_imported(&old, &new, Format::Json).unwrap()).unwrap();
        assert_eq!(doc["rows"][0]["column"], "fork proc");
        assert_eq!(doc["rows"][0]["change_pct"], 10.0);
        assert_eq!(
            doc["old_origin"],
            "lmbench 1.9 SUMMARY, imported from a.txt"
        );
    }
}
