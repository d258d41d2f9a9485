//! Text: lmbench's layout. Prose as it is; tables in fixed-width columns
//! (a title over a dashed rule, header lines, figures right-aligned with
//! as many digits as fit, a line of spreads under a row), every line's
//! trailing blanks trimmed; busy notes as `  * ` lines under the table.

use super::document::{Align, Cell, Column, Table};
use super::{fmt_num, Layout};
use crate::cells::fmt_spread;

/// The text writer.
pub struct Text;

impl Layout for Text {
    const TEXT: bool = true;
    fn table(&self, t: &Table) -> String {
        table(t)
    }
    fn busy_notes(&self, notes: &[String]) -> String {
        notes.iter().map(|n| format!("  * {n}\n")).collect()
    }
    fn legend(&self, legend: &str) -> String {
        legend.to_string()
    }
    /// None: a text report's tables carry their titles.
    fn heading(&self, _: usize, _: &str) -> String {
        String::new()
    }
    /// None: a text report says the same in its own lines.
    fn list(&self, _: &[String]) -> String {
        String::new()
    }
}

/// A figure in `width` characters: `-` where there is none; a busy one
/// ends in `*` and keeps the width by showing one digit fewer.
pub fn figure(value: Option<f64>, busy: bool, width: usize) -> String {
    match (value, busy) {
        (None, _) => "-".into(),
        (Some(v), false) => fmt_num(v, width),
        (Some(v), true) => format!("{}*", fmt_num(v, width.saturating_sub(1))),
    }
}

/// Appends `s` as a line, its trailing blanks trimmed (a row's last
/// column may be empty).
fn push_line(out: &mut String, s: &str) {
    out.push_str(s.trim_end());
    out.push('\n');
}

/// A rule of dashes under the header, one run per column `widths` wide.
fn rule(columns: &[Column]) -> String {
    let mut s = String::new();
    for (i, c) in columns.iter().enumerate() {
        if i > 0 {
            s.push_str(&" ".repeat(c.gap));
        }
        s.push_str(&"-".repeat(c.width));
    }
    s
}

/// `s` in a column: aligned to its width, cut to it if the column clips.
fn place(line: &mut String, c: &Column, first: bool, s: &str) {
    if !first {
        line.push_str(&" ".repeat(c.gap));
    }
    let s: String = if c.clip {
        s.chars().take(c.width).collect()
    } else {
        s.to_string()
    };
    match c.align {
        Align::Left => line.push_str(&format!("{s:<w$}", w = c.width)),
        Align::Right => line.push_str(&format!("{s:>w$}", w = c.width)),
    }
}

/// Header line `row`: each header at its column's start (or its end, if it
/// aligns right); a left one longer than its column runs on, pushing the
/// rest of the line right ("0K File" over Create and Delete, as lmbench).
fn header_line(columns: &[Column], row: usize) -> String {
    let mut s = String::new();
    for (i, c) in columns.iter().enumerate() {
        let header = match (row, c.header.is_empty()) {
            (0, true) => c.name.as_str(),
            (_, true) => "",
            _ => c.header.get(row).map_or("", String::as_str),
        };
        if i > 0 {
            s.push_str(&" ".repeat(c.gap));
        }
        let start = s.len();
        s.push_str(&" ".repeat(c.width));
        let at = match c.header_align.unwrap_or(c.align) {
            Align::Right if header.len() <= c.width => start + c.width - header.len(),
            _ => start,
        };
        if s.len() < at + header.len() {
            s.push_str(&" ".repeat(at + header.len() - s.len()));
        }
        s.replace_range(at..at + header.len(), header);
    }
    s
}

/// A cell as text, `width` wide for a figure.
fn cell(c: &Cell, width: usize) -> String {
    match c {
        Cell::Text(s) | Cell::Alt { text: s, .. } => s.clone(),
        Cell::Figure { value, busy, .. } => figure(*value, *busy, width),
    }
}

/// The line of spreads under a row: the label in the last column before
/// the first figure, each figure's spread as a share of it, `-` without.
fn spread_line(t: &Table, label: &str, row: &[Cell]) -> String {
    let first_figure = row
        .iter()
        .position(|c| matches!(c, Cell::Figure { .. }))
        .unwrap_or(row.len());
    let mut s = String::new();
    for (i, (c, col)) in row.iter().zip(&t.columns).enumerate() {
        let text = match c {
            Cell::Figure {
                value: Some(v),
                spread: Some(h),
                ..
            } => fmt_spread(*h, *v, col.width),
            Cell::Figure { .. } => "-".to_string(),
            _ if i + 1 == first_figure => label.to_string(),
            _ => String::new(),
        };
        place(&mut s, col, i == 0, &text);
    }
    s
}

/// A table in fixed-width columns.
pub fn table(t: &Table) -> String {
    let mut out = String::new();
    let mut line = |s: &str| push_line(&mut out, s);
    if let Some(title) = &t.title {
        let width = t.title_rule.unwrap_or_else(|| rule(&t.columns).len());
        line(title);
        line(&"-".repeat(width.max(title.len())));
    }
    let header_lines = t.columns.iter().map(|c| c.header.len()).max().unwrap_or(0);
    for row in 0..header_lines.max(1) {
        line(&header_line(&t.columns, row));
    }
    if t.header_rule {
        line(&rule(&t.columns));
    }
    for row in &t.rows {
        let mut s = String::new();
        for (i, (c, col)) in row.iter().zip(&t.columns).enumerate() {
            place(&mut s, col, i == 0, &cell(c, col.width));
        }
        line(&s);
        if let Some(label) = &t.spread_label {
            line(&spread_line(t, label, row));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_figure_keeps_its_width_with_one_digit_fewer() {
        assert_eq!(figure(Some(0.0812), false, 6), "0.0812");
        assert_eq!(figure(Some(0.0812), true, 6), "0.081*");
        assert_eq!(figure(None, true, 6), "-");
    }

    #[test]
    fn a_table_aligns_its_columns_and_trims_its_lines() {
        let mut name = Column::new("name", 6, Align::Left);
        name.clip = true;
        let t = Table {
            title: Some("T".into()),
            columns: vec![name, Column::new("value", 5, Align::Right)],
            rows: vec![vec![Cell::text("abcdefgh"), Cell::figure(Some(1.5), true)]],
            header_rule: true,
            ..Table::default()
        };
        assert_eq!(
            table(&t),
            "T\n------------\nname   value\n------ -----\nabcdef 1.50*\n"
        );
    }

    #[test]
    fn a_long_left_header_runs_on_and_a_right_one_ends_at_its_column() {
        let stacked = |name: &str, top: &str, width| Column {
            header: vec![top.to_string(), name.to_string()],
            ..Column::new(name, width, Align::Left)
        };
        let os = Column {
            header_align: Some(Align::Right),
            ..Column::new("OS", 4, Align::Left)
        };
        let columns = vec![os, stacked("Create", "0K File", 6), stacked("Del", "", 4)];
        assert_eq!(header_line(&columns, 0), "  OS 0K File     ");
        assert_eq!(header_line(&columns, 1), "     Create Del ");
    }
}
