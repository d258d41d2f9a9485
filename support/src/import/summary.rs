//! SUMMARY tables as posted. A table is a known title, an underline (and
//! perhaps a "(WARNING ...)" note), header lines starting with "Host OS",
//! a column rule of dash runs (`--------- ------------- ---- ...`), then
//! one row per machine until a blank line, a title, or text that is no row.
//!
//! Rows are read two ways. Layout intact: each figure lies under its
//! column's dash run (figures are right-aligned, and some versions shift
//! a column by a few characters, so a figure goes to the run it overlaps
//! most), and an empty cell is empty. Whitespace collapsed (mail
//! archives): the row is words; the OS is the first word pair "name
//! release" (a word with a letter, then one with a digit) after which
//! only figures follow, the host is what precedes it (at most three
//! words). With every figure present the columns follow in order; with
//! some missing, which ones is not written down, so the row is aligned
//! with the complete rows of the same table (the placement whose figures
//! are closest to theirs, and clearly closer than any other) and, with no
//! complete row to go by, that table is left out for that machine with a
//! warning rather than guessed.

use std::collections::BTreeMap;

use super::layouts::{self, Kind, Layout, LAYOUTS};
use super::{err, figure, Machine, ParseError, Parsed};

pub fn looks_like(text: &str) -> bool {
    text.lines().any(|l| layouts::is_title(l.trim()))
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

/// Words with their (start, end) character positions.
fn words(line: &[char]) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < line.len() {
        if line[i] == ' ' {
            i += 1;
            continue;
        }
        let s = i;
        while i < line.len() && line[i] != ' ' {
            i += 1;
        }
        out.push((s, i, line[s..i].iter().collect()));
    }
    out
}

/// One row as read: per column of the layout, a figure (`Some(None)`: a
/// "failed" mark), or nothing.
struct Row {
    line: usize,
    host: String,
    os: String,
    cells: Vec<Option<Option<f64>>>,
    texts: Vec<(usize, String)>,
    /// Figures of a collapsed row with fewer figures than columns, in order
    /// (their columns are not known yet).
    unplaced: Option<Vec<Option<f64>>>,
}

enum Read {
    Row(Row),
    /// A row with no figures at all (lmbench 3 prints the Remote table so).
    Empty,
    NotRow,
}

fn has_letter(s: &str) -> bool {
    s.chars().any(|c| c.is_alphabetic())
}
fn has_digit(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_digit())
}

/// Reads a row whose layout is intact; `None` if it is not.
fn read_intact(l: &Layout, spans: &[(usize, usize)], line: &[char], no: usize) -> Option<Read> {
    let (host_end, os_end) = (spans[0].1, spans[1].1);
    let at = |i: usize| line.get(i).copied().unwrap_or(' ');
    if at(host_end) != ' ' || at(os_end) != ' ' || line.len() <= host_end {
        return None;
    }
    let host = text(&line[..host_end]).trim().to_string();
    let os = text(&line[host_end..os_end.min(line.len())])
        .trim()
        .to_string();
    if host.is_empty() || os.is_empty() {
        return None;
    }
    let cols = &spans[2..];
    let mut cells = vec![None; l.cols.len()];
    let mut texts: Vec<(usize, String)> = Vec::new();
    let mut last: Option<usize> = None;
    let tail = if line.len() > os_end {
        &line[os_end..]
    } else {
        &[][..]
    };
    for (s, e, w) in words(tail) {
        let (s, e) = (s + os_end, e + os_end);
        // The run it overlaps most, else the nearest within 3 characters.
        let overlap = |&(a, b): &(usize, usize)| e.min(b).saturating_sub(s.max(a));
        let gap = |&(a, b): &(usize, usize)| if e <= a { a - e } else { s.saturating_sub(b) };
        let best =
            (0..cols.len()).max_by_key(|&i| (overlap(&cols[i]), usize::MAX - gap(&cols[i])))?;
        if overlap(&cols[best]) == 0 && gap(&cols[best]) > 3 {
            return None;
        }
        match l.cols[best].kind {
            Kind::Text => match texts.last_mut() {
                Some((c, t)) if *c == best => {
                    t.push(' ');
                    t.push_str(&w);
                }
                _ => texts.push((best, w)),
            },
            Kind::Figure => {
                if last.is_some_and(|p| p >= best) || cells[best].is_some() {
                    return None;
                }
                cells[best] = Some(figure(&w)?);
            }
        }
        last = Some(best);
    }
    if cells.iter().all(Option::is_none) {
        return Some(Read::Empty);
    }
    Some(Read::Row(Row {
        line: no,
        host,
        os,
        cells,
        texts,
        unplaced: None,
    }))
}

