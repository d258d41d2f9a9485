//! lmbench's summary tables of a set of runs, as a report's model: text
//! shows lmbench's layout (the banner, each table with its notes),
//! Markdown a heading and a table each, CSV one record per cell and JSON
//! per table per column the figures of every run; `-` (CSV: an empty
//! field, JSON: null) marks a figure a run lacks. Used by `summary`, and
//! by `run`, `save` and `import`, which print or store the tables of what
//! they made ([`render`]).
//!
//! A figure measured while other work used at least the busy threshold of
//! a CPU (default 5%; see `lmbench_support::activity`) is marked `*` and a
//! line under its table says what ran (CSV and JSON: a `busy` field). With
//! `--spread`, every figure carries its spread in every format.

use anyhow::{bail, Result};
use lmbench_support::activity::{Activity, BUSY_CPUS};
use lmbench_support::catalog::tables::{MEM_LAT, REMOTE_BW, REMOTE_LAT};
use lmbench_support::catalog::{Column, Table, TABLES};
use serde_json::{json, Value};

use crate::cells::{self, Cell, Spread};
use crate::format::document::{Block, Field, Records, Report, Shown};
use crate::format::{busy_note, fmt_num, Format};
use crate::run::{Imported, Run};
use crate::table;

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
    runs.iter()
        .zip(grid)
        .filter_map(|(run, row)| {
            let busy: Vec<(&str, &Activity)> = names
                .iter()
                .zip(row)
                .filter(|(_, c)| c.value.is_some())
                .filter_map(|(n, c)| Some((n.as_str(), c.busy.as_ref()?)))
                .collect();
            busy_note(&run.host(), &busy)
        })
        .collect()
}

