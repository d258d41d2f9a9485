//! lmbench's summary tables rendered from runs: lmbench's text layout,
//! Markdown, CSV (one line per cell) or JSON; `-` (CSV: an empty field,
//! JSON: null) marks a figure a run lacks. Used by `summary`, and by
//! `run`, `save` and `import`, which print or store the tables of what
//! they made.
//!
//! A figure measured while other work used at least the busy threshold of
//! a CPU (default 5%; see `lmbench_support::activity`) is marked `*` and a
//! line under its table says what ran (CSV and JSON: a `busy` field). With
//! `--spread`, every figure carries its spread in every format.

use anyhow::{bail, Result};
use lmbench_support::activity::BUSY_CPUS;
use lmbench_support::catalog::tables::{MEM_LAT, REMOTE_BW, REMOTE_LAT};
use lmbench_support::catalog::{Column, Table, TABLES};
use serde_json::json;

use crate::cells::{self, Cell, Spread};
use crate::results::{Imported, Run};
use crate::{store, table};

mod floors;

/// What `summary` shows.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub format: Format,
    pub spread: Option<Spread>,
    /// Other work at or above this many CPUs marks a figure busy.
    pub busy_cpus: f64,
    /// Show each metric beside its floor instead (`floors`).
    pub floors: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            format: Format::Text,
            spread: None,
            busy_cpus: BUSY_CPUS,
            floors: false,
        }
    }
}

/// Every run's cells of one table: `grid[run][column]`.
fn grid(t: &Table, runs: &[Run], opts: &Options) -> Vec<Vec<Cell>> {
    cells::grid(t, runs, opts.busy_cpus, opts.spread)
}

/// One line per run with busy figures in this table: which, and what ran
/// (the busiest window among them).
fn busy_notes(t: &Table, runs: &[Run], grid: &[Vec<Cell>]) -> Vec<String> {
    let names = column_names(t);
    let mut out = Vec::new();
    for (run, row) in runs.iter().zip(grid) {
        let busy: Vec<(&String, &Cell)> = names
            .iter()
            .zip(row)
            .filter(|(_, c)| c.value.is_some() && c.busy.is_some())
            .collect();
        let worst = busy
            .iter()
            .filter_map(|(_, c)| c.busy.as_ref())
            .max_by(|a, b| {
                a.other_cpus()
                    .unwrap_or(0.0)
                    .total_cmp(&b.other_cpus().unwrap_or(0.0))
            });
        if let Some(w) = worst {
            let cols: Vec<&str> = busy.iter().map(|(n, _)| n.as_str()).collect();
            out.push(format!(
                "{}: measured on a busy machine ({}): {}",
                run.host(),
                cols.join(", "),
                w.describe()
            ));
        }
    }
    out
}

/// The closing lines: what `*` and the spread line mean.
fn legend(any_busy: bool, opts: &Options) -> String {
    let mut out = String::new();
    if any_busy {
        out.push_str(&format!(
            "* measured while other work used at least {}% of a CPU: not comparable.\n",
            100.0 * opts.busy_cpus
        ));
    }
    if let Some(kind) = opts.spread {
        out.push_str(&format!(
            "spread: {}, as a share of the figure.\n",
            kind.describe()
        ));
    }
    out
}

/// Output formats of `summary`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Markdown,
    Csv,
    Json,
}

/// The tables that have data for any of `runs`.
fn tables_with_data(runs: &[Run]) -> Result<Vec<&'static Table>> {
    let tables: Vec<_> = TABLES
        .iter()
        .copied()
        .filter(|t| table::has_data(t, runs))
        .collect();
    if tables.is_empty() {
        bail!("none of the runs has a figure for any summary column");
    }
    Ok(tables)
}

/// Renders every table that has data for any of `runs`, lmbench's layout,
/// with the default options.
pub fn render(runs: &[Run]) -> Result<String> {
    text(runs, &Options::default())
}

