//! SUMMARY tables as posted. A table is a known title, an underline (and
//! perhaps a "(WARNING ...)" note), header lines starting with "Host OS",
//! a column rule of dash runs (`--------- ------------- ---- ...`), then
//! one row per machine until a blank line, a title, or text that is no row
//! (`rows` reads them, layout intact or whitespace collapsed). Lines quoted
//! in a reply ("> ", "> > ") are read without their quote marks. When no
//! title stands on a line of its own, a mail archive collapsed the post's
//! newlines too, and `stream` reads it as one run of words.

use std::collections::BTreeMap;

use super::layouts::{self, Layout};
use super::rows::{self, place, read_collapsed, read_intact, Read, Row};
use super::stream;
use super::{err, Machine, ParseError, Parsed};

pub fn looks_like(text: &str) -> bool {
    text.lines().any(|l| layouts::is_title(unquote(l).trim())) || stream::looks_like(text)
}

/// A line without the quote marks a mail reply puts before it: each
/// leading '>' and one blank after it, so a quoted table keeps its layout.
pub fn unquote(line: &str) -> &str {
    let mut s = line;
    while let Some(r) = s.strip_prefix('>') {
        s = r.strip_prefix(' ').unwrap_or(r);
    }
    s
}

/// The version a banner line names ("L M B E N C H  2 . 0  S U M M A R Y").
fn banner_version(line: &str) -> Option<String> {
    let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    let at = squeezed.find("LMBENCH")?;
    let rest = &squeezed[at + 7..];
    rest.find("SUMMARY")?;
    let v: String = rest
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    (!v.is_empty()).then_some(v)
}

