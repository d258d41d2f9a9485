//! `compare` with an imported run, which has figures but no samples.

use anyhow::{bail, Result};
use lmbench_support::catalog::TABLES;

use crate::export::fmt_num;
use crate::results::Run;

/// A comparison with an imported run: the summary columns both have, old
/// and new and the change, and "no samples" where a verdict would be (an
/// imported figure has no samples to test).
pub fn render_imported(old: &Run, new: &Run) -> Result<String> {
    let mut rows = Vec::new();
    for t in TABLES {
        for i in 0..t.columns.len() {
            if let (Some(o), Some(n)) = (old.cell(t, i), new.cell(t, i)) {
                rows.push((format!("{}: {}", t.key, t.column_name(i)), o, n));
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
    let origin = |r: &Run| match &r.imported {
        Some(i) => format!("{}, imported from {}", i.format, i.source),
        None => format!("lmbench-rs {}, {}", r.meta.suite_version, r.meta.date),
    };
    let mut out = format!(
        "OLD {}  {}\nNEW {}  {}\n\n",
        old.host(),
        origin(old),
        new.host(),
        origin(new)
    );
    let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(6).max(6);
    out.push_str(&format!(
        "{:<w$} {:>9} {:>9} {:>8}  verdict\n",
        "column", "old", "new", "change"
    ));
    for (name, o, n) in &rows {
        let change = if *o != 0.0 { (n - o) / o * 100.0 } else { 0.0 };
        out.push_str(&format!(
            "{name:<w$} {:>9} {:>9} {:>+7.1}%  no samples\n",
            fmt_num(*o, 9),
            fmt_num(*n, 9),
            change
        ));
    }
    out.push_str(&format!(
        "\n{} summary columns; no verdicts: an imported run has figures, not samples.\n",
        rows.len()
    ));
    Ok(out)
}
