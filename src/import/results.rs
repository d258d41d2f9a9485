//! lmbench 2.x/3.x results files (`results/<os>/<host>.<n>`), as
//! published: bracketed header lines (`[lmbench3.0 results for Linux HOST
//! RELEASE ...]`, `[HOSTNAME: h]`, `[MHZ: 4952 MHz, ...]`, a date),
//! `Label: figure unit` lines, and blocks: a title line (often opening
//! with `"`) followed by `x y` lines up to a blank line. Lines this reader
//! does not know (a benchmark's own error messages, mounts) are skipped; a
//! known label or a block line whose figure cannot be read is an error.
//!
//! What feeds our columns: each `Label:` line its column; the columns the
//! C suite's summary derives from blocks take, here, the block's largest
//! size (Mmap Latency, the bandwidth sweeps, Socket bandwidth), its row
//! `n` of `"size=K` (context switching: 2p/16K is n=2 of `size=16k`), or
//! creates and deletes per second turned into microseconds (File system
//! latency). Memory latencies: L1 $ is the stride-128 chain at its
//! smallest size and Main mem at its largest; L2 $ needs the C suite's
//! cache guesses and is not derived.

use std::collections::BTreeMap;

use super::{err, figure, Machine, ParseError, Parsed};
use lmbench_support::catalog::tables::{
    COMM_BW, COMM_LAT, CTX, FS_VM, MEM_LAT, PROCESSES, REMOTE_BW, REMOTE_LAT, SYSPARAMS,
};
use lmbench_support::catalog::Table;

pub fn looks_like(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_start();
        (l.starts_with("[lmbench") && l.contains("results for")) || l.starts_with("Simple syscall:")
    })
}

/// `Label: figure microseconds` lines and the column each feeds.
const LATENCIES: &[(&str, &Table, usize)] = &[
    ("Simple syscall", &PROCESSES, 1),
    ("Simple stat", &PROCESSES, 3),
    ("Simple open/close", &PROCESSES, 4),
    ("Select on 100 tcp fd's", &PROCESSES, 5),
    ("Signal handler installation", &PROCESSES, 6),
    ("Signal handler overhead", &PROCESSES, 7),
    ("Process fork+exit", &PROCESSES, 8),
    ("Process fork+execve", &PROCESSES, 9),
    ("Process fork+/bin/sh -c", &PROCESSES, 10),
    ("Protection fault", &FS_VM, 5),
    ("Select on 100 fd's", &FS_VM, 7),
    ("Pipe latency", &COMM_LAT, 1),
    ("AF_UNIX sock stream latency", &COMM_LAT, 2),
];

/// `Label: figure MB/sec` lines.
const BANDWIDTHS: &[(&str, &Table, usize)] = &[
    ("Pipe bandwidth", &COMM_BW, 0),
    ("AF_UNIX sock stream bandwidth", &COMM_BW, 1),
];

/// `KIND latency using HOST: figure microseconds` (and connection cost):
/// the local column for localhost, the remote one otherwise.
const NETWORK: &[(&str, usize, usize)] = &[
    ("UDP latency using ", 3, 0),
    ("RPC/udp latency using ", 4, 1),
    ("TCP latency using ", 5, 2),
    ("RPC/tcp latency using ", 6, 3),
    ("TCP/IP connection cost to ", 7, 4),
];

/// Blocks whose largest size feeds a column.
const SWEEPS: &[(&str, &Table, usize)] = &[
    ("mappings", &FS_VM, 4),
    ("read bandwidth", &COMM_BW, 3),
    ("Mmap read bandwidth", &COMM_BW, 4),
    ("libc bcopy aligned", &COMM_BW, 5),
    ("unrolled bcopy unaligned", &COMM_BW, 6),
    ("Memory read bandwidth", &COMM_BW, 7),
    ("Memory write bandwidth", &COMM_BW, 8),
];

fn is_local(host: &str) -> bool {
    matches!(
        host,
        "localhost" | "127.0.0.1" | "::1" | "localhost.localdomain"
    )
}

/// A block: its title, first line, and (x, y) points.
struct Block {
    title: String,
    line: usize,
    points: Vec<(f64, f64)>,
}

impl Block {
    fn largest(&self) -> Option<f64> {
        self.points
            .iter()
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|p| p.1)
    }
    fn smallest(&self) -> Option<f64> {
        self.points
            .iter()
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|p| p.1)
    }
    fn at(&self, x: f64) -> Option<f64> {
        self.points.iter().find(|p| p.0 == x).map(|p| p.1)
    }
}

/// A block line's first two words as figures ("0.524288 9.824", "2 3.40",
/// "0.000064 98.34 MB/sec"); the File system latency block starts with a
/// size word ("0k 469 84505 138552").
fn block_point(line: &str) -> Option<Vec<f64>> {
    line.split_whitespace()
        .filter(|w| *w != "MB/sec")
        .map(|w| match w.strip_suffix('k') {
            Some(n) => n.parse::<f64>().ok(),
            None => figure(w).flatten(),
        })
        .collect()
}

