//! Reading the C suite's results: the "L M B E N C H  x . y  S U M M A R Y"
//! tables of lmbench 1.0 to 3.0 as users posted them (layout intact,
//! quoted in a reply, or with whitespace collapsed by a mail archive,
//! newlines included), and the per-run results files lmbench 2.x/3.x write
//! (`results/<os>/<host>.<n>`). Written from the format as published,
//! never from the C suite's code.
//!
//! [`parse`] is a plain function over text (fuzzers drive it directly):
//! one [`Machine`] per row (SUMMARY) or per file (results), with figures
//! keyed like our own summary columns (`Table::cell_key`) so `lmbench
//! summary` can put them beside a run of ours. A file that is not one of
//! these formats, or a row or figure that cannot be read, is an error
//! naming the line.

mod layouts;
mod lmbench1;
mod results;
mod rows;
mod stream;
mod summary;

use std::collections::BTreeMap;
use std::fmt;

/// The columns of ours that the layouts of lmbench 3's published local
/// summary tables read (the Remote table left out): held equal to the
/// catalog's `LMBENCH3_COLUMNS` by a test.
#[cfg(test)]
fn lmbench3_layout_columns() -> Vec<(&'static lmbench_support::catalog::Table, usize)> {
    let mut out: Vec<(&'static lmbench_support::catalog::Table, usize)> = Vec::new();
    for l in layouts::all().filter(|l| l.versions.contains("3.0")) {
        for (t, i) in l.cols.iter().filter_map(layouts::Col::ours) {
            let remote = t.key.starts_with("remote");
            if !remote && !out.iter().any(|(u, j)| std::ptr::eq(*u, t) && *j == i) {
                out.push((t, i));
            }
        }
    }
    out
}

/// The figures read for one machine (a SUMMARY row, or a results file).
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    /// As the file names it (a SUMMARY host may contain spaces).
    pub host: String,
    /// "Linux 2.4.20", as the file shows it (SUMMARY cuts it to 13 chars).
    pub os: String,
    /// The C suite's version, "1.9", "3.0", or "?" when the file does not say.
    pub version: String,
    /// What was read: "SUMMARY" or "results file".
    pub format: &'static str,
    /// The line where this machine's figures start.
    pub line: usize,
    /// Figures by our column (`table key/column name`), in its unit.
    pub cells: BTreeMap<String, f64>,
    /// Figures of columns none of our tables has, by the table of ours
    /// they belong beside and their published name (`ctx/8-proc ctxsw`).
    pub extra: BTreeMap<String, f64>,
    /// Text columns (Description, Guesses) and header facts, by name.
    pub facts: BTreeMap<String, String>,
    /// When the file says.
    pub date: Option<String>,
}

impl Machine {
    /// lmbench prints the 2p/0K switch twice, first in the context
    /// switching table and again in the communication latencies: a file
    /// that gives it once (a results file, a 1.0 table) gives both cells.
    pub(crate) fn repeat_2p_0k(&mut self) {
        use lmbench_support::catalog::tables::{COMM_LAT, CTX};
        if let Some(v) = self.cells.get(&CTX.cell_key(0)).copied() {
            self.cells.entry(COMM_LAT.cell_key(0)).or_insert(v);
        }
    }
}

/// What a file gave: machines, and notes on what was left out.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parsed {
    pub machines: Vec<Machine>,
    pub warnings: Vec<String>,
}

/// A file that cannot be read as lmbench results, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based.
    pub line: usize,
    pub msg: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.msg)
    }
}

impl std::error::Error for ParseError {}

pub(crate) fn err<T>(line: usize, msg: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError {
        line,
        msg: msg.into(),
    })
}

/// Reads a SUMMARY post or a results file (the format is recognised from
/// the text).
pub fn parse(text: &str) -> Result<Parsed, ParseError> {
    if results::looks_like(text) {
        results::parse(text)
    } else if summary::looks_like(text) {
        summary::parse(text)
    } else {
        err(
            1,
            "neither an lmbench SUMMARY (no table such as \"Processor, Processes - times in \
             microseconds\") nor an lmbench results file (no \"[lmbench... results for\" header \
             or \"Simple syscall:\" line)",
        )
    }
}

