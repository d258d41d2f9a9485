//! The importer on a fixture of each format: lmbench 1.9 SUMMARY posts
//! (layout intact, and whitespace collapsed), 2.0 and 3.0 SUMMARY tables,
//! and a 3.0 results file; malformed files are refused with a line number
//! (lmbench 1.0 and 1.1: `import_lmbench1.rs`).
//! Then the CLI: `lmbench import` files each machine under its host,
//! `summary` shows it beside a run of ours, `compare` says "no samples".

mod common;

use common::import::*;
use common::*;
use lmbench::import::parse;

#[test]
fn lmbench_1_9_intact_layout_keeps_empty_cells_empty() {
    let ms = machines("lmbench-1.9-intact.txt");
    let hosts: Vec<(&str, &str)> = ms.iter().map(|m| (&*m.host, &*m.os)).collect();
    assert_eq!(hosts, [("ds20", "NetBSD 1.4U"), ("alpha-dec", "OSF1 T5.0")]);
    let (ds20, osf) = (&ms[0], &ms[1]);
    assert_eq!(ds20.version, "1.9");
    assert_eq!(cell(ds20, "processes/fork proc"), Some(700.0)); // "0.7K"
    assert_eq!(cell(ds20, "processes/null call"), Some(0.6));
    // RPC/UDP and RPC/TCP are blank; TCP conn is there for ds20 only.
    assert_eq!(cell(ds20, "comm_lat/RPC/ UDP"), None);
    assert_eq!(cell(ds20, "comm_lat/TCP conn"), Some(938.0));
    assert_eq!(cell(osf, "comm_lat/TCP conn"), None);
    // Prot Fault blank for ds20, 2 for OSF1; Page Fault "0.1K".
    assert_eq!(cell(ds20, "fs_vm/Prot Fault"), None);
    assert_eq!(cell(osf, "fs_vm/Prot Fault"), Some(2.0));
    assert_eq!(cell(ds20, "fs_vm/Page Fault"), Some(100.0));
    assert_eq!(cell(ds20, "fs_vm/Mmap Latency"), Some(1_785_192.0));
    // "-1" is the C suite's failure mark: no figure.
    assert_eq!(cell(osf, "comm_bw/TCP"), None);
    assert_eq!(cell(osf, "comm_bw/Mmap reread"), Some(1158.0));
    assert_eq!(cell(osf, "mem_lat/Main mem"), Some(184.0));
    // 1.9's "selct" says not what it selects on: kept, not shown.
    assert_eq!(ds20.extra.len(), 1);
}

#[test]
fn lmbench_1_9_collapsed_whitespace_is_aligned_or_left_out() {
    let p = parse(&fixture("lmbench-1.9-collapsed.txt")).unwrap();
    let hosts: Vec<&str> = p.machines.iter().map(|m| &*m.host).collect();
    assert_eq!(hosts, ["pmax-G 0", "pmax-G 10"]);
    let (g0, g10) = (&p.machines[0], &p.machines[1]);
    assert_eq!(g0.os, "NetBSD 1.5ZC");
    assert_eq!(cell(g0, "processes/exec proc"), Some(54_000.0));
    assert_eq!(cell(g10, "processes/null I/O"), Some(21.0)); // "21."
                                                             // G10's File & VM row lacks one figure: the complete G0 row shows it
                                                             // is Prot Fault (3 against 9.1K), so Page Fault is still 9.1K.
    assert_eq!(cell(g10, "fs_vm/Prot Fault"), None);
    assert_eq!(cell(g10, "fs_vm/Page Fault"), Some(9100.0));
    assert_eq!(cell(g10, "fs_vm/Mmap Latency"), Some(19427.0));
    // Both Local latency rows lack two figures and no row is complete:
    // not guessed, left out with a warning naming the lines.
    assert_eq!(cell(g0, "comm_lat/Pipe"), None);
    assert_eq!(p.warnings.len(), 2);
    assert!(
        p.warnings[0].starts_with("line 30: 6 figures for the 8 columns"),
        "{:?}",
        p.warnings
    );
    assert_eq!(cell(g0, "ctx/16p/64K ctxsw"), Some(1506.0));
    assert_eq!(cell(g0, "mem_lat/Main mem"), Some(1252.0));
}