pub fn parse(text: &str) -> Result<Parsed, ParseError> {
    let mut m = Machine {
        host: String::new(),
        os: String::new(),
        version: "?".into(),
        format: "results file",
        line: 1,
        cells: BTreeMap::new(),
        extra: BTreeMap::new(),
        facts: BTreeMap::new(),
        date: None,
    };
    let (mut sysname, mut release) = (None::<String>, None::<String>);
    let mut read_write: (Option<f64>, Option<f64>) = (None, None);
    let mut blocks: Vec<Block> = Vec::new();
    let mut open: Option<Block> = None;
    let mut warnings = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let no = n + 1;
        let line = raw.trim_end();
        if let Some(b) = open.as_mut() {
            if line.trim().is_empty() {
                blocks.extend(open.take());
                continue;
            }
            if let Some(p) = block_point(line) {
                if p.len() >= 2 {
                    b.points.push((p[0], p[1]));
                    if b.title.starts_with("File system latency") {
                        fs_latency_point(&p, &mut m);
                    }
                    continue;
                }
            }
            if line.starts_with(|c: char| c.is_ascii_digit()) {
                return err(
                    no,
                    format!("{line:?} is not a figure pair of block \"{}\"", b.title),
                );
            }
            // Another block or label starts without a blank line.
            blocks.extend(open.take());
        }
        let t = line.trim();
        if let Some(h) = t.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            header(h, &mut m, &mut sysname, &mut release);
            continue;
        }
        if let Some(title) = t.strip_prefix('"') {
            open = Some(Block {
                title: title.to_string(),
                line: no,
                points: Vec::new(),
            });
            continue;
        }
        if t == "Socket bandwidth using localhost"
            || t.starts_with("Socket bandwidth using ")
            || t.ends_with(" bandwidth")
        {
            open = Some(Block {
                title: t.to_string(),
                line: no,
                points: Vec::new(),
            });
            continue;
        }
        let Some((label, value)) = t.split_once(": ") else {
            continue;
        };
        label_line(label, value, no, &mut m, &mut read_write)?;
    }
    blocks.extend(open.take());
    if let (Some(r), Some(w)) = read_write {
        m.cells.insert(PROCESSES.cell_key(2), (r + w) / 2.0);
    }
    from_blocks(&blocks, &mut m, &mut warnings);
    m.repeat_2p_0k();
    m.os = match (sysname, release) {
        (Some(s), Some(r)) => format!("{s} {r}"),
        (Some(s), None) => s,
        _ => "?".into(),
    };
    if m.host.is_empty() {
        return err(
            1,
            "no host name: want a \"[lmbench3.0 results for SYSNAME HOST RELEASE ...]\" or \
             \"[HOSTNAME: ...]\" line",
        );
    }
    if m.cells.is_empty() {
        return err(1, "no figure of any summary column in this results file");
    }
    Ok(Parsed {
        machines: vec![m],
        warnings,
    })
}

/// A point of the "File system latency" block (size, files, creates/s,
/// deletes/s) into the 0K and 10K create and delete columns, in
/// microseconds a file; other sizes have no column.
fn fs_latency_point(p: &[f64], m: &mut Machine) {
    let &[size, _, c, d] = p else {
        return;
    };
    let col = match size as u32 {
        0 => 0,
        10 => 2,
        _ => return,
    };
    if c > 0.0 && d > 0.0 {
        m.cells.insert(FS_VM.cell_key(col), 1e6 / c);
        m.cells.insert(FS_VM.cell_key(col + 1), 1e6 / d);
    }
}

/// One `LABEL: FIGURE UNIT` line (line `no`) into `m`'s cells: a latency
/// or bandwidth column, a pagefault, a network round trip (local, or a
/// remote peer that becomes the run's `remote_peer` fact), or half of
/// "null I/O" (simple read and write, averaged once both are read).
/// Unknown labels are skipped; a known one without a figure is an error.
fn label_line(
    label: &str,
    value: &str,
    no: usize,
    m: &mut Machine,
    read_write: &mut (Option<f64>, Option<f64>),
) -> Result<(), ParseError> {
    let fig = |unit: &str| -> Result<Option<f64>, ParseError> {
        let v = value.trim();
        let num = v.strip_suffix(unit).map(str::trim).unwrap_or(v);
        match figure(num) {
            Some(f) => Ok(f),
            None => err(no, format!("{label}: {v:?} is not a figure in {unit}")),
        }
    };
    if let Some(&(_, table, col)) = LATENCIES.iter().find(|(l, _, _)| *l == label) {
        if let Some(v) = fig("microseconds")? {
            m.cells.insert(table.cell_key(col), v);
        }
    } else if let Some(&(_, table, col)) = BANDWIDTHS.iter().find(|(l, _, _)| *l == label) {
        if let Some(v) = fig("MB/sec")? {
            m.cells.insert(table.cell_key(col), v);
        }
    } else if label == "Simple read" {
        read_write.0 = fig("microseconds")?;
    } else if label == "Simple write" {
        read_write.1 = fig("microseconds")?;
    } else if label.starts_with("Pagefaults on ") {
        if let Some(v) = fig("microseconds")? {
            m.cells.insert(FS_VM.cell_key(6), v);
        }
    } else if let Some(&(prefix, local, remote)) =
        NETWORK.iter().find(|(p, _, _)| label.starts_with(p))
    {
        let host = &label[prefix.len()..];
        if let Some(v) = fig("microseconds")? {
            let key = if is_local(host) {
                COMM_LAT.cell_key(local)
            } else {
                m.facts.insert("remote_peer".into(), host.to_string());
                REMOTE_LAT.cell_key(remote)
            };
            m.cells.insert(key, v);
        }
    }
    Ok(())
}

