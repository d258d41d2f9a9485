//! Markdown: GitHub tables (a header, an alignment row, a row per record,
//! `|` in a cell escaped), busy notes as a list under the table, and the
//! `*` busy mark escaped so it shows rather than starting emphasis.

use super::document::{Align, Cell, Table};
use super::{fmt_num, Layout};
use crate::cells::fmt_spread;

/// The Markdown writer.
pub struct Markdown;

impl Layout for Markdown {
    const TEXT: bool = false;
    /// The legend, its `*` escaped.
    fn legend(&self, legend: &str) -> String {
        legend.replace('*', "\\*")
    }
    /// One `- \*` item each, and a blank line after them if there are any.
    fn busy_notes(&self, notes: &[String]) -> String {
        let mut out: String = notes.iter().map(|n| format!("- \\* {n}\n")).collect();
        if !notes.is_empty() {
            out.push('\n');
        }
        out
    }
    fn table(&self, t: &Table) -> String {
        table(t)
    }
    /// `#`s, the heading, and a blank line.
    fn heading(&self, level: usize, text: &str) -> String {
        format!("{} {text}\n\n", "#".repeat(level))
    }
    /// `- ` items, and a blank line.
    fn list(&self, items: &[String]) -> String {
        let mut out: String = items.iter().map(|i| format!("- {i}\n")).collect();
        out.push('\n');
        out
    }
}

/// A cell's text with `|` escaped, so it stays one cell.
fn escape(s: &str) -> String {
    s.replace('|', "\\|")
}

/// A figure: as many digits as its column's text width holds (at least
/// 6), `\*` if busy, then its spread as a share of it.
fn figure(value: Option<f64>, busy: bool, spread: Option<f64>, width: usize) -> String {
    let Some(v) = value else {
        return "-".into();
    };
    let mut s = fmt_num(v, width.max(6));
    if busy {
        s.push_str("\\*");
    }
    if let Some(h) = spread {
        s.push_str(&format!(" {}", fmt_spread(h, v, 8)));
    }
    s
}

/// A table: the column names with their alignments, then one row per
/// record.
fn table(t: &Table) -> String {
    let row = |cells: &mut dyn Iterator<Item = String>| {
        let cells: Vec<String> = cells.map(|c| escape(&c)).collect();
        format!("| {} |\n", cells.join(" | "))
    };
    let mut out = row(&mut t.columns.iter().map(|c| c.name.clone()));
    out.push('|');
    for c in &t.columns {
        out.push_str(match c.align {
            Align::Left => "---|",
            Align::Right => "---:|",
        });
    }
    out.push('\n');
    for r in &t.rows {
        out.push_str(&row(&mut r.iter().zip(&t.columns).map(
            |(c, col)| match c {
                Cell::Text(s) | Cell::Alt { markdown: s, .. } => s.clone(),
                Cell::Figure {
                    value,
                    busy,
                    spread,
                } => figure(*value, *busy, *spread, col.width),
            },
        )));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::document::Column;

    #[test]
    fn a_table_aligns_its_columns_and_keeps_a_pipe_inside_its_cell() {
        let t = Table {
            columns: vec![
                Column::new("name", 4, Align::Left),
                Column::new("value", 4, Align::Right),
            ],
            rows: vec![vec![Cell::text("a|b"), Cell::figure(Some(1.5), true)]],
            ..Table::default()
        };
        assert_eq!(
            table(&t),
            "| name | value |\n|---|---:|\n| a\\|b | 1.500\\* |\n"
        );
        assert_eq!(Markdown.busy_notes(&[]), "");
        assert_eq!(Markdown.busy_notes(&["h: x".into()]), "- \\* h: x\n\n");
    }
}
