//! Markdown: GitHub tables (a header, an alignment row, a row per record,
//! `|` in a cell escaped), busy notes as a list under the table, and the
//! `*` busy mark escaped so it shows rather than starting emphasis.

/// How a column's cells align.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    /// Figures: right-aligned (`---:`).
    Right,
}

/// A cell's text with `|` escaped, so it stays one cell.
pub fn escape(s: &str) -> String {
    s.replace('|', "\\|")
}

/// Text whose `*` marks a busy figure (or the legend's), escaped.
pub fn escape_marks(s: &str) -> String {
    s.replace('*', "\\*")
}

/// A table: `headers` with their alignments, then one row per record (a
/// cell per header).
pub fn table(headers: &[(&str, Align)], rows: impl IntoIterator<Item = Vec<String>>) -> String {
    let row = |cells: &mut dyn Iterator<Item = String>| {
        let cells: Vec<String> = cells.map(|c| escape(&c)).collect();
        format!("| {} |\n", cells.join(" | "))
    };
    let mut out = row(&mut headers.iter().map(|(h, _)| h.to_string()));
    out.push('|');
    for (_, align) in headers {
        out.push_str(match align {
            Align::Left => "---|",
            Align::Right => "---:|",
        });
    }
    out.push('\n');
    for r in rows {
        out.push_str(&row(&mut r.into_iter()));
    }
    out
}

/// The busy notes under a table, one `- \*` item each, and a blank line
/// after them if there are any.
pub fn busy_notes(notes: &[String]) -> String {
    let mut out: String = notes.iter().map(|n| format!("- \\* {n}\n")).collect();
    if !notes.is_empty() {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_aligns_its_columns_and_keeps_a_pipe_inside_its_cell() {
        let t = table(
            &[("name", Align::Left), ("value", Align::Right)],
            [vec!["a|b".to_string(), "1.5\\*".to_string()]],
        );
        assert_eq!(t, "| name | value |\n|---|---:|\n| a\\|b | 1.5\\* |\n");
        assert_eq!(busy_notes(&[]), "");
        assert_eq!(busy_notes(&["h: x".into()]), "- \\* h: x\n\n");
    }
}
