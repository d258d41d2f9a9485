//! Figures measured on a busy machine, end to end on fixture Criterion
//! trees with the harness's activity records beside them: `save` keeps the
//! records, `summary` marks the figures and says what ran in every format,
//! `compare` lists them apart without a verdict, a stale record is ignored;
//! and `summary --spread` carries each figure's spread in every format.

mod common;

use common::{metrics, stderr, stdout, Env};
use lmbench_support::activity::{Activity, Proc, ACTIVITY_FILE};

/// An activity record: `others` CPUs of other work over one second, by a
/// program called `stress`.
fn activity(others: f64) -> Activity {
    Activity {
        wall_s: 1.0,
        cpus: 2,
        ours_cpu_s: Some(1.0),
        others_cpu_s: Some(others),
        steal_s: Some(0.0),
        load_start: Some(1.5),
        load_end: Some(1.9),
        calls: 12,
        top: vec![Proc {
            name: "stress".into(),
            cpu_s: others,
        }],
        ..Activity::default()
    }
}

fn write_activity(env: &Env, id: &str, a: &Activity) {
    let path = env.criterion().join(id).join(ACTIVITY_FILE);
    std::fs::write(path, serde_json::to_vec(a).unwrap()).unwrap();
}

/// Saves three metrics as `vm/<label>`; the first measured with `others`
/// CPUs of other work, the rest on an idle machine.
fn saved_with_activity(env: &Env, label: &str, ns: f64, others: f64) {
    let _ = std::fs::remove_dir_all(env.criterion());
    for (i, m) in metrics(3).into_iter().enumerate() {
        env.bench(m, ns, 0.01);
        write_activity(env, m.id, &activity(if i == 0 { others } else { 0.0 }));
    }
    let out = env.lmbench(&["save", "--label", label, "--machine", "vm"]);
    assert!(out.status.success(), "save: {}", stderr(&out));
}

#[test]
fn busy_figures_are_marked_with_what_ran() {
    let env = Env::new();
    saved_with_activity(&env, "busy", 100.0, 0.9);
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(env.results().join("vm/busy/run.json")).unwrap())
            .unwrap();
    let busy_id = metrics(1)[0].id;
    assert_eq!(
        run["metrics"][busy_id]["activity"][0]["others_cpu_s"], 0.9,
        "run.json keeps the record"
    );

    let text = stdout(&env.lmbench(&["summary", "vm/busy"]));
    let marked = text
        .lines()
        .filter(|l| l.starts_with("vm/busy") && l.contains('*'));
    assert_eq!(marked.count(), 1, "the busy figure is marked: {text}");
    let note = text
        .lines()
        .find(|l| l.contains("measured on a busy machine ("))
        .unwrap_or_else(|| panic!("no note under the table: {text}"));
    assert!(
        note.contains("other work 0.90 CPU (stress 0.90)") && note.contains("load 1.90"),
        "{note}"
    );
    assert!(text.contains("at least 5% of a CPU"), "{text}");

    // A higher threshold: not busy any more.
    let relaxed = stdout(&env.lmbench(&["summary", "vm/busy", "--busy-threshold", "95"]));
    assert!(!relaxed.contains("busy machine"), "{relaxed}");

    let csv = stdout(&env.lmbench(&["summary", "vm/busy", "--format", "csv"]));
    assert!(csv.lines().any(|l| l.ends_with(",true")), "{csv}");
    assert!(csv.lines().any(|l| l.ends_with(",false")), "{csv}");
    let md = stdout(&env.lmbench(&["summary", "vm/busy", "--format", "markdown"]));
    assert!(md.contains("\\*") && md.contains("stress 0.90"), "{md}");
    let json: serde_json::Value = serde_json::from_str(&stdout(
        &env.lmbench(&["summary", "vm/busy", "--format", "json"]),
    ))
    .unwrap();
    assert_eq!(json["runs"][0]["busy"][0]["metric"], busy_id);
    let any_busy_cell = json["tables"].as_array().unwrap().iter().any(|t| {
        t["columns"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["busy"][0] == true)
    });
    assert!(any_busy_cell, "{json}");
}