/// The notes of table `t` for the runs that have data in it
/// ([`merge_notes`]): a run of ours gets the table's notes, an imported
/// one [`imported_notes`].
fn run_notes(t: &Table, runs: &[Run]) -> String {
    let per_run: Vec<(String, Vec<String>)> = runs
        .iter()
        .filter(|r| table::has_data(t, std::slice::from_ref(*r)))
        .map(|r| {
            let notes = match &r.imported {
                Some(imp) => imported_notes(t, r, imp),
                None => (t.notes)(r),
            };
            (r.host(), notes)
        })
        .collect();
    merge_notes(&per_run)
}

/// What an imported run brought for table `t` that none of its columns
/// shows, so nothing read is hidden: the figures kept beside it
/// (`Imported::extra`) and, under the memory table, lmbench's "Guesses".
fn imported_notes(t: &Table, r: &Run, imp: &Imported) -> Vec<String> {
    let prefix = format!("{}/", t.key);
    let extra: Vec<String> = imp
        .extra
        .iter()
        .filter_map(|(k, v)| {
            let name = k.strip_prefix(&prefix)?;
            Some(format!("{name} {}", table::fmt_num(*v, 8)))
        })
        .collect();
    let mut notes = Vec::new();
    if !extra.is_empty() {
        notes.push(format!(
            "{} ({}; no column of ours)",
            extra.join(", "),
            imp.format
        ));
    }
    if t.key == MEM_LAT.key {
        if let Some(g) = r.machine.get("guesses") {
            notes.push(format!("Guesses: {g}"));
        }
    }
    notes
}

/// Notes of several runs, (host, notes) each, as lines under a table: a
/// note every run has is printed once; one that only some runs have is
/// printed for each of them, after its host (three runs of one machine
/// share most notes, and a note that differs must say whose it is).
fn merge_notes(per_run: &[(String, Vec<String>)]) -> String {
    let mut out = String::new();
    let mut printed = std::collections::HashSet::new();
    for (host, notes) in per_run {
        for n in notes {
            if per_run.iter().all(|(_, all)| all.contains(n)) {
                if printed.insert(n) {
                    out.push_str(&format!("  {n}\n"));
                }
            } else {
                out.push_str(&format!("  {host}: {n}\n"));
            }
        }
    }
    out
}

fn text(runs: &[Run], opts: &Options) -> Result<String> {
    let mut out = table::banner();
    let mut any_busy = false;
    for t in tables_with_data(runs)? {
        let g = grid(t, runs, opts);
        out.push('\n');
        out.push_str(&table::render(t, runs, &g, opts.spread.is_some()));
        for n in busy_notes(t, runs, &g) {
            any_busy = true;
            out.push_str(&format!("  * {n}\n"));
        }
        // lmbench's "Guesses", the cache points and sizes used, what an
        // imported run brought beside the table, under it.
        out.push_str(&run_notes(t, runs));
        // Whom the remote figures were measured against.
        if t.key == REMOTE_LAT.key || t.key == REMOTE_BW.key {
            for r in runs
                .iter()
                .filter(|r| table::has_data(t, std::slice::from_ref(*r)))
            {
                let peer = r.machine.get(store::REMOTE_PEER).unwrap_or("not recorded");
                out.push_str(&format!("  {}: peer {peer}\n", r.host()));
            }
        }
    }
    let legend = legend(any_busy, opts);
    if !legend.is_empty() {
        out.push('\n');
        out.push_str(&legend);
    }
    Ok(out)
}

/// Renders the summary in any format.
pub fn render_as(runs: &[Run], opts: &Options) -> Result<String> {
    if opts.floors {
        return floors::render_as(runs, opts);
    }
    match opts.format {
        Format::Text => text(runs, opts),
        Format::Markdown => markdown(runs, opts),
        Format::Csv => csv(runs, opts),
        Format::Json => json_out(runs, opts),
    }
}

