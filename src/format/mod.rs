//! The output formats of every report (`summary`, its `--floors` view,
//! `compare`, with an imported run too, and `check`): a report builds one
//! model ([`document::Report`]: blocks for the formats people read,
//! records for CSV, a data tree for JSON) and [`render`] hands it to the
//! writer of the `--format` asked for. One file per format holds its
//! writer, a [`Writer`], and is the only code that writes that format:
//! `text` (fixed-width columns, lmbench's layout), `markdown` (GitHub
//! tables), `csv` (RFC 4180 records) and `json` (pretty documents). So a
//! field is quoted, a busy figure marked and a legend worded one way in
//! every report, and a new format is one new file.
//!
//! Also here, what the reports share in building their models: figure
//! formatting ([`fmt_num`]), the busy note and the legend.
//!
//! Busy figures: a figure measured while other work used at least the busy
//! threshold of a CPU is marked `*`; a note under its table names the
//! run's busy figures and what ran in the busiest of their windows, and the
//! legend says what `*` means.

use lmbench_support::activity::Activity;

use crate::cells::{busiest, Spread};

use anyhow::Result;

pub mod csv;
pub mod document;
pub mod json;
pub mod markdown;
pub mod text;

pub use document::Report;

/// A format's writer: lays a report's model out as that format's text.
pub trait Writer {
    fn write(&self, report: &Report) -> Result<String>;
}

/// How a format people read (text, Markdown) lays out each kind of
/// block; its [`Writer`] walks the report's blocks.
pub trait Layout {
    /// The audience of this format: text or Markdown.
    const TEXT: bool;
    fn table(&self, t: &document::Table) -> String;
    fn busy_notes(&self, notes: &[String]) -> String;
    fn legend(&self, legend: &str) -> String;
    fn heading(&self, level: usize, text: &str) -> String;
    fn list(&self, items: &[String]) -> String;
}

/// A format people read writes the blocks it shows.
impl<L: Layout> Writer for L {
    fn write(&self, report: &Report) -> Result<String> {
        Ok(lay_out(self, report))
    }
}

/// The blocks of `report` that `layout`'s format shows, laid out.
fn lay_out<L: Layout>(layout: &L, report: &Report) -> String {
    use document::Block;
    let mut out = String::new();
    for block in &report.blocks {
        match block {
            Block::Prose(shown, s) if shown.in_text(L::TEXT) => out.push_str(s),
            Block::Table(shown, t) if shown.in_text(L::TEXT) => out.push_str(&layout.table(t)),
            Block::BusyNotes(notes) => out.push_str(&layout.busy_notes(notes)),
            Block::Legend(s) => out.push_str(&layout.legend(s)),
            Block::Heading(level, s) => out.push_str(&layout.heading(*level, s)),
            Block::List(items) => out.push_str(&layout.list(items)),
            _ => {}
        }
    }
    out
}

/// `report` in `format`.
pub fn render(report: &Report, format: Format) -> Result<String> {
    let writer: &dyn Writer = match format {
        Format::Text => &text::Text,
        Format::Markdown => &markdown::Markdown,
        Format::Csv => &csv::Csv,
        Format::Json => &json::Json,
    };
    writer.write(report)
}

/// The output formats (`--format`) of `summary` and `compare`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Markdown,
    Csv,
    Json,
}

/// Formats `v` in at most `width` characters, keeping as many significant
/// digits as fit, the way lmbench's report does (0.08, 1.25, 12.5, 123,
/// 1234, 12K); large values get a K, M or G suffix; `-` if not finite.
pub fn fmt_num(v: f64, width: usize) -> String {
    if !v.is_finite() {
        return "-".to_string();
    }
    let fits = |s: &str| s.len() <= width;
    // Whole numbers (counts: tlb pages, line bytes, scal load) print bare.
    if v == v.trunc() && v.abs() >= 1.0 && v.abs() < 10f64.powi(width as i32) {
        return format!("{v:.0}");
    }
    // Plain decimal, most precise first: at most 4 significant digits for
    // figures of 1 and above (134.7, 3.892), at most 4 decimals below 1.
    let int_digits = if v.abs() >= 1.0 {
        v.abs().log10().floor() as usize + 1
    } else {
        0
    };
    let max_prec = if int_digits == 0 {
        4
    } else {
        4usize.saturating_sub(int_digits)
    };
    for prec in (0..=max_prec.min(width.saturating_sub(2))).rev() {
        let s = trim_negative_zero(format!("{v:.prec$}"));
        if fits(&s) {
            return s;
        }
    }
    for (div, suffix) in [(1e3, "K"), (1e6, "M"), (1e9, "G")] {
        let scaled = v / div;
        for prec in (0..=2usize).rev() {
            let s = format!("{scaled:.prec$}{suffix}");
            if fits(&s) {
                return s;
            }
        }
    }
    "#".repeat(width)
}

fn trim_negative_zero(s: String) -> String {
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        s[1..].to_string()
    } else {
        s
    }
}

/// One run's busy note: the names of its busy figures (`busy`: name and
/// the window it was measured in) and what ran in the busiest of those
/// windows; `None` if it has none.
pub fn busy_note(host: &str, busy: &[(&str, &Activity)]) -> Option<String> {
    let worst = busiest(busy.iter().map(|(_, a)| *a))?;
    let names: Vec<&str> = busy.iter().map(|(n, _)| *n).collect();
    Some(format!(
        "{host}: measured on a busy machine ({}): {}",
        names.join(", "),
        worst.describe()
    ))
}

/// The closing lines, as plain text: what `*` means (if any figure is
/// busy, at `busy_cpus` CPUs of other work) and what the spread is (if
/// shown). Markdown escapes the `*`.
pub fn legend(any_busy: bool, busy_cpus: f64, spread: Option<Spread>) -> String {
    let mut out = String::new();
    if any_busy {
        out.push_str(&format!(
            "* measured while other work used at least {}% of a CPU: not comparable.\n",
            100.0 * busy_cpus
        ));
    }
    if let Some(kind) = spread {
        out.push_str(&format!(
            "spread: {}, as a share of the figure.\n",
            kind.describe()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_fit_their_width() {
        assert_eq!(fmt_num(0.0812, 4), "0.08");
        assert_eq!(fmt_num(1.254, 4), "1.25");
        assert_eq!(fmt_num(12.54, 4), "12.5");
        assert_eq!(fmt_num(123.4, 4), "123");
        assert_eq!(fmt_num(1234.0, 4), "1234");
        assert_eq!(fmt_num(12345.0, 4), "12K");
        assert_eq!(fmt_num(1234.0, 3), "1K");
        assert_eq!(fmt_num(1250.0, 3), "1K");
        assert_eq!(fmt_num(0.0812, 6), "0.0812");
        assert_eq!(fmt_num(134.7489, 8), "134.7");
        assert_eq!(fmt_num(3.8915, 6), "3.892");
        assert_eq!(fmt_num(1871.18, 7), "1871");
        assert_eq!(fmt_num(2_500_000.0, 4), "2.5M");
        assert_eq!(fmt_num(-0.001, 4), "0.00");
        assert_eq!(fmt_num(f64::NAN, 4), "-");
        assert_eq!(fmt_num(64.0, 5), "64");
    }
}
