//! `lmbench summary [RUN...] [--format F]`: lmbench's summary tables, one
//! row per run (live results or saved runs), as lmbench's text layout,
//! Markdown, CSV (one line per cell) or JSON. `-` (JSON: null) marks a
//! figure a run lacks.

use anyhow::{bail, Result};
use lmbench_support::catalog::tables::{REMOTE_BW, REMOTE_LAT};
use lmbench_support::catalog::{Column, Table, TABLES};
use serde_json::json;

use crate::run::Run;
use crate::{store, table};

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

/// Renders every table that has data for any of `runs`, lmbench's layout.
pub fn render(runs: &[Run]) -> Result<String> {
    let mut out = table::banner();
    for t in tables_with_data(runs)? {
        out.push('\n');
        out.push_str(&table::render(t, runs));
        // lmbench's "Guesses" and the cache points used, under the table.
        if t.key == "mem_lat" {
            for r in runs.iter().filter(|r| r.imported.is_none()) {
                for n in lmbench_support::catalog::tables::mem_notes(r) {
                    out.push_str(&format!("  {n}\n"));
                }
            }
        }
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
    Ok(out)
}

/// Renders the summary in any format.
pub fn render_as(runs: &[Run], format: Format) -> Result<String> {
    match format {
        Format::Text => render(runs),
        Format::Markdown => markdown(runs),
        Format::Csv => csv(runs),
        Format::Json => json_out(runs),
    }
}

/// Every column's name on one line (see `Table::column_name`).
fn column_names(t: &Table) -> Vec<String> {
    (0..t.columns.len()).map(|i| t.column_name(i)).collect()
}

/// A column's unit: its metrics', else the table's (the clock is MHz).
fn column_unit(t: &Table, c: &Column) -> &'static str {
    match c.source.metrics().first() {
        Some(m) => m.unit.label(),
        None if c.header[0] == "Mhz" => "MHz",
        None => t.unit.label(),
    }
}

fn cells(t: &Table, run: &Run) -> Vec<Option<f64>> {
    (0..t.columns.len()).map(|i| run.cell(t, i)).collect()
}

/// Full precision for machine-readable formats, trimmed of float noise.
fn num(v: f64) -> String {
    let s = format!("{:.6}", v);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

fn markdown(runs: &[Run]) -> Result<String> {
    let mut out = String::new();
    for t in tables_with_data(runs)? {
        let names = column_names(t);
        out.push_str(&format!("### {} ({})\n\n", t.title, t.unit.label()));
        out.push_str(&format!("| Host | OS | {} |\n", names.join(" | ")));
        out.push_str(&format!("|---|---|{}\n", "---:|".repeat(names.len())));
        for r in runs {
            let vals: Vec<String> = cells(t, r)
                .into_iter()
                .zip(t.columns)
                .map(|(v, c)| v.map_or("-".into(), |v| table::fmt_num(v, c.width.max(6))))
                .collect();
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                r.host(),
                r.machine.os_label(),
                vals.join(" | ")
            ));
        }
        out.push('\n');
    }
    Ok(out)
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv(runs: &[Run]) -> Result<String> {
    let mut out = String::from("table,column,unit,run,machine,label,os,value\n");
    for t in tables_with_data(runs)? {
        let names = column_names(t);
        for r in runs {
            for ((name, v), c) in names.iter().zip(cells(t, r)).zip(t.columns) {
                let fields = [
                    t.key.to_string(),
                    name.clone(),
                    column_unit(t, c).to_string(),
                    r.host(),
                    r.machine_name(),
                    r.label().unwrap_or("").to_string(),
                    r.machine.os_label(),
                    v.map_or("-".into(), num),
                ];
                let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
                out.push_str(&line.join(","));
                out.push('\n');
            }
        }
    }
    Ok(out)
}

fn json_out(runs: &[Run]) -> Result<String> {
    let run_list: Vec<_> = runs
        .iter()
        .map(|r| {
            json!({
                "run": r.host(),
                "machine": r.machine_name(),
                "label": r.label(),
                "os": r.machine.os_label(),
                "date": r.meta.date,
            })
        })
        .collect();
    let tables: Vec<_> = tables_with_data(runs)?
        .into_iter()
        .map(|t| {
            let columns: Vec<_> = column_names(t)
                .into_iter()
                .enumerate()
                .map(|(i, name)| {
                    let values: Vec<Option<f64>> = runs.iter().map(|r| r.cell(t, i)).collect();
                    let unit = column_unit(t, &t.columns[i]);
                    json!({ "name": name, "unit": unit, "values": values })
                })
                .collect();
            json!({ "key": t.key, "title": t.title, "unit": t.unit.label(), "columns": columns })
        })
        .collect();
    let doc = json!({ "runs": run_list, "tables": tables });
    Ok(serde_json::to_string_pretty(&doc)? + "\n")
}

/// `lmbench summary`: the named runs, or the live results if none.
pub fn run(specs: &[String], format: Format) -> Result<()> {
    let runs = if specs.is_empty() {
        vec![store::live()?]
    } else {
        store::resolve_all(specs)?
    };
    print!("{}", render_as(&runs, format)?);
    Ok(())
}
