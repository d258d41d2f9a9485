//! The rows of one SUMMARY table, read two ways. Layout intact: each
//! figure lies under its column's dash run (figures are right-aligned, and
//! some versions shift a column by a few characters, so a figure goes to
//! the run it overlaps most), and an empty cell is empty. Whitespace
//! collapsed (mail archives): the row is words; the OS is the first word
//! pair "name release" (a word with a letter that is no figure, then one
//! with a digit) after which only figures follow, the host is what
//! precedes it (at most three words). With every figure present the columns follow in order; with
//! some missing, which ones is not written down, so the row is aligned
//! with the complete rows of the same table (the placement whose figures
//! are closest to theirs, and clearly closer than any other) and, with no
//! complete row to go by, that table is left out for that machine with a
//! warning rather than guessed.
//!
//! In both, a cell `-` is an empty cell written down (lmbench 1.0 prints
//! it so), and a host's trailing dots are dropped: lmbench 1.0 repeats a
//! host as "name." for another run of one machine, which stays a row of
//! its own (see `summary::collect`).

use super::layouts::{Kind, Layout};
use super::{err, figure, ParseError};

/// One row as read: per column of the layout, a figure (`Some(None)`: a
/// "failed" mark or `-`), or nothing.
pub struct Row {
    pub line: usize,
    pub host: String,
    pub os: String,
    pub cells: Vec<Option<Option<f64>>>,
    pub texts: Vec<(usize, String)>,
    /// Figures of a collapsed row with fewer figures than columns, in order
    /// (their columns are not known yet).
    pub unplaced: Option<Vec<Option<f64>>>,
}

pub enum Read {
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

/// Can `name release` be a row's OS: a word with a letter that is no
/// figure ("38.7K" is one), then a word with a digit?
pub fn is_os(name: &str, release: &str) -> bool {
    has_letter(name) && cell(name).is_none() && has_digit(release)
}

/// A cell as printed: a figure (see [`figure`]), or `-` for an empty one.
pub fn cell(tok: &str) -> Option<Option<f64>> {
    if tok == "-" {
        Some(None)
    } else {
        figure(tok)
    }
}

/// The host of a row: its words, without trailing dots ("p5-133." is
/// another run of "p5-133"), unless nothing else is left.
pub fn host_name(words: &str) -> String {
    let trimmed = words.trim().trim_end_matches('.');
    if trimmed.is_empty() {
        words.trim().to_string()
    } else {
        trimmed.to_string()
    }
}

/// Words with their (start, end) character positions.
pub fn words(line: &[char]) -> Vec<(usize, usize, String)> {
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

fn text(line: &[char]) -> String {
    line.iter().collect()
}

/// Reads a row whose layout is intact (`spans`: the column rule's dash
/// runs, Host and OS first); `None` if it is not. Words right of the last
/// run belong to the last column when that is text (Guesses runs on past
/// its rule).
pub fn read_intact(l: &Layout, spans: &[(usize, usize)], line: &[char], no: usize) -> Option<Read> {
    let (host_end, os_end) = (spans[0].1, spans[1].1);
    let at = |i: usize| line.get(i).copied().unwrap_or(' ');
    if at(host_end) != ' ' || at(os_end) != ' ' || line.len() <= host_end {
        return None;
    }
    let host = host_name(&text(&line[..host_end]));
    let os = text(&line[host_end..os_end.min(line.len())])
        .trim()
        .to_string();
    if host.is_empty() || os.is_empty() {
        return None;
    }
    let cols = &spans[2..];
    let last_text = l.cols.last().is_some_and(|c| c.kind == Kind::Text);
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
        let mut best =
            (0..cols.len()).max_by_key(|&i| (overlap(&cols[i]), usize::MAX - gap(&cols[i])))?;
        if overlap(&cols[best]) == 0 && gap(&cols[best]) > 3 {
            match cols.last() {
                Some(&(a, _)) if last_text && s >= a => best = cols.len() - 1,
                _ => return None,
            }
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
                cells[best] = Some(cell(&w)?);
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
pub fn read_collapsed(l: &Layout, line: &[char], no: usize) -> Result<Read, ParseError> {
    let w: Vec<String> = words(line).into_iter().map(|(_, _, w)| w).collect();
    let lead_text = l.cols.first().is_some_and(|c| c.kind == Kind::Text);
    for i in 1..w.len().saturating_sub(1).min(4) {
        if !is_os(&w[i], &w[i + 1]) || (lead_text && w.len() == i + 2) {
            continue;
        }
        return read_fields(l, &w[..i], [&w[i], &w[i + 1]], &w[i + 2..], no);
    }
    Ok(Read::NotRow)
}

/// Reads the words of a collapsed row once its host and OS are known:
/// the leading text column if the layout has one, the figures in order,
/// then the trailing text column if it has one.
pub fn read_fields(
    l: &Layout,
    host: &[String],
    os: [&str; 2],
    rest: &[String],
    no: usize,
) -> Result<Read, ParseError> {
    let lead_text = l.cols.first().is_some_and(|c| c.kind == Kind::Text);
    let tail_text = l.cols.last().is_some_and(|c| c.kind == Kind::Text) && !lead_text;
    let nfig = l.cols.iter().filter(|c| c.kind == Kind::Figure).count();
    let mut rest = rest;
    let mut texts = Vec::new();
    if lead_text {
        if let Some((d, r)) = rest.split_first() {
            texts.push((0, d.clone()));
            rest = r;
        }
    }
    let mut figs = Vec::new();
    let mut k = 0;
    while k < rest.len() {
        match cell(&rest[k]) {
            Some(v) => figs.push(v),
            None => break,
        }
        k += 1;
    }
    if k < rest.len() {
        if tail_text && !figs.is_empty() {
            texts.push((l.cols.len() - 1, rest[k..].join(" ")));
        } else {
            // The first reading of host and OS that fits the row's start
            // has a word that is no figure: a bad figure (a later reading
            // would only swallow it into the OS).
            return err(
                no,
                format!("{:?} is not a figure (row of \"{}\")", rest[k], l.title),
            );
        }
    }
    if figs.iter().all(Option::is_none) {
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
        host: host_name(&host.join(" ")),
        os: format!("{} {}", os[0], os[1]),
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
    Ok(Read::Row(row))
}

/// Places the figures of collapsed rows that lack some: against the
/// complete rows of the table, or not at all (a warning).
pub fn place(l: &Layout, rows: &mut Vec<Row>, warnings: &mut Vec<String>) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_are_all_there() {
        assert_eq!(combinations(4, 2).len(), 6);
        assert_eq!(combinations(3, 3), vec![vec![0, 1, 2]]);
        assert_eq!(combinations(11, 5).len(), 462);
    }

    #[test]
    fn dashes_are_empty_cells_and_hosts_lose_trailing_dots() {
        assert_eq!(cell("-"), Some(None));
        assert_eq!(cell("3.8K"), Some(Some(3800.0)));
        assert_eq!(cell("--"), None);
        assert_eq!(host_name("p5-133.  "), "p5-133");
        assert_eq!(host_name("pmax-G 0"), "pmax-G 0");
        assert_eq!(host_name(".."), "..");
    }
}