fn expand_tabs(line: &str) -> Vec<char> {
    let mut out = Vec::new();
    for c in line.chars() {
        if c == '\t' {
            let next = (out.len() / 8 + 1) * 8;
            out.resize(next, ' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// Runs of '-' as (start, end) character positions.
fn dash_runs(line: &[char]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut start = None;
    for (i, &c) in line.iter().chain(std::iter::once(&' ')).enumerate() {
        match (c == '-', start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                runs.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    runs
}

/// A column rule: only dashes and blanks, at least three runs.
fn is_rule(line: &[char]) -> bool {
    line.iter().all(|&c| c == '-' || c == ' ') && dash_runs(line).len() >= 3
}

/// A title's underline: one run of dashes.
fn is_underline(line: &[char]) -> bool {
    line.iter().all(|&c| c == '-' || c == ' ') && dash_runs(line).len() == 1
}

fn text(line: &[char]) -> String {
    line.iter().collect()
}

/// One table as read: its layout and its rows, placed.
pub struct TableRows {
    pub layout: &'static Layout,
    pub rows: Vec<Row>,
}

/// The layout of a table with this title and these header words (after
/// "Host OS"), or the error naming the header's line.
pub fn layout_of(title: &str, head: &[&str], line: usize) -> Result<&'static Layout, ParseError> {
    let same = || layouts::all().filter(|l| layouts::same_title(l.title, title));
    if let Some(l) = same().find(|l| layouts::header_words(l) == head) {
        return Ok(l);
    }
    let known: Vec<&str> = same().map(|l| l.versions).collect();
    err(
        line,
        format!(
            "columns {:?} of \"{}\" are not a layout this importer knows (it knows lmbench {})",
            head.join(" "),
            title.trim(),
            known.join(", ")
        ),
    )
}

pub fn parse(input: &str) -> Result<Parsed, ParseError> {
    let version = input
        .lines()
        .find_map(banner_version)
        .unwrap_or_else(|| "?".to_string());
    let mut warnings = Vec::new();
    let mut tables = line_tables(input, &mut warnings)?;
    if tables.is_empty() {
        tables = stream::tables(input, &mut warnings)?;
    }
    if tables.is_empty() {
        return err(1, "no lmbench SUMMARY table found");
    }
    let mut parsed = collect(tables, &version);
    parsed.warnings = warnings;
    if parsed.machines.is_empty() {
        return err(1, "the SUMMARY tables hold no figures");
    }
    Ok(parsed)
}

/// The tables whose titles stand on lines of their own.
fn line_tables(input: &str, warnings: &mut Vec<String>) -> Result<Vec<TableRows>, ParseError> {
    let lines: Vec<Vec<char>> = input.lines().map(|l| expand_tabs(unquote(l))).collect();
    let mut tables = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let title = text(&lines[i]);
        if !layouts::is_title(title.trim()) {
            i += 1;
            continue;
        }
        let title_no = i + 1;
        i += 1;
        while i < lines.len()
            && (is_underline(&lines[i]) || text(&lines[i]).trim().starts_with('('))
        {
            i += 1;
        }
        let head_start = i;
        while i < lines.len() && !is_rule(&lines[i]) {
            if i - head_start >= 4 || layouts::is_title(text(&lines[i]).trim()) {
                return err(
                    title_no,
                    format!(
                        "\"{}\" has no column rule (\"--------- ------------- ...\") under its header",
                        title.trim()
                    ),
                );
            }
            i += 1;
        }
        if i >= lines.len() {
            return err(
                title_no,
                format!("\"{}\" ends before its column rule", title.trim()),
            );
        }
        let head: Vec<String> = lines[head_start..i]
            .iter()
            .flat_map(|l| rows::words(l).into_iter().map(|(_, _, w)| w))
            .collect();
        if head.len() < 2 || head[0] != "Host" || head[1] != "OS" {
            return err(
                head_start + 1,
                format!(
                    "the header of \"{}\" does not start with \"Host OS\"",
                    title.trim()
                ),
            );
        }
        let head: Vec<&str> = head[2..].iter().map(String::as_str).collect();
        let layout = layout_of(&title, &head, head_start + 1)?;
        let spans = dash_runs(&lines[i]);
        let spans = (spans.len() == 2 + layout.cols.len()).then_some(spans);
        i += 1;
        let mut rows = Vec::new();
        while i < lines.len() {
            let l = &lines[i];
            let t = text(l);
            if t.trim().is_empty() || layouts::is_title(t.trim()) {
                break;
            }
            if l[0] == ' ' {
                i += 1; // an annotation under the table
                continue;
            }
            let read = match spans
                .as_deref()
                .and_then(|s| read_intact(layout, s, l, i + 1))
            {
                Some(r) => r,
                None => read_collapsed(layout, l, i + 1)?,
            };
            match read {
                Read::Row(r) => rows.push(r),
                Read::Empty => {}
                Read::NotRow => break,
            }
            i += 1;
        }
        place(layout, &mut rows, warnings);
        tables.push(TableRows { layout, rows });
    }
    Ok(tables)
}

/// One machine per row, its figures gathered from every table: rows of
/// one host and OS are matched by their order in each table (the n-th
/// "p5-133 FreeBSD 2.1.5" of one table is the n-th of the next).
fn collect(tables: Vec<TableRows>, version: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let mut index: BTreeMap<(String, String, usize), usize> = BTreeMap::new();
    for TableRows { layout, rows } in tables {
        let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
        for r in rows {
            let n = seen.entry((r.host.clone(), r.os.clone())).or_insert(0);
            let key = (r.host.clone(), r.os.clone(), *n);
            *n += 1;
            let at = *index.entry(key).or_insert_with(|| {
                parsed.machines.push(Machine {
                    host: r.host.clone(),
                    os: r.os.clone(),
                    version: version.to_string(),
                    format: "SUMMARY",
                    line: r.line,
                    cells: BTreeMap::new(),
                    extra: BTreeMap::new(),
                    facts: BTreeMap::new(),
                    date: None,
                });
                parsed.machines.len() - 1
            });
            let m = &mut parsed.machines[at];
            for (c, v) in layout.cols.iter().zip(&r.cells) {
                let Some(Some(v)) = v else { continue };
                if let Some((t, k)) = c.ours() {
                    m.cells.insert(t.cell_key(k), *v);
                } else if let Some(t) = c.beside {
                    m.extra
                        .insert(format!("{}/{}", t.key, layouts::col_name(c)), *v);
                }
            }
            for (c, t) in r.texts {
                let name = layouts::col_name(&layout.cols[c]).to_lowercase();
                m.facts.insert(name, t);
            }
        }
    }
    parsed
        .machines
        .retain(|m| !m.cells.is_empty() || !m.extra.is_empty());
    for m in &mut parsed.machines {
        m.repeat_2p_0k();
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banners_name_versions() {
        assert_eq!(
            banner_version("                 L M B E N C H  1 . 9   S U M M A R Y").as_deref(),
            Some("1.9")
        );
        assert_eq!(
            banner_version("L M B E N C H 2 . 0 S U M M A R Y").as_deref(),
            Some("2.0")
        );
        assert_eq!(
            banner_version("L M B E N C H  2 . 0 [PATCH 3]  S U M M A R Y").as_deref(),
            Some("2.0")
        );
        assert_eq!(banner_version("lmbench summary"), None);
    }

    #[test]
    fn quote_marks_go_and_layout_stays() {
        assert_eq!(unquote("> ds20   NetBSD"), "ds20   NetBSD");
        assert_eq!(unquote("> >   (WARNING"), "  (WARNING");
        assert_eq!(unquote(">>Host"), "Host");
        assert_eq!(unquote(">"), "");
        assert_eq!(unquote("no quote > here"), "no quote > here");
    }

    #[test]
    fn tabs_expand_to_eight() {
        assert_eq!(text(&expand_tabs("a\tb")), "a       b");
        assert_eq!(
            dash_runs(&expand_tabs("--- -- -")),
            vec![(0, 3), (4, 6), (7, 8)]
        );
    }
}