/// Reads a row as words (whitespace collapsed); an error names a word that
/// should be a figure.
fn read_collapsed(l: &Layout, line: &[char], no: usize) -> Result<Read, ParseError> {
    let w: Vec<String> = words(line).into_iter().map(|(_, _, w)| w).collect();
    let lead_text = l.cols.first().is_some_and(|c| c.kind == Kind::Text);
    let tail_text = l.cols.last().is_some_and(|c| c.kind == Kind::Text) && !lead_text;
    let nfig = l.cols.iter().filter(|c| c.kind == Kind::Figure).count();
    for i in 1..w.len().saturating_sub(1).min(4) {
        if !(has_letter(&w[i]) && has_digit(&w[i + 1])) {
            continue;
        }
        let mut rest = &w[i + 2..];
        let mut texts = Vec::new();
        if lead_text {
            let Some((d, r)) = rest.split_first() else {
                continue;
            };
            texts.push((0, d.clone()));
            rest = r;
        }
        let mut figs = Vec::new();
        let mut k = 0;
        while k < rest.len() {
            match figure(&rest[k]) {
                Some(v) => figs.push(v),
                None => break,
            }
            k += 1;
        }
        if k < rest.len() {
            if tail_text && !figs.is_empty() {
                texts.push((l.cols.len() - 1, rest[k..].join(" ")));
            } else {
                // The first reading of host and OS that fits the row's
                // start has a word that is no figure: a bad figure (a
                // later reading would only swallow it into the OS).
                return err(
                    no,
                    format!("{:?} is not a figure (row of \"{}\")", rest[k], l.title),
                );
            }
        }
        if figs.is_empty() {
            return Ok(Read::Empty);
        }
        if figs.len() > nfig {
            return err(
                no,
                format!(
                    "{} figures for the {nfig} columns of \"{}\"",
                    figs.len(),
                    l.title
                ),
            );
        }
        let mut row = Row {
            line: no,
            host: w[..i].join(" "),
            os: format!("{} {}", w[i], w[i + 1]),
            cells: vec![None; l.cols.len()],
            texts,
            unplaced: None,
        };
        if figs.len() == nfig {
            let fig_cols = (0..l.cols.len()).filter(|&c| l.cols[c].kind == Kind::Figure);
            for (c, v) in fig_cols.zip(figs) {
                row.cells[c] = Some(v);
            }
        } else {
            row.unplaced = Some(figs);
        }
        return Ok(Read::Row(row));
    }
    Ok(Read::NotRow)
}

/// Places the figures of collapsed rows that lack some: against the
/// complete rows of the table, or not at all (a warning).
fn place(l: &Layout, rows: &mut Vec<Row>, warnings: &mut Vec<String>) {
    let fig_cols: Vec<usize> = (0..l.cols.len())
        .filter(|&c| l.cols[c].kind == Kind::Figure)
        .collect();
    // Per figure column, the median of ln(figure) over complete rows.
    let refs: Vec<Option<f64>> = fig_cols
        .iter()
        .map(|&c| {
            let mut v: Vec<f64> = rows
                .iter()
                .filter(|r| r.unplaced.is_none() && fig_cols.iter().all(|&c| r.cells[c].is_some()))
                .filter_map(|r| r.cells[c].flatten())
                .map(|x| (x + 1e-3).ln())
                .collect();
            v.sort_by(f64::total_cmp);
            (!v.is_empty()).then(|| v[v.len() / 2])
        })
        .collect();
    let complete = refs.iter().all(Option::is_some);
    rows.retain_mut(|r| {
        let Some(figs) = r.unplaced.take() else {
            return true;
        };
        let cost_of = |choice: &[usize]| -> f64 {
            choice
                .iter()
                .zip(&figs)
                .map(|(&j, v)| match (v, refs[j]) {
                    (Some(v), Some(rf)) => ((v + 1e-3).ln() - rf).abs(),
                    _ => 0.0,
                })
                .sum()
        };
        let mut best: Option<(f64, Vec<usize>)> = None;
        let mut second = f64::INFINITY;
        if complete {
            for choice in combinations(fig_cols.len(), figs.len()) {
                let c = cost_of(&choice);
                match &best {
                    Some((b, _)) if c >= *b => second = second.min(c),
                    _ => {
                        if let Some((b, _)) = best.take() {
                            second = second.min(b);
                        }
                        best = Some((c, choice));
                    }
                }
            }
        }
        match best {
            // Clearly the best placement: each figure within a factor of
            // about 4 of the reference on average beats the next.
            Some((b, choice)) if second - b >= 4f64.ln() => {
                for (j, v) in choice.into_iter().zip(figs) {
                    r.cells[fig_cols[j]] = Some(v);
                }
                true
            }
            _ => {
                warnings.push(format!(
                    "line {}: {} figures for the {} columns of \"{}\" with whitespace collapsed, \
                     and no complete row to tell which are empty: that table is not imported for {}",
                    r.line,
                    figs.len(),
                    fig_cols.len(),
                    l.title,
                    r.host
                ));
                false
            }
        }
    });
}

