//! Folded stacks (`proc;outer;...;leaf COUNT`, one line per distinct stack,
//! the format of Brendan Gregg's stackcollapse and of inferno) and what we
//! make of them: flamegraph SVGs, differential flamegraphs, and the top
//! frames as text, so a profile is useful over ssh too. Drawing uses
//! inferno as a library.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::io::{self, BufReader};
use std::path::Path;

/// A profile as folded stacks: stack (frames joined by `;`, root first)
/// to sample count.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stacks {
    pub counts: BTreeMap<String, u64>,
}

impl Stacks {
    /// Parses folded text. Blank lines are skipped; a line without a
    /// trailing count is an error naming its number.
    pub fn parse(text: &str) -> Result<Stacks, String> {
        let mut counts = BTreeMap::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim_end();
            if line.is_empty() {
                continue;
            }
            let bad = || format!("line {}: expected `frame;frame;... COUNT`", n + 1);
            let (stack, count) = line.rsplit_once(' ').ok_or_else(bad)?;
            let count: u64 = count.parse().map_err(|_| bad())?;
            if stack.is_empty() {
                return Err(bad());
            }
            *counts.entry(stack.to_string()).or_insert(0) += count;
        }
        Ok(Stacks { counts })
    }

    /// Reads a `.folded` file; errors name the file.
    pub fn read(path: &Path) -> io::Result<Stacks> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| io::Error::new(e.kind(), format!("reading {}: {e}", path.display())))?;
        Stacks::parse(&text).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {e}", path.display()),
            )
        })
    }

    /// The folded text, one stack per line, sorted (stable for diffs).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for (stack, count) in &self.counts {
            let _ = writeln!(out, "{stack} {count}");
        }
        out
    }

    /// Writes the folded text atomically (a temp file renamed over `path`).
    pub fn write(&self, path: &Path) -> io::Result<()> {
        write_atomic(path, self.to_text().as_bytes())
    }

    pub fn total(&self) -> u64 {
        self.counts.values().sum()
    }

    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// Samples per frame where the frame is the leaf (self time).
    pub fn self_counts(&self) -> HashMap<&str, u64> {
        let mut m = HashMap::new();
        for (stack, &c) in &self.counts {
            let leaf = stack.rsplit(';').next().unwrap_or(stack);
            *m.entry(leaf).or_insert(0) += c;
        }
        m
    }

    /// Samples per frame anywhere on the stack (total time), a recursive
    /// frame counted once per stack.
    pub fn total_counts(&self) -> HashMap<&str, u64> {
        let mut m = HashMap::new();
        for (stack, &c) in &self.counts {
            let mut seen = HashSet::new();
            for f in stack.split(';') {
                if seen.insert(f) {
                    *m.entry(f).or_insert(0) += c;
                }
            }
        }
        m
    }

    /// Rewrites the root frame (perf's `comm`, pprof's thread name) so that
    /// profiles of two builds line up: Cargo names a bench executable
    /// `<name>-<hash>` and the kernel truncates comm to 15 bytes, so the
    /// root of `lat_syscall` reads `lat_syscall-3f2`; it becomes
    /// `lat_syscall`. Names without a hex suffix are kept.
    pub fn strip_build_hash(self) -> Stacks {
        let mut counts = BTreeMap::new();
        for (stack, c) in self.counts {
            let (root, rest) = match stack.split_once(';') {
                Some((r, rest)) => (r, Some(rest)),
                None => (stack.as_str(), None),
            };
            let root = match root.rsplit_once('-') {
                Some((name, hash))
                    if !name.is_empty()
                        && !hash.is_empty()
                        && hash.bytes().all(|b| b.is_ascii_hexdigit()) =>
                {
                    name
                }
                _ => root,
            };
            let s = match rest {
                Some(rest) => format!("{root};{rest}"),
                None => root.to_string(),
            };
            *counts.entry(s).or_insert(0) += c;
        }
        Stacks { counts }
    }
}

/// One row of a top-frames table.
#[derive(Debug, Clone, PartialEq)]
pub struct TopFrame {
    pub frame: String,
    pub self_pct: f64,
    pub total_pct: f64,
}

