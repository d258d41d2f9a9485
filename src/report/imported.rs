//! `compare` with an imported run, which has figures but no samples: the
//! summary columns both runs have, old and new and the change, and "no
//! samples" where a verdict would be, in every format.

use anyhow::{bail, Result};
use lmbench_support::catalog::TABLES;
use serde_json::json;

use crate::format::document::{Align, Block, Cell, Column, Records, Report, Shown, Table};
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

/// The model of a comparison with an imported run.
pub fn report(old: &Run, new: &Run) -> Result<Report> {
    let rows = rows(old, new)?;
    Ok(Report {
        blocks: blocks(old, new, &rows),
        records: records(&rows),
        data: data(old, new, &rows),
    })
}

/// The runs (text: a line each; Markdown: a heading and a list), the
/// table and the closing line.
fn blocks(old: &Run, new: &Run, rows: &[Row]) -> Vec<Block> {
    let w = rows
        .iter()
        .map(|r| r.name().len())
        .max()
        .unwrap_or(6)
        .max(6);
    let verdict = Column {
        gap: 2,
        ..Column::new("verdict", 0, Align::Left)
    };
    let columns = vec![
        Column::new("column", w, Align::Left),
        Column::new("old", 9, Align::Right),
        Column::new("new", 9, Align::Right),
        Column::new("change", 8, Align::Right),
        verdict,
    ];
    let figure = |v: f64| Cell::figure(Some(v), false);
    let cells = rows
        .iter()
        .map(|r| {
            vec![
                Cell::text(r.name()),
                figure(r.old),
                figure(r.new),
                Cell::Alt {
                    text: format!("{:+.1}%", r.change_pct().unwrap_or(0.0)),
                    markdown: r.change_pct().map_or("-".into(), |c| format!("{c:+.1}%")),
                },
                Cell::text(NO_VERDICT),
            ]
        })
        .collect();
    vec![
        Block::Prose(
            Shown::Text,
            format!(
                "OLD {}  {}\nNEW {}  {}\n\n",
                old.host(),
                origin(old),
                new.host(),
                origin(new)
            ),
        ),
        Block::Heading(2, format!("`{}` → `{}`", old.host(), new.host())),
        Block::List(vec![
            format!("OLD: {}", origin(old)),
            format!("NEW: {}", origin(new)),
        ]),
        Block::Table(
            Shown::Both,
            Table {
                columns,
                rows: cells,
                ..Table::default()
            },
        ),
        Block::Prose(Shown::Both, format!("\n{}", closing(rows))),
    ]
}

/// A row per column with raw figures; the change is an empty field where
/// the old figure is 0.
fn records(rows: &[Row]) -> Records {
    Records {
        header: vec!["table", "column", "old", "new", "change_pct", "verdict"],
        rows: rows
            .iter()
            .map(|r| {
                vec![
                    r.table.into(),
                    r.column.as_str().into(),
                    Some(r.old).into(),
                    Some(r.new).into(),
                    r.change_pct().into(),
                    NO_VERDICT.into(),
                ]
            })
            .collect(),
    }
}

fn data(old: &Run, new: &Run, rows: &[Row]) -> serde_json::Value {
    let rows: Vec<_> = rows
        .iter()
        .map(|r| {
            json!({ "table": r.table, "column": r.column, "old": r.old, "new": r.new,
                    "change_pct": r.change_pct(), "verdict": NO_VERDICT })
        })
        .collect();
    json!({
        "old": old.host(),
        "new": new.host(),
        "old_origin": origin(old),
        "new_origin": origin(new),
        "rows": rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{render, Format};
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
        let model = report(&old, &new).unwrap();
        let render_imported = |_: &Run, _: &Run, format| render(&model, format);
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