#[test]
fn lmbench_2_0_summary_with_a_shifted_header() {
    let ms = machines("lmbench-2.0-summary.txt");
    assert_eq!(ms.len(), 2);
    let (a, b) = (&ms[0], &ms[1]);
    assert_eq!((a.version.as_str(), a.os.as_str()), ("2.0", "Linux 2.4.18"));
    assert_eq!(
        a.facts.get("description").map(String::as_str),
        Some("i686-pc-linux-gnu")
    );
    assert_eq!(cell(a, "sysparams/Mhz"), Some(801.0));
    assert_eq!(cell(a, "processes/slct TCP"), None);
    assert_eq!(cell(b, "processes/slct TCP"), Some(9.5));
    assert_eq!(cell(a, "processes/sh proc"), Some(12_000.0)); // "12.K"
    assert_eq!(cell(a, "comm_lat/RPC/ TCP"), Some(27.9));
    assert_eq!(cell(b, "comm_lat/UDP"), None);
    assert_eq!(cell(a, "comm_bw/TCP"), None); // -1
                                              // The memory table's header sits left of its figures.
    assert_eq!(cell(a, "mem_lat/Main mem"), Some(158.1));
    assert_eq!(cell(b, "mem_lat/L2 $"), Some(8.86));
}

#[test]
fn lmbench_3_0_summary_every_table() {
    let ms = machines("lmbench-3.0-summary.txt");
    assert_eq!(ms.len(), 2);
    let (a, b) = (&ms[0], &ms[1]);
    assert_eq!(cell(a, "sysparams/cache line"), Some(64.0));
    assert_eq!(cell(a, "sysparams/mem par"), Some(5.21));
    assert_eq!(cell(a, "ops_int64/int64 add"), None);
    assert_eq!(cell(a, "ops_int64/int64 mul"), Some(1.0));
    assert_eq!(cell(b, "ops_double/double bogo"), Some(4.01));
    assert_eq!(cell(b, "ctx/2p/64K ctxsw"), None);
    assert_eq!(cell(b, "ctx/8p/64K ctxsw"), Some(3.7));
    // The Remote table: empty for one row, full for the other.
    assert!(!a.cells.keys().any(|k| k.starts_with("remote_lat/")));
    assert_eq!(cell(b, "remote_lat/TCP conn"), Some(101.0));
    assert_eq!(cell(b, "fs_vm/Mmap Latency"), Some(15_100.0));
    assert_eq!(cell(b, "mem_lat/Rand mem"), Some(92.1));
    assert_eq!(
        b.facts.get("guesses").map(String::as_str),
        Some("No L2 cache?")
    );
}

#[test]
fn a_summary_quoted_in_a_reply_reads_as_posted() {
    for name in [
        "lmbench-1.9-intact.txt",
        "lmbench-2.0-summary.txt",
        "lmbench-3.0-summary.txt",
    ] {
        let text = fixture(name);
        let quoted: String = text.lines().map(|l| format!("> {l}\n")).collect();
        assert_eq!(parse(&quoted), parse(&text), "{name}");
    }
}

#[test]
fn lmbench_3_0_results_file() {
    let ms = machines("lmbench-3.0-results.txt");
    let m = &ms[0];
    assert_eq!(
        (m.host.as_str(), m.os.as_str()),
        ("orc", "Linux 6.1.0-13-amd64")
    );
    assert_eq!(m.version, "3.0");
    assert_eq!(m.format, "results file");
    assert_eq!(m.date.as_deref(), Some("Sat Nov 30 10:00:00 UTC 2024"));
    let near = |k: &str, v: f64| {
        let got = cell(m, k).unwrap_or_else(|| panic!("no {k}"));
        assert!((got - v).abs() < 1e-3 * v, "{k}: {got} != {v}");
    };
    near("processes/Mhz", 2995.0);
    near("processes/null I/O", 0.14); // mean of read and write
    near("processes/slct TCP", 2.61);
    near("fs_vm/100fd selct", 1.101);
    near("fs_vm/0K File Create", 10.1); // 1e6 / 99009 per second
    near("fs_vm/Delete", 9.01); // 10K delete: 1e6 / 110988
    near("fs_vm/Mmap Latency", 1101.0); // the largest mapping
    near("ctx/8p/16K ctxsw", 2.88);
    near("comm_lat/2p/0K ctxsw", 2.11);
    near("comm_lat/TCP conn", 21.0);
    near("remote_lat/TCP", 44.1);
    near("comm_bw/TCP", 4102.0);
    near("remote_bw/TCP read", 112.0);
    near("comm_bw/Mem read", 11_000.0);
    near("mem_lat/L1 $", 1.34);
    near("mem_lat/Main mem", 11.2);
    assert_eq!(cell(m, "comm_lat/RPC/ UDP"), None); // "RPC: Timed out"
    assert_eq!(m.facts.get("remote_peer").map(String::as_str), Some("peer"));
}