fn pct(n: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        n as f64 * 100.0 / total as f64
    }
}

/// The `n` frames with the most self time, largest first (ties by name).
pub fn top_self(stacks: &Stacks, n: usize) -> Vec<TopFrame> {
    top_by(stacks, n, true)
}

/// The `n` frames with the most total (inclusive) time, leaving out root
/// frames (process or thread names) and the trunk every stack shares
/// (`_start`, `main`, ... at 100 %), which say nothing.
pub fn top_total(stacks: &Stacks, n: usize) -> Vec<TopFrame> {
    top_by(stacks, n, false)
}

fn top_by(stacks: &Stacks, n: usize, by_self: bool) -> Vec<TopFrame> {
    let total = stacks.total();
    let selfs = stacks.self_counts();
    let totals = stacks.total_counts();
    let roots: HashSet<&str> = stacks
        .counts
        .keys()
        .filter_map(|s| s.split(';').next())
        .collect();
    let mut rows: Vec<(&str, u64, u64)> = totals
        .iter()
        .filter(|(f, &t)| by_self || (!roots.contains(*f) && t < total))
        .map(|(f, &t)| (*f, selfs.get(f).copied().unwrap_or(0), t))
        // Under 0.05 % prints as 0.0 %: noise in a table.
        .filter(|&(_, s, _)| !by_self || pct(s, total) >= 0.05)
        .collect();
    rows.sort_by(|a, b| {
        let (ka, kb) = if by_self { (a.1, b.1) } else { (a.2, b.2) };
        kb.cmp(&ka).then_with(|| a.0.cmp(b.0))
    });
    rows.into_iter()
        .take(n)
        .map(|(f, s, t)| TopFrame {
            frame: f.to_string(),
            self_pct: pct(s, total),
            total_pct: pct(t, total),
        })
        .collect()
}

/// A frame name cut to `max` characters for a terminal line (Rust
/// generics make names of hundreds).
fn short(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        return name.to_string();
    }
    let cut: String = name.chars().take(max - 3).collect();
    format!("{cut}...")
}

/// The text summary `lmbench profile` prints: top frames by self time and
/// by total time.
pub fn summary(stacks: &Stacks, n: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "top frames by self time ({} samples):", stacks.total());
    let _ = writeln!(out, "  {:>6}  {:>6}  frame", "self", "total");
    for r in top_self(stacks, n) {
        let _ = writeln!(
            out,
            "  {:>5.1}%  {:>5.1}%  {}",
            r.self_pct,
            r.total_pct,
            short(&r.frame, 110)
        );
    }
    let _ = writeln!(out, "top frames by total time:");
    for r in top_total(stacks, n) {
        let _ = writeln!(
            out,
            "  {:>5.1}%  {:>5.1}%  {}",
            r.self_pct,
            r.total_pct,
            short(&r.frame, 110)
        );
    }
    out
}

/// Self-time shares that moved most between two profiles (percentage
/// points of each profile's total), as text.
pub fn diff_summary(before: &Stacks, after: &Stacks, n: usize) -> String {
    let (tb, ta) = (before.total(), after.total());
    let sb = before.self_counts();
    let sa = after.self_counts();
    let frames: HashSet<&str> = sb.keys().chain(sa.keys()).copied().collect();
    let mut rows: Vec<(&str, f64, f64)> = frames
        .into_iter()
        .map(|f| {
            let b = pct(sb.get(f).copied().unwrap_or(0), tb);
            let a = pct(sa.get(f).copied().unwrap_or(0), ta);
            (f, b, a)
        })
        // Moves that print as 0.0 are noise.
        .filter(|(_, b, a)| (a - b).abs() >= 0.05)
        .collect();
    rows.sort_by(|x, y| {
        (y.2 - y.1)
            .abs()
            .total_cmp(&(x.2 - x.1).abs())
            .then_with(|| x.0.cmp(y.0))
    });
    let mut out = String::new();
    let _ = writeln!(
        out,
        "self-time shares that moved most (saved {tb} samples, now {ta}):"
    );
    let _ = writeln!(
        out,
        "  {:>6}  {:>6}  {:>7}  frame",
        "saved", "now", "change"
    );
    for (f, b, a) in rows.into_iter().take(n) {
        let _ = writeln!(
            out,
            "  {b:>5.1}%  {a:>5.1}%  {:>+6.1}pp  {}",
            a - b,
            short(f, 100)
        );
    }
    out
}