/// Every increasing choice of `k` of `n` indices.
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur = Vec::with_capacity(k);
    fn go(start: usize, n: usize, k: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for i in start..n {
            if n - i < k - cur.len() {
                break;
            }
            cur.push(i);
            go(i + 1, n, k, cur, out);
            cur.pop();
        }
    }
    go(0, n, k, &mut cur, &mut out);
    out
}

pub fn parse(input: &str) -> Result<Parsed, ParseError> {
    let lines: Vec<Vec<char>> = input.lines().map(expand_tabs).collect();
    let version = input
        .lines()
        .find_map(banner_version)
        .unwrap_or_else(|| "?".to_string());
    let mut parsed = Parsed::default();
    // Machines by (host, OS, which of that name's rows in a table).
    let mut index: BTreeMap<(String, String, usize), usize> = BTreeMap::new();
    let mut tables = 0;
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
            .flat_map(|l| words(l).into_iter().map(|(_, _, w)| w))
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
        let layout = LAYOUTS
            .iter()
            .filter(|l| layouts::same_title(l.title, &title))
            .find(|l| layouts::header_words(l) == head[2..]);
        let Some(layout) = layout else {
            let known: Vec<&str> = LAYOUTS
                .iter()
                .filter(|l| layouts::same_title(l.title, &title))
                .map(|l| l.versions)
                .collect();
            return err(
                head_start + 1,
                format!(
                    "columns {:?} of \"{}\" are not a layout this importer knows (it knows lmbench {})",
                    head[2..].join(" "),
                    title.trim(),
                    known.join(", ")
                ),
            );
        };
        let spans = dash_runs(&lines[i]);
        let spans = (spans.len() == 2 + layout.cols.len()).then_some(spans);
        tables += 1;
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
        place(layout, &mut rows, &mut parsed.warnings);
        let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
        for r in rows {
            let n = seen.entry((r.host.clone(), r.os.clone())).or_insert(0);
            let key = (r.host.clone(), r.os.clone(), *n);
            *n += 1;
            let at = *index.entry(key).or_insert_with(|| {
                parsed.machines.push(Machine {
                    host: r.host.clone(),
                    os: r.os.clone(),
                    version: version.clone(),
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
                match c.ours() {
                    Some((t, k)) => m.cells.insert(t.cell_key(k), *v),
                    None => m
                        .extra
                        .insert(format!("{}: {}", title.trim(), layouts::col_name(c)), *v),
                };
            }
            for (c, t) in r.texts {
                let name = layouts::col_name(&layout.cols[c]).to_lowercase();
                m.facts.insert(name, t);
            }
        }
    }
    if tables == 0 {
        return err(1, "no lmbench SUMMARY table found");
    }
    parsed
        .machines
        .retain(|m| !m.cells.is_empty() || !m.extra.is_empty());
    if parsed.machines.is_empty() {
        return err(1, "the SUMMARY tables hold no figures");
    }
    Ok(parsed)
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
    fn combinations_are_all_there() {
        assert_eq!(combinations(4, 2).len(), 6);
        assert_eq!(combinations(3, 3), vec![vec![0, 1, 2]]);
        assert_eq!(combinations(11, 5).len(), 462);
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
