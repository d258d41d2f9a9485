//! The CLI end to end on fixture Criterion trees: the Processes table
//! renders exactly, a context switch lost in its noise prints a dash and a
//! note, bad input ends in one clear line and a non-zero exit, a closed
//! pipe ends quietly, and `list`, `summary --floors`, `completions` and
//! `man` print what they promise.

mod common;

use common::*;
use lmbench_support::catalog::Metric;

#[test]
fn summary_renders_the_processes_table() {
    let env = Env::new();
    for (id, ns) in [
        ("lat_syscall/null", 81.2),
        ("lat_syscall/read", 200.0),
        ("lat_syscall/write", 300.0),
        ("lat_syscall/stat", 586.4),
        ("lat_syscall/open", 1070.0),
        ("lat_sig/install", 228.5),
        ("lat_sig/catch", 1963.2),
        ("lat_sig/kill", 237.7),
        ("lat_proc/fork", 158_420.0),
        ("lat_proc/exec", 961_880.0),
        ("lat_proc/shell", 2_126_100.0),
    ] {
        env.bench(Metric::by_id(id).unwrap(), ns, 0.0);
    }
    let out = env.lmbench(&["summary"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let title = lines
        .iter()
        .position(|l| *l == "Processor, Processes - times in microseconds - smaller is better")
        .expect("title line");
    assert_eq!(
        lines[title + 2],
        "Host                 OS Mhz  null null stat open slct sig  sig  fork exec sh"
    );
    assert_eq!(
        lines[title + 3],
        "                             call I/O       clos TCP  inst hndl proc proc proc"
    );
    assert_eq!(
        lines[title + 4],
        "--------- ------------- ---- ---- ---- ---- ---- ---- ---- ---- ---- ---- ----"
    );
    // Host, OS and Mhz are this machine's; the figures are the fixture's:
    // null I/O is the mean of read and write, sig hndl is catch minus kill,
    // slct TCP has no bench in this fixture and prints `-`.
    let row = lines[title + 5];
    assert_eq!(
        &row[29..],
        "0.08 0.25 0.59 1.07    - 0.23 1.73  158  962 2126"
    );
}

#[test]
fn a_context_switch_in_its_noise_prints_a_dash_and_a_note() {
    let env = Env::new();
    // Paired switch samples: 2p/16K alternates 0.8 us and ~0 (what the
    // bench stores for a non-positive difference), so its median's
    // interval reaches zero; 2p/64K is 2 us give or take 10%.
    env.bench(
        Metric::by_id("lat_ctx/switch_pinned/2p_16k").unwrap(),
        400.0,
        0.999_999,
    );
    env.bench(
        Metric::by_id("lat_ctx/switch_pinned/2p_64k").unwrap(),
        2000.0,
        0.1,
    );
    let out = env.lmbench(&["summary"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let title = lines
        .iter()
        .position(|l| l.starts_with("Context switching, all ring members on one CPU"))
        .expect("title line");
    let row: Vec<&str> = lines[title + 5].split_whitespace().collect();
    assert_eq!(
        row[row.len() - 7..],
        ["-", "-", "2", "-", "-", "-", "-"],
        "{text}"
    );
    assert_eq!(
        lines[title + 6],
        "  2p/16K: - : switch not above its noise (median 0.400 us, 95% interval <=0..0.800 us); \
         lmbench prints nothing for a non-positive result",
        "{text}"
    );
    assert!(!text.contains("2p/64K: -"), "{text}");
}

#[test]
fn missing_results_is_one_clear_line() {
    let env = Env::new();
    let o = env.lmbench(&["summary"]);
    fails_with(&o, "no Criterion results at");
}

#[test]
fn corrupt_json_names_the_file() {
    let env = Env::new();
    env.bench(Metric::by_id("lat_syscall/null").unwrap(), 80.0, 0.0);
    let est = env.criterion().join("lat_syscall/null/new/estimates.json");
    std::fs::write(&est, "{\"mean\": ").unwrap();
    let o = env.lmbench(&["summary"]);
    fails_with(&o, "estimates.json is not valid Criterion output");
}

#[test]
fn unknown_filter_is_refused_before_building() {
    let env = Env::new();
    let o = env.lmbench(&["run", "--quick", "no_such_metric_anywhere"]);
    fails_with(&o, "matches no metric");
    let o = env.lmbench(&["run", "lat_(("]);
    refused_by_parser(&o, "unclosed group");
    // --paired takes only metrics that have a floor.
    let o = env.lmbench(&["run", "--paired", "bw_mem"]);
    fails_with(&o, "no metric that has a floor matches");
}

#[test]
fn bad_flag_is_an_error() {
    let env = Env::new();
    let o = env.lmbench(&["summary", "--no-such-flag"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--no-such-flag"));
}

/// `lmbench list | head`: the reader closes the pipe after a few lines;
/// the command ends quietly with a closed pipe's status (141, as a shell
/// reports `grep` stopped so), not a panic and its backtrace.
#[test]
fn a_closed_pipe_ends_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let env = Env::new();
    let mut child = Command::new(env!("CARGO_BIN_EXE_lmbench"))
        .arg("list")
        .env("CRITERION_HOME", env.criterion())
        .env("LMBENCH_RESULTS", env.results())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running lmbench list");
    let mut head = [0u8; 64];
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_exact(&mut head)
        .expect("the first lines of the list");
    // The read end is dropped here: the rest of the list (far more than a
    // pipe's buffer) meets a closed pipe.
    let out = child.wait_with_output().expect("lmbench list ends");
    assert_eq!(out.status.code(), Some(141), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
}

#[test]
fn list_names_every_metric() {
    let env = Env::new();
    let o = env.lmbench(&["list"]);
    assert!(o.status.success());
    let text = stdout(&o);
    for m in lmbench_support::catalog::all_metrics() {
        assert!(text.contains(m.id), "{} missing from list", m.id);
    }
    assert!(text.contains("processes: null call"));
}

#[test]
fn summary_floors_shows_each_metric_beside_its_floor() {
    use lmbench_support::catalog::floor_pairs::FLOORS;
    let env = Env::new();
    // The first pair with both sides, the second with its metric only.
    env.bench(FLOORS[0].metric, 90.0, 0.0);
    env.bench(FLOORS[0].floor, 60.0, 0.0);
    env.bench(FLOORS[1].metric, 200.0, 0.0);
    let out = env.lmbench(&["summary", "--floors"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let row = |id: &str| {
        text.lines()
            .find(|l| l.split_whitespace().any(|w| w == id))
            .unwrap_or_else(|| panic!("no row for {id} in\n{text}"))
            .split_whitespace()
            .rev()
            .take(5)
            .collect::<Vec<_>>()
    };
    // Unit, figure, floor, ratio, best (read from the right); the fixture's
    // samples are all alike, so the fastest ratio is the ratio.
    assert_eq!(
        row(FLOORS[0].metric.id),
        ["1.50", "1.50", "0.0600", "0.0900", "us"]
    );
    assert_eq!(row(FLOORS[1].metric.id), ["-", "-", "-", "0.2000", "us"]);
    // A pair with neither side in the run has no row.
    assert!(!text.contains(FLOORS[2].metric.id), "{text}");

    let csv = stdout(&env.lmbench(&["summary", "--floors", "--format", "csv"]));
    assert_eq!(csv.lines().count(), 3, "{csv}");
    let o = env.lmbench(&["summary", "--floors", "--spread"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--spread"), "{}", stderr(&o));
}

#[test]
fn completions_are_generated_for_each_shell() {
    let env = Env::new();
    let bash = env.lmbench(&["completions", "bash"]);
    assert!(bash.status.success(), "{}", stderr(&bash));
    let script = stdout(&bash);
    assert!(script.contains("_lmbench()"), "{script}");
    assert!(script.contains("complete -F _lmbench"), "{script}");
    // Every command is completed.
    for command in ["run", "summary", "compare", "check", "profile", "man"] {
        assert!(script.contains(command), "{command} not completed");
    }
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let o = env.lmbench(&["completions", shell]);
        assert!(o.status.success() && !o.stdout.is_empty(), "{shell}");
    }
    let bad = env.lmbench(&["completions", "tcsh"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn man_prints_the_page_or_writes_one_per_command() {
    let env = Env::new();
    let page = env.lmbench(&["man"]);
    assert!(page.status.success(), "{}", stderr(&page));
    assert!(stdout(&page).contains(".TH lmbench 1"));
    let dir = env.results().join("man");
    let o = env.lmbench(&["man", "--dir", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    for page in [
        "lmbench.1",
        "lmbench-run.1",
        "lmbench-compare.1",
        "lmbench-check.1",
    ] {
        let text = std::fs::read_to_string(dir.join(page)).expect(page);
        assert!(text.contains(".TH"), "{page}");
    }
    // A directory that cannot be made: one line, exit 2.
    let file = env.results().join("a-file");
    std::fs::write(&file, "").unwrap();
    let o = env.lmbench(&["man", "--dir", file.join("man").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    fails_with(&o, "a-file");
}

#[test]
fn list_describes_the_metrics_a_pattern_matches() {
    let env = Env::new();
    let o = env.lmbench(&["list", "^lat_proc/fork$"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("lat_proc/fork\n"), "{text}");
    for line in [
        "  unit      us",
        "  columns   processes: fork proc",
        "  floor     floor/fork ",
    ] {
        assert!(text.contains(line), "{line:?} missing:\n{text}");
    }
    assert_eq!(text.matches("\n\n").count(), 0, "one metric only");
    let floor = stdout(&env.lmbench(&["list", "^floor/fork$"]));
    assert!(floor.contains("  floor of  lat_proc/fork"), "{floor}");
    let o = env.lmbench(&["list", "no_such_metric"]);
    assert_eq!(o.status.code(), Some(2));
    fails_with(&o, "no_such_metric");
    refused_by_parser(&env.lmbench(&["list", "("]), "'[METRIC]'");
}

#[test]
fn a_workspace_variable_that_is_no_checkout_is_refused() {
    let env = Env::new();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_lmbench"))
        .arg("summary")
        .env("LMBENCH_WORKSPACE", env.results())
        .env("LMBENCH_RESULTS", env.results())
        .output()
        .expect("running lmbench");
    assert_eq!(o.status.code(), Some(2));
    fails_with(&o, "LMBENCH_WORKSPACE=");
}
