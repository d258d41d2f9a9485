//! SUMMARY posts whose newlines a mail archive collapsed along with the
//! rest of their whitespace: a table's title, header, rule and rows run on
//! in one long line, or wrap anywhere. The text is read as one run of
//! words (each with the line it is on, for messages; quote marks
//! dropped). A table is a known title's words, its underline and
//! "(WARNING ...)" note, "Host OS" and the header words of one of its
//! layouts, the dash runs of its column rule, then rows.
//!
//! A row starts with one to three host words, the OS ("name release": a
//! word with a letter that is no figure, then one with a digit) and a
//! figure (for the tables that open with a Description, that word then a
//! figure), and runs on while words are figures (`-` an empty cell), read
//! as a row with collapsed whitespace (`rows`). A table ending in a text column
//! (Guesses) takes the words after the figures through the last one that
//! ends in "?" before the next row, at most six: lmbench's guesses are
//! short questions ("Bad mhz?", "No L2 cache?"), and nothing else marks
//! where they end. A table ends at the next title or at words that start
//! no row; a word after a row that lacks figures is a bad figure, refused
//! with its line, when it looks like one (see `bad_figure`).

use super::layouts::{self, Col, Kind, Layout};
use super::rows::{cell, is_os, place, read_fields, Read, Row};
use super::summary::{layout_of, unquote, TableRows};
use super::{err, ParseError};

/// The most words the Guesses text of one row may have.
const GUESS_WORDS: usize = 6;

/// A word of the text and its 1-based line.
struct Word<'a> {
    w: &'a str,
    line: usize,
}

fn words(input: &str) -> Vec<Word<'_>> {
    input
        .lines()
        .enumerate()
        .flat_map(|(i, l)| {
            unquote(l)
                .split_whitespace()
                // A quote mark in mid-line: the archive joined quoted lines.
                .filter(|w| !w.chars().all(|c| c == '>'))
                .map(move |w| Word { w, line: i + 1 })
        })
        .collect()
}

/// Every known title as words, longest first (a 1.0 title is the start of
/// a later version's: "Processor, Processes - times in microseconds").
fn titles() -> Vec<(&'static str, Vec<&'static str>)> {
    let mut t: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
    for l in layouts::all() {
        if !t
            .iter()
            .any(|(title, _)| layouts::same_title(title, l.title))
        {
            t.push((l.title, l.title.split_whitespace().collect()));
        }
    }
    t.sort_by_key(|(_, w)| std::cmp::Reverse(w.len()));
    t
}

/// The title starting at word `p`, and how many words it has.
fn title_at(
    ws: &[Word],
    p: usize,
    titles: &[(&'static str, Vec<&'static str>)],
) -> Option<(&'static str, usize)> {
    titles.iter().find_map(|(title, tw)| {
        let fits =
            ws.len() >= p + tw.len() && ws[p..p + tw.len()].iter().zip(tw).all(|(a, b)| a.w == *b);
        fits.then_some((*title, tw.len()))
    })
}

fn is_dashes(w: &str) -> bool {
    !w.is_empty() && w.bytes().all(|b| b == b'-')
}

pub fn looks_like(text: &str) -> bool {
    let (ws, t) = (words(text), titles());
    (0..ws.len()).any(|p| title_at(&ws, p, &t).is_some())
}

/// Where a row starts at word `p`: how many host words it has.
fn row_start(ws: &[Word], p: usize, lead_text: bool) -> Option<usize> {
    (1..=3).find(|&i| {
        let f = p + i + 2 + usize::from(lead_text);
        f < ws.len() && is_os(ws[p + i].w, ws[p + i + 1].w) && cell(ws[f].w).is_some()
    })
}