/// Every column's name on one line (see `Table::column_name`).
fn column_names(t: &Table) -> Vec<String> {
    (0..t.columns.len()).map(|i| t.column_name(i)).collect()
}

/// A column's unit (see `Column::unit`).
fn column_unit(t: &Table, c: &Column) -> &'static str {
    c.unit(t).label()
}

/// A CSV figure: full precision trimmed of float noise; an empty field
/// where there is none, as spreadsheets and pandas read a missing value.
pub(crate) fn csv_num(v: Option<f64>) -> String {
    v.map_or_else(String::new, |v| {
        let s = format!("{v:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    })
}

/// CSV text: the comma-separated column names `header`, then `records`,
/// one line each, a field quoted where it needs it (the `csv` crate's
/// rules, RFC 4180).
pub(crate) fn csv_text(
    header: &str,
    records: impl IntoIterator<Item = Vec<String>>,
) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header.split(','))?;
    for r in records {
        w.write_record(&r)?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8(bytes)?)
}

fn markdown(runs: &[Run], opts: &Options) -> Result<String> {
    let mut out = String::new();
    let mut any_busy = false;
    for t in tables_with_data(runs)? {
        let names = column_names(t);
        let g = grid(t, runs, opts);
        out.push_str(&format!("### {} ({})\n\n", t.title, t.unit.label()));
        out.push_str(&format!("| Host | OS | {} |\n", names.join(" | ")));
        out.push_str(&format!("|---|---|{}\n", "---:|".repeat(names.len())));
        for (r, row) in runs.iter().zip(&g) {
            let vals: Vec<String> = row
                .iter()
                .zip(t.columns)
                .map(|(cell, c)| {
                    let Some(v) = cell.value else {
                        return "-".into();
                    };
                    let mut s = table::fmt_num(v, c.width.max(6));
                    if cell.busy.is_some() {
                        s.push_str("\\*");
                    }
                    if let Some(h) = cell.spread {
                        s.push_str(&format!(" {}", cells::fmt_spread(h, v, 8)));
                    }
                    s
                })
                .collect();
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                r.host(),
                r.machine.os_label(),
                vals.join(" | ")
            ));
        }
        out.push('\n');
        let notes = busy_notes(t, runs, &g);
        for n in &notes {
            out.push_str(&format!("- \\* {n}\n"));
        }
        if !notes.is_empty() {
            any_busy = true;
            out.push('\n');
        }
    }
    out.push_str(&legend(any_busy, opts).replace('*', "\\*"));
    Ok(out)
}

/// One line per cell; `busy` is true for a figure measured on a busy
/// machine; with `--spread`, `spread` is its half-width in the unit. A
/// figure the run lacks (or its spread) is an empty field.
fn csv(runs: &[Run], opts: &Options) -> Result<String> {
    let mut header = String::from("table,column,unit,run,machine,label,os,value,busy");
    if opts.spread.is_some() {
        header.push_str(",spread");
    }
    let mut records = Vec::new();
    for t in tables_with_data(runs)? {
        let names = column_names(t);
        let g = grid(t, runs, opts);
        for (r, row) in runs.iter().zip(&g) {
            for ((name, cell), c) in names.iter().zip(row).zip(t.columns) {
                let mut fields = vec![
                    t.key.to_string(),
                    name.clone(),
                    column_unit(t, c).to_string(),
                    r.host(),
                    r.machine_name(),
                    r.label().unwrap_or("").to_string(),
                    r.machine.os_label(),
                    csv_num(cell.value),
                    (cell.value.is_some() && cell.busy.is_some()).to_string(),
                ];
                if opts.spread.is_some() {
                    fields.push(csv_num(cell.spread));
                }
                records.push(fields);
            }
        }
    }
    csv_text(&header, records)
}