#[test]
fn malformed_files_name_the_line() {
    let intact = fixture("lmbench-1.9-intact.txt");
    // A figure that is not one (a letter O for a zero).
    let bad = intact.replace("  1408    854", "  14O8    854");
    let line = intact.lines().position(|l| l.contains("1408")).unwrap() + 1;
    let e = refused(&bad);
    assert_eq!(e.line, line, "{e}");
    assert!(e.msg.contains("\"14O8\" is not a figure"), "{e}");
    // Too many figures for the columns.
    let e = refused(&intact.replace("0.05K  1.2    4 0.7K", "0.05K  1.2    4 0.7K 9 9"));
    assert!(e.msg.contains("13 figures for the 11 columns"), "{e}");
    // Columns this importer does not know.
    let e = refused(&intact.replace("null null      open", "nul  null      open"));
    assert!(e.msg.contains("not a layout this importer knows"), "{e}");
    assert_eq!(
        e.line,
        intact.lines().position(|l| l.starts_with("Host ")).unwrap() + 1
    );
    // A table cut short.
    let cut: String = intact.lines().take(16).collect::<Vec<_>>().join("\n");
    let e = refused(&cut);
    assert!(
        e.msg.contains("ends before its column rule") || e.msg.contains("no figures"),
        "{e}"
    );

    let results = fixture("lmbench-3.0-results.txt");
    let e = refused(&results.replace("Simple stat: 0.6100", "Simple stat: fast"));
    assert_eq!(
        e.line,
        results
            .lines()
            .position(|l| l.starts_with("Simple stat"))
            .unwrap()
            + 1
    );
    assert!(e.msg.contains("Simple stat"), "{e}");
    let e = refused(&results.replace("1.048576 16\n", "1.048576 1x6\n"));
    assert_eq!(
        e.line,
        results.lines().position(|l| l == "1.048576 16").unwrap() + 1
    );
    let e = refused("[lmbench3.0 results for Linux]\nnothing here\n");
    assert_eq!(e.line, 1);
    assert_eq!(refused("just some mail\n").line, 1);
}

#[test]
fn import_then_summary_and_compare() {
    let env = Env::new();
    let f = fixture_path;
    let o = env.lmbench(&["import", &f("lmbench-1.9-intact.txt"), "--label", "y2000"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("imported ds20 (NetBSD 1.4U, lmbench 1.9 SUMMARY"));
    let run_json = env.results().join("ds20/y2000/run.json");
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&run_json).unwrap()).unwrap();
    assert_eq!(saved["schema"], 2);
    assert_eq!(saved["imported"]["format"], "lmbench 1.9 SUMMARY");
    // The same label again is refused; --force replaces it.
    let again = env.lmbench(&["import", &f("lmbench-1.9-intact.txt"), "--label", "y2000"]);
    fails_with(&again, "already exists");
    // A run of ours beside the imported row.
    env.saved("ours", 40, 900.0, 0.01);
    let o = env.lmbench(&["summary", "ds20/y2000", "ours"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("ds20/y2000"))
        .collect();
    assert!(
        rows.iter()
            .any(|l| l.contains(" 498 ") && l.contains("NetBSD 1.4U")),
        "{text}"
    );
    assert!(text.lines().any(|l| l.starts_with("vm/ours")), "{text}");
    // compare: figures and "no samples", never a verdict.
    let o = env.lmbench(&["compare", "alpha-dec/y2000", "ds20/y2000"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("processes: fork proc"), "{text}");
    assert!(text.lines().filter(|l| l.ends_with("no samples")).count() > 20);
    assert!(!text.contains("faster") && !text.contains("slower"));
    // A malformed file writes nothing and names its line.
    let bad = env.dir.path().join("bad.txt");
    std::fs::write(
        &bad,
        fixture("lmbench-1.9-intact.txt").replace("1408", "14O8"),
    )
    .unwrap();
    let o = env.lmbench(&["import", bad.to_str().unwrap(), "--label", "bad"]);
    fails_with(&o, "bad.txt: line 42:");
    assert!(!env.results().join("ds20/bad").exists());
}