pub fn tables(input: &str, warnings: &mut Vec<String>) -> Result<Vec<TableRows>, ParseError> {
    let ws = words(input);
    let titles = titles();
    let mut out = Vec::new();
    let mut p = 0;
    while p < ws.len() {
        let Some((title, n)) = title_at(&ws, p, &titles) else {
            p += 1;
            continue;
        };
        let title_line = ws[p].line;
        let mut q = p + n;
        // The underline, and a note of at most a dozen words such as
        // "(WARNING - may not be correct, check graphs)".
        loop {
            if q < ws.len() && is_dashes(ws[q].w) {
                q += 1;
            } else if q < ws.len() && ws[q].w.starts_with('(') {
                match (q..ws.len().min(q + 12)).find(|&k| ws[k].w.ends_with(')')) {
                    Some(k) => q = k + 1,
                    None => break,
                }
            } else {
                break;
            }
        }
        if !(q + 1 < ws.len() && ws[q].w == "Host" && ws[q + 1].w == "OS") {
            p += 1; // the title's words in a sentence
            continue;
        }
        let head_line = ws[q].line;
        let mut r = q + 2;
        while r < ws.len() && !is_dashes(ws[r].w) && title_at(&ws, r, &titles).is_none() {
            r += 1;
        }
        let head: Vec<&str> = ws[q + 2..r].iter().map(|w| w.w).collect();
        let layout = layout_of(title, &head, head_line)?;
        if r >= ws.len() || !is_dashes(ws[r].w) {
            return err(
                title_line,
                format!("\"{title}\" ends before its column rule"),
            );
        }
        while r < ws.len() && is_dashes(ws[r].w) {
            r += 1;
        }
        let (mut rows, end) = read_rows(layout, &ws, r, &titles)?;
        place(layout, &mut rows, warnings);
        out.push(TableRows { layout, rows });
        p = end;
    }
    Ok(out)
}

/// The rows of a table from word `p`, and the word after them.
fn read_rows(
    l: &'static Layout,
    ws: &[Word],
    mut p: usize,
    titles: &[(&'static str, Vec<&'static str>)],
) -> Result<(Vec<Row>, usize), ParseError> {
    let text_col = |c: Option<&Col>| c.is_some_and(|c| c.kind == Kind::Text);
    let lead_text = text_col(l.cols.first());
    let tail_text = text_col(l.cols.last()) && !lead_text;
    let nfig = l.cols.iter().filter(|c| c.kind == Kind::Figure).count();
    let mut rows = Vec::new();
    while p < ws.len() && title_at(ws, p, titles).is_none() {
        let Some(i) = row_start(ws, p, lead_text) else {
            break;
        };
        let first = p + i + 2 + usize::from(lead_text);
        let mut k = first;
        while k < ws.len() && cell(ws[k].w).is_some() {
            k += 1;
        }
        let mut end = k;
        if tail_text {
            end = guesses_end(ws, k, titles);
        }
        if end == k && k - first < nfig && bad_figure(ws, k, lead_text) {
            return err(
                ws[k].line,
                format!("{:?} is not a figure (row of \"{}\")", ws[k].w, l.title),
            );
        }
        let host: Vec<String> = ws[p..p + i].iter().map(|w| w.w.to_string()).collect();
        let rest: Vec<String> = ws[p + i + 2..end].iter().map(|w| w.w.to_string()).collect();
        let os = [ws[p + i].w, ws[p + i + 1].w];
        if let Read::Row(r) = read_fields(l, &host, os, &rest, ws[p].line)? {
            rows.push(r);
        }
        p = end;
    }
    Ok((rows, p))
}

/// Is word `k`, which ends a row that lacks figures, a figure misprinted
/// rather than the next row's host or the text after the table? It is
/// when it starts with a digit, unless it alone is the host of a row
/// starting there ("486dx2 Linux 1.2.8 ..."); or, starting no row, when
/// figures follow it ("14O8 854", "fast 854 1515").
fn bad_figure(ws: &[Word], k: usize, lead_text: bool) -> bool {
    let Some(w) = ws.get(k) else {
        return false;
    };
    let is_cell = |j: usize| ws.get(j).is_some_and(|w| cell(w.w).is_some());
    let digit_first = w.w.starts_with(|c: char| c.is_ascii_digit());
    match row_start(ws, k, lead_text) {
        Some(1) => false,
        Some(_) => digit_first,
        None => {
            digit_first
                || (w.w.contains(|c: char| c.is_ascii_digit()) && is_cell(k + 1))
                || (is_cell(k + 1) && is_cell(k + 2))
        }
    }
}