/// Header lines: `lmbench3.0 results for Linux host 6.1 ...`, `KEY: value`,
/// or a date.
fn header(h: &str, m: &mut Machine, sysname: &mut Option<String>, release: &mut Option<String>) {
    if let Some(rest) = h.strip_prefix("lmbench") {
        if let Some((ver, what)) = rest.split_once(" results for ") {
            m.version = ver.trim().to_string();
            let w: Vec<&str> = what.split_whitespace().collect();
            if w.len() >= 3 {
                sysname.get_or_insert(w[0].to_string());
                if m.host.is_empty() {
                    m.host = w[1].to_string();
                }
                release.get_or_insert(w[2].to_string());
            }
        }
        return;
    }
    let Some((k, v)) = h.split_once(": ") else {
        // "[Wed Jul 30 06:09:48 AM JST 2025]": the first is the start.
        if m.date.is_none() && h.split_whitespace().count() >= 5 && h.contains(':') {
            m.date = Some(h.trim().to_string());
        }
        return;
    };
    let v = v.trim();
    match k {
        "HOSTNAME" | "NODENAME" if !v.is_empty() => m.host = v.to_string(),
        "SYSNAME" if !v.is_empty() => *sysname = Some(v.to_string()),
        "RELEASE" if !v.is_empty() => *release = Some(v.to_string()),
        "MHZ" => {
            if let Some(Some(mhz)) = v.split_whitespace().next().and_then(figure) {
                m.cells.insert(PROCESSES.cell_key(0), mhz);
                m.cells.insert(MEM_LAT.cell_key(0), mhz);
                m.cells.insert(SYSPARAMS.cell_key(0), mhz);
            }
        }
        "LMBENCH VERSION" if !v.is_empty() => {
            m.facts.insert("lmbench_version".into(), v.to_string());
        }
        "OS" | "PROCESSORS" | "FSDIR" if !v.is_empty() => {
            m.facts.insert(k.to_lowercase(), v.to_string());
        }
        _ => {}
    }
}

fn from_blocks(blocks: &[Block], m: &mut Machine, warnings: &mut Vec<String>) {
    for b in blocks {
        if let Some(&(_, t, col)) = SWEEPS.iter().find(|(name, _, _)| b.title == *name) {
            if let Some(v) = b.largest() {
                m.cells.insert(t.cell_key(col), v);
            }
        } else if let Some(host) = b.title.strip_prefix("Socket bandwidth using ") {
            if let Some(v) = b.largest() {
                let key = if is_local(host.trim()) {
                    COMM_BW.cell_key(2)
                } else {
                    REMOTE_BW.cell_key(0)
                };
                m.cells.insert(key, v);
            }
        } else if let Some(rest) = b.title.strip_prefix("size=") {
            // lat_ctx: "size=16k ovr=0.93", then "N time" lines.
            let size = rest.split_whitespace().next().unwrap_or("");
            let cols: &[(f64, &str, usize)] = &[
                (2.0, "0k", 0),
                (2.0, "16k", 1),
                (2.0, "64k", 2),
                (8.0, "16k", 3),
                (8.0, "64k", 4),
                (16.0, "16k", 5),
                (16.0, "64k", 6),
            ];
            for &(n, s, col) in cols {
                if s == size {
                    if let Some(v) = b.at(n) {
                        m.cells.insert(CTX.cell_key(col), v);
                    }
                }
            }
        } else if b.title == "stride=128" {
            if let (Some(l1), Some(main)) = (b.smallest(), b.largest()) {
                m.cells.insert(MEM_LAT.cell_key(1), l1);
                m.cells.insert(MEM_LAT.cell_key(4), main);
            }
        } else if b.points.is_empty() && !b.title.is_empty() {
            warnings.push(format!(
                "line {}: block \"{}\" has no figures",
                b.line, b.title
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_points_read_sizes_and_units() {
        assert_eq!(block_point("0.524288 9.824"), Some(vec![0.524288, 9.824]));
        assert_eq!(
            block_point("0.000064 98.34 MB/sec"),
            Some(vec![0.000064, 98.34])
        );
        assert_eq!(
            block_point("10k\t271\t49834\t88549"),
            Some(vec![10.0, 271.0, 49834.0, 88549.0])
        );
        assert_eq!(block_point("Simple syscall: 1"), None);
    }
}