/// The `runs` list of the JSON output: each run and its busy metrics.
pub fn run_list_json(runs: &[Run], opts: &Options) -> Vec<serde_json::Value> {
    runs.iter()
        .map(|r| {
            // Every busy metric of the run with what ran.
            let busy: Vec<_> = r
                .metrics
                .iter()
                .filter_map(|(id, s)| {
                    let a = cells::busy_window(s, opts.busy_cpus)?;
                    Some(json!({ "metric": id, "other_cpus": a.other_cpus(),
                                 "what_ran": a.describe() }))
                })
                .collect();
            json!({
                "run": r.host(),
                "machine": r.machine_name(),
                "label": r.label(),
                "os": r.machine.os_label(),
                "date": r.meta.date,
                "busy": busy,
            })
        })
        .collect()
}

fn json_out(runs: &[Run], opts: &Options) -> Result<String> {
    let run_list = run_list_json(runs, opts);
    let tables: Vec<_> = tables_with_data(runs)?
        .into_iter()
        .map(|t| {
            let g = grid(t, runs, opts);
            let columns: Vec<_> = column_names(t)
                .into_iter()
                .enumerate()
                .map(|(i, name)| {
                    let values: Vec<Option<f64>> = g.iter().map(|row| row[i].value).collect();
                    let busy: Vec<bool> = g
                        .iter()
                        .map(|row| row[i].value.is_some() && row[i].busy.is_some())
                        .collect();
                    let unit = column_unit(t, &t.columns[i]);
                    let mut col = json!({ "name": name, "unit": unit, "values": values,
                                          "busy": busy });
                    if opts.spread.is_some() {
                        let spread: Vec<Option<f64>> = g.iter().map(|row| row[i].spread).collect();
                        col["spread"] = json!(spread);
                    }
                    col
                })
                .collect();
            json!({ "key": t.key, "title": t.title, "unit": t.unit.label(), "columns": columns })
        })
        .collect();
    let mut doc = json!({
        "runs": run_list,
        "tables": tables,
        "busy_threshold_cpus": opts.busy_cpus,
    });
    if let Some(kind) = opts.spread {
        doc["spread"] = json!(kind.describe());
    }
    Ok(serde_json::to_string_pretty(&doc)? + "\n")
}

#[cfg(test)]
mod tests {
    use super::{csv_num, csv_text, merge_notes};

    #[test]
    fn csv_quotes_where_a_field_needs_it_and_leaves_missing_figures_empty() {
        let text = csv_text(
            "name,note,value",
            [
                vec!["a,b".into(), "say \"hi\"\nthen go".into(), csv_num(None)],
                vec!["c".into(), String::new(), csv_num(Some(0.1200001))],
                vec!["d".into(), "x".into(), csv_num(Some(3.0))],
            ],
        )
        .unwrap();
        assert_eq!(
            text,
            "name,note,value\n\"a,b\",\"say \"\"hi\"\"\nthen go\",\nc,,0.12\nd,x,3\n"
        );
    }

    #[test]
    fn shared_notes_print_once_and_differing_ones_name_their_run() {
        let run = |host: &str, notes: &[&str]| {
            (
                host.to_string(),
                notes.iter().map(|n| n.to_string()).collect(),
            )
        };
        let per_run = [
            run("m/a", &["Points: L1 at 16K", "Curve: rises at 1M-8M"]),
            run("m/b", &["Points: L1 at 16K", "Curve: rises at 1M-4M"]),
        ];
        assert_eq!(
            merge_notes(&per_run),
            "  Points: L1 at 16K\n  m/a: Curve: rises at 1M-8M\n  m/b: Curve: rises at 1M-4M\n"
        );
        // One run: its notes as they are; none: nothing.
        assert_eq!(
            merge_notes(&per_run[..1]),
            "  Points: L1 at 16K\n  Curve: rises at 1M-8M\n"
        );
        assert_eq!(merge_notes(&[]), "");
    }
}
