//! The importer on lmbench 1.0 and 1.1 SUMMARY posts: a 1.0 table of three
//! hosts (one run twice) with its layout intact, quoted in a reply, and
//! collapsed onto long lines by a mail archive, read alike; a 1.1 table;
//! malformed variants refused with their line; and `lmbench summary` of the
//! imported runs showing every figure.

mod common;

use common::import::*;
use common::*;
use lmbench::import::{parse, Machine};

/// The 1.0 fixture's machines: p5-100 twice (its second row is "p5-100."),
/// amd5x86, k5-pr100.
fn lmbench_1_0_machines(ms: &[Machine]) {
    let hosts: Vec<(&str, &str)> = ms.iter().map(|m| (&*m.host, &*m.os)).collect();
    assert_eq!(
        hosts,
        [
            ("p5-100", "FreeBSD 2.1.5"),
            ("p5-100", "FreeBSD 2.1.5"),
            ("amd5x86", "Linux 1.1.59"),
            ("k5-pr100", "Linux 1.2.13")
        ]
    );
    let (p5, p5b, amd, k5) = (&ms[0], &ms[1], &ms[2], &ms[3]);
    assert!(ms.iter().all(|m| m.version == "1.0"));
    let cells = [
        // Processes: each column to ours by meaning, K for thousands.
        (p5, "processes/Mhz", Some(100.0)),
        (p5, "processes/null call", Some(6.0)),
        (p5, "processes/fork proc", Some(1600.0)),
        (p5b, "processes/fork proc", Some(1700.0)),
        (p5, "processes/exec proc", Some(6100.0)),
        (amd, "processes/sh proc", Some(38_700.0)),
        (k5, "fs_vm/Mmap Latency", Some(544.0)),
        (amd, "fs_vm/Mmap Latency", None), // an empty cell
        (amd, "ctx/2p/0K ctxsw", Some(11.0)),
        // lmbench repeats the 2p/0K switch in the latencies table.
        (amd, "comm_lat/2p/0K ctxsw", Some(11.0)),
        // Communication: no AF_UNIX or connect; "-" is an empty cell.
        (p5, "comm_lat/RPC/ UDP", Some(392.0)),
        (amd, "comm_lat/RPC/ UDP", None),
        (amd, "comm_lat/TCP", Some(224.0)),
        (k5, "comm_lat/RPC/ TCP", Some(431.0)),
        (p5b, "comm_bw/TCP", Some(12.0)),
        (amd, "comm_bw/Mmap reread", Some(12.0)),
        (k5, "comm_bw/Mem write", Some(36.0)),
        (amd, "mem_lat/Mhz", Some(133.0)),
        (k5, "mem_lat/Main mem", Some(290.0)),
    ];
    for (m, key, want) in cells {
        assert_eq!(cell(m, key), want, "{} {key}", m.host);
    }
    // 8-proc ctxsw and TLB have no column of ours: kept beside a table
    // (TLB "-" for amd5x86; k5-pr100's memory row ends before it).
    let extra = |m: &Machine| m.extra.clone().into_iter().collect::<Vec<_>>();
    let kv = |k: &str, v: f64| (k.to_string(), v);
    assert_eq!(
        extra(p5b),
        [kv("ctx/8-proc ctxsw", 43.0), kv("mem_lat/TLB", 1500.0)]
    );
    assert_eq!(extra(amd), [kv("ctx/8-proc ctxsw", 27.0)]);
    assert_eq!(extra(k5), [kv("ctx/8-proc ctxsw", 30.0)]);
    assert_eq!(
        amd.facts.get("guesses").map(String::as_str),
        Some("Bad mhz?")
    );
    assert_eq!(p5.facts.get("guesses"), None);
    // Every figure of the tables, and no more: 8 + 5 + 8 + 5 per full row,
    // and the 2p/0K switch once more in the latencies table.
    let counts: Vec<usize> = ms.iter().map(|m| m.cells.len() + m.extra.len()).collect();
    assert_eq!(counts, [27, 27, 23, 26]);
}

#[test]
fn lmbench_1_0_intact_layout() {
    let ms = machines("lmbench-1.0-intact.txt");
    lmbench_1_0_machines(&ms);
    let lines: Vec<usize> = ms.iter().map(|m| m.line).collect();
    assert_eq!(lines, [21, 22, 23, 24]);
}

#[test]
fn lmbench_1_0_quoted_and_collapsed_read_as_intact() {
    let intact = machines("lmbench-1.0-intact.txt");
    for (name, lines) in [
        ("lmbench-1.0-quoted.txt", [21, 22, 23, 24]),
        // Three long lines: the Processes table's rows are all on line 9.
        ("lmbench-1.0-collapsed.txt", [9, 9, 9, 9]),
    ] {
        let p = parse(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(p.warnings.is_empty(), "{name}: {:?}", p.warnings);
        lmbench_1_0_machines(&p.machines);
        let got: Vec<usize> = p.machines.iter().map(|m| m.line).collect();
        assert_eq!(got, lines, "{name}");
        for (a, b) in intact.iter().zip(&p.machines) {
            assert_eq!(
                Machine {
                    line: a.line,
                    ..b.clone()
                },
                *a,
                "{name}"
            );
        }
    }
}

#[test]
fn lmbench_1_1_summary() {
    let ms = machines("lmbench-1.1-summary.txt");
    let hosts: Vec<(&str, &str, &str)> =
        ms.iter().map(|m| (&*m.host, &*m.os, &*m.version)).collect();
    assert_eq!(
        hosts,
        [
            ("ppro200", "Linux 2.0.0", "1.1"),
            ("ppro200", "FreeBSD 2.1.5", "1.1")
        ]
    );
    assert_eq!(cell(&ms[0], "processes/fork proc"), Some(900.0));
    assert_eq!(cell(&ms[0], "processes/sh proc"), Some(14_200.0));
    assert_eq!(cell(&ms[1], "comm_bw/Mem read"), Some(176.0));
    assert_eq!(ms[1].extra.get("mem_lat/TLB"), Some(&870.0));
    assert_eq!(
        ms[1].facts.get("guesses").map(String::as_str),
        Some("No L2 cache?")
    );
}

/// The 1-based line of `fixture` that contains `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no {needle:?}"))
        + 1
}