/// The closing lines: what `*` and the spread line mean.
fn legend(any_busy: bool, opts: &Options) -> String {
    crate::format::legend(any_busy, opts.busy_cpus, opts.spread)
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

/// Every table that has data for any of `runs` as text, lmbench's layout,
/// with the default options (what `run`, `save` and `import` print).
pub fn render(runs: &[Run]) -> Result<String> {
    crate::format::render(&report(runs, &Options::default())?, Format::Text)
}

/// The model of what `summary` shows with `opts`: the tables, or with
/// `floors` the floor ratios.
pub fn report(runs: &[Run], opts: &Options) -> Result<Report> {
    if opts.floors {
        return super::floor_ratios::report(runs, opts);
    }
    let tables = tables_with_data(runs)?;
    Ok(Report {
        blocks: blocks(runs, &tables, opts),
        records: records(runs, &tables, opts),
        data: data(runs, &tables, opts),
    })
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
            Some(format!("{name} {}", fmt_num(*v, 8)))
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

/// What text and Markdown show: (text) lmbench's banner; per table a
/// heading (Markdown) or a blank line (text), the table, its busy notes
/// and (text) its notes and the peers of its remote figures; the legend.
fn blocks(runs: &[Run], tables: &[&'static Table], opts: &Options) -> Vec<Block> {
    let mut out = vec![Block::Prose(
        Shown::Text,
        table::banner() + &instruction_note(runs),
    )];
    let mut any_busy = false;
    for t in tables {
        let g = grid(t, runs, opts);
        out.push(Block::Prose(Shown::Text, "\n".into()));
        out.push(Block::Heading(
            3,
            format!("{} ({})", t.title, t.unit.label()),
        ));
        out.push(Block::Table(
            Shown::Both,
            table::model(t, runs, &g, opts.spread.is_some()),
        ));
        out.push(Block::Prose(Shown::Markdown, "\n".into()));
        let notes = busy_notes(t, runs, &g);
        any_busy |= !notes.is_empty();
        out.push(Block::BusyNotes(notes));
        // lmbench's "Guesses", the cache points and sizes used, what an
        // imported run brought beside the table, under it.
        let mut under = run_notes(t, runs);
        // Whom the remote figures were measured against.
        if t.key == REMOTE_LAT.key || t.key == REMOTE_BW.key {
            for r in runs
                .iter()
                .filter(|r| table::has_data(t, std::slice::from_ref(*r)))
            {
                let peer = r
                    .machine
                    .get(lmbench_support::machine::REMOTE_PEER)
                    .unwrap_or("not recorded");
                under.push_str(&format!("  {}: peer {peer}\n", r.host()));
            }
        }
        out.push(Block::Prose(Shown::Text, under));
    }
    let legend = legend(any_busy, opts);
    if !legend.is_empty() {
        out.push(Block::Prose(Shown::Text, "\n".into()));
    }
    out.push(Block::Legend(legend));
    out
}

/// Under the banner, when a run was measured in a guest counting
/// instructions (QEMU's icount, `lmbench kernels`): its "microseconds"
/// are thousands of instructions, and which rows they are.
fn instruction_note(runs: &[Run]) -> String {
    let rows: Vec<String> = runs
        .iter()
        .filter(|r| r.machine.get("time_unit") == Some("instructions"))
        .map(|r| format!("{} {}", r.host(), r.machine.os_label()))
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    format!(
        "\nIn instructions, not time (a guest under QEMU's instruction counting): \
         1 microsecond reads as 1000 guest instructions, 1 nanosecond as 1; \
         rows: {}.\n",
        rows.join(", ")
    )
}

/// Every column's name on one line (see `Table::column_name`).
fn column_names(t: &Table) -> Vec<String> {
    (0..t.columns.len()).map(|i| t.column_name(i)).collect()
}

/// A column's unit (see `Column::unit`).
fn column_unit(t: &Table, c: &Column) -> &'static str {
    c.unit(t).label()
}

/// One line per cell; `busy` is true for a figure measured on a busy
/// machine; with `--spread`, `spread` is its half-width in the unit. A
/// figure the run lacks (or its spread) is an empty field.
fn records(runs: &[Run], tables: &[&'static Table], opts: &Options) -> Records {
    let mut header = vec![
        "table", "column", "unit", "run", "machine", "label", "os", "value", "busy",
    ];
    if opts.spread.is_some() {
        header.push("spread");
    }
    let mut rows = Vec::new();
    for t in tables {
        let names = column_names(t);
        let g = grid(t, runs, opts);
        for (r, row) in runs.iter().zip(&g) {
            for ((name, cell), c) in names.iter().zip(row).zip(t.columns) {
                let mut fields: Vec<Field> = vec![
                    t.key.into(),
                    name.as_str().into(),
                    column_unit(t, c).into(),
                    r.host().into(),
                    r.machine_name().into(),
                    r.label().unwrap_or("").into(),
                    r.machine.os_label().into(),
                    cell.value.into(),
                    (cell.value.is_some() && cell.busy.is_some()).into(),
                ];
                if opts.spread.is_some() {
                    fields.push(cell.spread.into());
                }
                rows.push(fields);
            }
        }
    }
    Records { header, rows }
}

/// What JSON shows: the runs, then per table per column the figures, one
/// per run, and their busy marks (and spreads).
fn data(runs: &[Run], tables: &[&'static Table], opts: &Options) -> Value {
    let run_list = runs_data(runs, opts.busy_cpus);
    let tables: Vec<_> = tables
        .iter()
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
    doc
}

/// The `runs` list of the summary's JSON documents (the floors' too): each run, and each of its
/// metrics measured while other work used at least `busy_cpus` CPUs with
/// what ran.
pub fn runs_data(runs: &[Run], busy_cpus: f64) -> Vec<Value> {
    runs.iter()
        .map(|r| {
            let busy: Vec<_> = r
                .metrics
                .iter()
                .filter_map(|(id, s)| {
                    let a = s.busy_window(busy_cpus)?;
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

#[cfg(test)]
mod tests {
    use super::merge_notes;

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