#[test]
fn compare_sets_busy_metrics_apart() {
    let env = Env::new();
    saved_with_activity(&env, "idle", 100.0, 0.0);
    saved_with_activity(&env, "busy", 150.0, 0.9);
    let out = env.lmbench(&["compare", "vm/idle", "vm/busy"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let (judged, apart) = text
        .split_once("measured on a busy machine (other work")
        .unwrap_or_else(|| panic!("no busy section: {text}"));
    let busy_id = metrics(1)[0].id;
    assert!(!judged.lines().any(|l| l.starts_with(busy_id)), "{text}");
    let line = apart.lines().find(|l| l.starts_with(busy_id)).unwrap();
    assert!(
        line.contains("NEW: other work 0.90 CPU (stress 0.90)"),
        "{line}"
    );
    assert!(!line.contains("OLD:"), "OLD was idle: {line}");
    // The idle metrics still get their verdicts.
    assert_eq!(
        judged.lines().filter(|l| l.ends_with("  slower")).count(),
        2
    );
    assert!(text.contains("1 measured on a busy machine"), "{text}");
    assert!(!text.contains("no record"), "{text}");

    // Runs saved without records say they cannot be checked.
    env.saved("old", 3, 100.0, 0.01);
    let text = stdout(&env.lmbench(&["compare", "vm/old", "vm/idle"]));
    assert!(
        text.contains("OLD has no record of what else the machine did"),
        "{text}"
    );
}

#[test]
fn a_stale_record_is_ignored() {
    // A record older than Criterion's estimates is from an earlier run.
    let env = Env::new();
    let m = metrics(1)[0];
    env.bench(m, 100.0, 0.01);
    write_activity(&env, m.id, &activity(0.9));
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(env.criterion().join(m.id).join(ACTIVITY_FILE))
        .unwrap()
        .set_modified(old)
        .unwrap();
    let text = stdout(&env.lmbench(&["summary"]));
    assert!(!text.contains("busy machine"), "{text}");
}

#[test]
fn spread_is_shown_in_every_format() {
    let env = Env::new();
    env.saved("a", 3, 100.0, 0.02);
    // `--spread` takes its kind only after `=`: a run name may follow.
    let text = stdout(&env.lmbench(&["summary", "--spread", "vm/a"]));
    // Samples alternate ±2% around the figure: half the IQR is 2% (null
    // call); null I/O averages two such metrics: ±1.4%, "±1%" in 4 columns.
    let line = text
        .lines()
        .find(|l| l.contains("± spread") && l.contains(" ±2%  ±1%"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.trim_start().starts_with("± spread"), "{line}");
    assert!(text.contains("half the interquartile range"), "{text}");
    let ci = stdout(&env.lmbench(&["summary", "vm/a", "--spread=ci"]));
    assert!(ci.contains("95% confidence interval of the median"), "{ci}");

    let csv = stdout(&env.lmbench(&["summary", "vm/a", "--format", "csv", "--spread"]));
    assert!(csv.starts_with("table,column,unit,run,machine,label,os,value,busy,spread\n"));
    // The null call figure (0.1 us) with a spread of 2% of it.
    assert!(
        csv.lines().any(|l| l.ends_with(",0.1,false,0.002")),
        "{csv}"
    );
    let md = stdout(&env.lmbench(&["summary", "vm/a", "--format", "markdown", "--spread"]));
    assert!(md.contains(" ±2.0%"), "{md}");
    let json: serde_json::Value = serde_json::from_str(&stdout(
        &env.lmbench(&["summary", "vm/a", "--format", "json", "--spread"]),
    ))
    .unwrap();
    assert!(json["spread"].is_string());
    let spreads: Vec<f64> = json["tables"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["columns"].as_array().unwrap().iter())
        .filter_map(|c| c["spread"][0].as_f64())
        .collect();
    assert!(
        !spreads.is_empty() && spreads.iter().all(|s| *s > 0.0),
        "{json}"
    );
}