#[test]
fn malformed_lmbench_1_0_names_the_line() {
    for name in [
        "lmbench-1.0-intact.txt",
        "lmbench-1.0-quoted.txt",
        "lmbench-1.0-collapsed.txt",
    ] {
        let text = fixture(name);
        // A bad figure in the middle of a row ("9.8Q" for "9.8K").
        let e = refused(&text.replace(" 9.8K", " 9.8Q"));
        assert_eq!((e.line, name), (line_of(&text, " 9.8K"), name), "{e}");
        assert!(e.msg.contains("\"9.8Q\" is not a figure"), "{name}: {e}");
        // A header word this importer does not know: the header's line.
        let e = refused(&text.replace("Syscall", "Syscal"));
        assert_eq!(e.line, line_of(&text, "Host "), "{name}: {e}");
        assert!(
            e.msg
                .contains("not a layout this importer knows (it knows lmbench 1.0-1.1)"),
            "{name}: {e}"
        );
        // More figures than columns.
        let e = refused(
            &text
                .replace("98   210   392", "98 1 2 3 210 392")
                .replace("98 210 392", "98 1 2 3 210 392"),
        );
        assert_eq!(e.line, line_of(&text, "210"), "{name}: {e}");
        assert!(e.msg.contains("8 figures for the 5 columns"), "{name}: {e}");
    }
    // A table cut before its column rule.
    let text = fixture("lmbench-1.0-intact.txt");
    let cut: String = text.lines().take(18).collect::<Vec<_>>().join("\n");
    let e = refused(&cut);
    assert_eq!(e.line, 16, "{e}");
    assert!(e.msg.contains("ends before its column rule"), "{e}");
}

#[test]
fn imported_lmbench_1_0_shows_every_figure_in_the_summary() {
    let env = Env::new();
    let f = fixture_path("lmbench-1.0-collapsed.txt");
    let o = env.lmbench(&["import", &f, "--label", "y1996"]);
    assert!(o.status.success(), "{}", stderr(&o));
    env.saved("ours", 40, 900.0, 0.01);
    let results = env.results();
    let o = env.lmbench(&["summary", results.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let runs = [
        "amd5x86/y1996 ",
        "k5-pr100/y1996 ",
        "p5-100/y1996-FreeBSD-2.1.5 ",
        "p5-100/y1996-FreeBSD-2.1.5-2 ",
    ];
    // Every table the post had, with every run; what no column of ours
    // holds is printed under the table it belongs beside.
    // A table's column rule (its underline is one run of dashes).
    let is_rule = |l: &str| l.starts_with('-') && l.contains(" -");
    // A table: its title to the blank line after its rows.
    let section = |title: &str| -> Vec<&str> {
        let at = text
            .find(title)
            .unwrap_or_else(|| panic!("no {title}:\n{text}"));
        let lines = text[at..].lines();
        let mut past_rule = false;
        lines
            .take_while(|l| {
                past_rule |= is_rule(l);
                !(past_rule && l.is_empty())
            })
            .collect()
    };
    for title in [
        "Processor, Processes",
        "Context switching - times",
        "*Local* Communication latencies in",
        "File & VM system latencies",
        "*Local* Communication bandwidths",
        "Memory latencies in nanoseconds",
    ] {
        let lines = section(title);
        for run in runs {
            assert!(
                lines.iter().any(|l| l.starts_with(run)),
                "{title}: {run}\n{text}"
            );
        }
    }
    // The lines under a table's rows.
    let notes = |title: &str| -> Vec<String> {
        let lines = section(title);
        let rule = lines.iter().position(|l| is_rule(l)).unwrap();
        lines[rule..]
            .iter()
            .filter(|l| l.starts_with("  "))
            .map(|l| l.to_string())
            .collect()
    };
    let beside = "(lmbench 1.0 SUMMARY; no column of ours)";
    assert_eq!(
        notes("Context switching - times"),
        [
            format!("  amd5x86/y1996: 8-proc ctxsw 27 {beside}"),
            format!("  k5-pr100/y1996: 8-proc ctxsw 30 {beside}"),
            format!("  p5-100/y1996-FreeBSD-2.1.5: 8-proc ctxsw 41 {beside}"),
            format!("  p5-100/y1996-FreeBSD-2.1.5-2: 8-proc ctxsw 43 {beside}"),
        ]
    );
    let mem = notes("Memory latencies in nanoseconds");
    let imported: Vec<&String> = mem.iter().filter(|l| l.contains("y1996")).collect();
    assert_eq!(
        imported,
        [
            "  amd5x86/y1996: Guesses: Bad mhz?",
            &format!("  p5-100/y1996-FreeBSD-2.1.5: TLB 1400 {beside}"),
            &format!("  p5-100/y1996-FreeBSD-2.1.5-2: TLB 1500 {beside}"),
        ]
    );
    let amd_mem = section("Memory latencies in nanoseconds")
        .into_iter()
        .find(|l| l.starts_with("amd5x86/"))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(amd_mem, "amd5x86/y1996 Linux 1.1.59 133 8 91 - 310 -");
}