/// A figure as the C suite prints it: `12`, `0.60K`, `22.`, `13.K`, `3K`,
/// `1.2M`; `-1` and other negatives are its "failed" marks and read as
/// absent (`Ok(None)`). K and M are thousands and millions.
pub fn figure(tok: &str) -> Option<Option<f64>> {
    let (num, mult) = match tok.as_bytes().last()? {
        b'K' => (&tok[..tok.len() - 1], 1e3),
        b'M' => (&tok[..tok.len() - 1], 1e6),
        _ => (tok, 1.0),
    };
    if num.is_empty() || num == "-" || num == "." {
        return None;
    }
    let ok = num
        .bytes()
        .enumerate()
        .all(|(i, b)| b.is_ascii_digit() || b == b'.' || (i == 0 && b == b'-'));
    if !ok || num.bytes().filter(|&b| b == b'.').count() > 1 {
        return None;
    }
    let v: f64 = num.parse().ok()?;
    if !v.is_finite() {
        return None;
    }
    Some((v >= 0.0).then_some(v * mult))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lmbench_support::catalog::Table;

    #[test]
    fn lmbench3_columns_are_its_local_tables_columns() {
        let names: Vec<String> = lmbench3_layout_columns()
            .iter()
            .map(|(t, i)| format!("{}/{}", t.key, t.column_name(*i)))
            .collect();
        for want in [
            "processes/null call",
            "ctx/16p/64K ctxsw",
            "comm_lat/TCP conn",
            "fs_vm/Page Fault",
            "comm_bw/Mem write",
            "mem_lat/Rand mem",
            "sysparams/mem par",
            "ops_double/double bogo",
        ] {
            assert!(names.iter().any(|n| n == want), "{want} missing: {names:?}");
        }
        // Ours and the Remote tables are not lmbench 3's local columns.
        for not in ["comm_bw/Heap reread", "mem_lat/L3 $", "remote_lat/TCP"] {
            assert!(!names.iter().any(|n| n == not), "{not} present");
        }
        assert!(!names.iter().any(|n| n.starts_with("ctx_pinned")));
    }

    /// The catalog's fact and what the importer's layouts read agree.
    #[test]
    fn the_catalog_lists_the_columns_lmbench_3_prints() {
        let key = |(t, i): &(&Table, usize)| t.cell_key(*i);
        let layouts: Vec<String> = lmbench3_layout_columns().iter().map(key).collect();
        let catalog: Vec<String> = lmbench_support::catalog::tables::lmbench3_columns()
            .iter()
            .map(key)
            .collect();
        assert_eq!(layouts, catalog);
        assert_eq!(
            catalog.len(),
            lmbench_support::catalog::tables::LMBENCH3_COLUMNS.len(),
            "every key names a column"
        );
    }

    #[test]
    fn figures_read_as_printed() {
        for (t, v) in [
            ("12", 12.0),
            ("22.", 22.0),
            ("0.60K", 600.0),
            ("13.K", 13_000.0),
            ("3K", 3000.0),
            ("1.6100", 1.61),
            ("1785192", 1_785_192.0),
            ("1.5M", 1_500_000.0),
        ] {
            assert_eq!(figure(t), Some(Some(v)), "{t}");
        }
        assert_eq!(figure("-1"), Some(None));
        for bad in [
            "", "K", "-", "1.5ZC", "T5.0", "1.2.3", "abc", "1e5", "NaN", "--1",
        ] {
            assert_eq!(figure(bad), None, "{bad}");
        }
    }

    #[test]
    fn unknown_text_is_refused_at_line_one() {
        let e = parse("hello\nworld\n").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.msg.contains("neither an lmbench SUMMARY"));
        assert!(parse("").is_err());
    }
}