/// The end of the Guesses text that starts at word `k`: after the last
/// word ending in "?" before the next row or title, within
/// [`GUESS_WORDS`] words (`k` if there is none).
fn guesses_end(ws: &[Word], k: usize, titles: &[(&'static str, Vec<&'static str>)]) -> usize {
    let mut end = k;
    for j in k..ws.len().min(k + GUESS_WORDS) {
        if title_at(ws, j, titles).is_some() {
            break;
        }
        // A row whose host words hold no question starts here.
        if let Some(i) = row_start(ws, j, false) {
            if !ws[j..j + i].iter().any(|w| w.w.ends_with('?')) {
                break;
            }
        }
        if ws[j].w.ends_with('?') {
            end = j + 1;
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{parse, ParseError};

    /// A 1.0 memory table run onto one line, rows as given.
    fn mem(rows: &str) -> String {
        format!(
            "Memory latencies in nanoseconds ---- (WARNING - may not be correct, check graphs) \
             Host OS Mhz L1 $ L2 $ Main mem TLB Guesses --------- ---- ---- {rows}\n"
        )
    }

    fn refused(text: &str) -> ParseError {
        parse(text).expect_err("accepted")
    }

    #[test]
    fn guesses_end_at_the_last_question_before_the_next_row() {
        let p = parse(&mem(
            "a1 Linux 1.2 90 8 60 200 900 No L2 cache? Bad mhz? b2 FreeBSD 2.1 90 9 61 210 950 \
             c3 Linux 1.3 90 9 62 220 960 Bad mhz? Comments? welcome",
        ))
        .unwrap();
        let g: Vec<(&str, Option<&str>)> = p
            .machines
            .iter()
            .map(|m| (&*m.host, m.facts.get("guesses").map(String::as_str)))
            .collect();
        // The last row's text is cut at its last question within six words.
        assert_eq!(
            g,
            [
                ("a1", Some("No L2 cache? Bad mhz?")),
                ("b2", None),
                ("c3", Some("Bad mhz? Comments?"))
            ]
        );
    }

    #[test]
    fn words_after_a_short_row_are_the_next_host_or_prose_or_a_bad_figure() {
        // A host starting with a digit after a row that ends early.
        let p = parse(&mem(
            "a1 Linux 1.2 90 8 60 200 486dx2 Linux 1.2 66 9 70 240 990",
        ))
        .unwrap();
        let hosts: Vec<&str> = p.machines.iter().map(|m| &*m.host).collect();
        assert_eq!(hosts, ["a1", "486dx2"]);
        // Prose after the table.
        let p = parse(&mem(
            "a1 Linux 1.2 90 8 60 200 950 b2 Linux 1.2 90 8 60 210 The 2.2 run",
        ))
        .unwrap();
        assert_eq!(p.machines.len(), 2);
        for bad in [
            "a1 Linux 1.2 90 8 6O 200 950",
            "a1 Linux 1.2 90 8 60 200 9S0",
            "a1 Linux 1.2 90 8 fast 200 950",
            "a1 Linux 1.2 90 8 60 200 9S0 b2 x Linux 1.2 90 8 60 200 950",
        ] {
            let e = refused(&mem(bad));
            assert!(e.msg.contains("is not a figure"), "{bad}: {e}");
            assert_eq!(e.line, 1);
        }
    }

    #[test]
    fn a_title_in_a_sentence_is_no_table() {
        let e = refused("The Memory latencies in nanoseconds table looks off.\n");
        assert_eq!(e.line, 1);
        assert!(looks_like("x Memory latencies in nanoseconds y"));
        assert!(!looks_like("Memory latencies in microseconds"));
    }
}