fn options(title: &str, subtitle: Option<&str>) -> inferno::flamegraph::Options<'static> {
    let mut opt = inferno::flamegraph::Options::default();
    opt.title = title.to_string();
    opt.subtitle = subtitle.map(str::to_string);
    opt.count_name = "samples".to_string();
    // Same frame, same colour in every SVG: two profiles can be compared
    // side by side.
    opt.hash = true;
    opt.deterministic = true;
    opt
}

/// Draws `stacks` as a flamegraph SVG at `out` (written atomically).
pub fn write_svg(
    stacks: &Stacks,
    title: &str,
    subtitle: Option<&str>,
    out: &Path,
) -> io::Result<()> {
    if stacks.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "no samples to draw",
        ));
    }
    let text = stacks.to_text();
    let mut svg = Vec::new();
    inferno::flamegraph::from_lines(&mut options(title, subtitle), text.lines(), &mut svg)
        .map_err(|e| io::Error::new(e.kind(), format!("drawing {}: {e}", out.display())))?;
    write_atomic(out, &svg)
}

/// Draws a differential flamegraph of `after` against `before` at `out`:
/// frames are sized as in `after`, red where their share grew, blue where
/// it shrank (inferno's differential mode; both profiles normalised to the
/// same total, since they hold different sample counts).
pub fn write_diff_svg(
    before: &Stacks,
    after: &Stacks,
    title: &str,
    subtitle: Option<&str>,
    out: &Path,
) -> io::Result<()> {
    if before.is_empty() || after.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "a profile without samples cannot be compared",
        ));
    }
    let opt = inferno::differential::Options {
        normalize: true,
        strip_hex: true,
    };
    let (b, a) = (before.to_text(), after.to_text());
    let mut diff = Vec::new();
    inferno::differential::from_readers(
        opt,
        BufReader::new(b.as_bytes()),
        BufReader::new(a.as_bytes()),
        &mut diff,
    )?;
    let mut svg = Vec::new();
    let diff = String::from_utf8_lossy(&diff);
    inferno::flamegraph::from_lines(&mut options(title, subtitle), diff.lines(), &mut svg)
        .map_err(|e| io::Error::new(e.kind(), format!("drawing {}: {e}", out.display())))?;
    write_atomic(out, &svg)
}

// The shared atomic file writer (`atomic_file`), re-exported.
pub use crate::atomic_file::write_atomic;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_self_total() {
        let s = Stacks::parse("p;a;b 3\np;a 1\np;c;c 2\n\n").unwrap();
        assert_eq!(s.total(), 6);
        assert_eq!(s.self_counts()["b"], 3);
        assert_eq!(s.total_counts()["a"], 4);
        assert_eq!(s.total_counts()["c"], 2, "recursion counted once");
        let top = top_self(&s, 1);
        assert_eq!(top[0].frame, "b");
        assert!((top[0].self_pct - 50.0).abs() < 1e-9);
        assert!(top_total(&s, 10).iter().all(|r| r.frame != "p"));
    }

    #[test]
    fn parse_rejects_missing_count() {
        assert!(Stacks::parse("a;b\n").unwrap_err().contains("line 1"));
        assert!(Stacks::parse("a;b x\n").is_err());
    }

    #[test]
    fn strips_cargo_hash_from_root() {
        let s = Stacks::parse("lat_syscall-3f2;main 1\nlmbench-peer;x 2\nlat_proc-00ab;y 1\n")
            .unwrap()
            .strip_build_hash();
        let keys: Vec<_> = s.counts.keys().cloned().collect();
        assert_eq!(keys, ["lat_proc;y", "lat_syscall;main", "lmbench-peer;x"]);
    }
}
