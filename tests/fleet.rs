//! The fleet workflow's plumbing: each machine's job saves its run under
//! results/<machine>/<label>/ and uploads that directory; the summary job
//! downloads them side by side and `lmbench summary` over the directory
//! gives one row per machine. The workflow's commands are checked to exist.

mod common;

use common::*;

#[test]
fn summary_over_downloaded_artifacts_has_a_row_per_machine() {
    let env = Env::new();
    let fleet = env.dir.path().join("fleet");
    for (machine, ns) in [("bench-a", 900.0), ("bench-b", 1300.0)] {
        let _ = std::fs::remove_dir_all(env.criterion());
        for m in metrics(30) {
            env.bench(m, ns, 0.01);
        }
        let o = env.lmbench(&["save", "--label", "fleet", "--machine", machine]);
        assert!(o.status.success(), "{}", stderr(&o));
        // What actions/download-artifact leaves: one directory per artifact.
        let art = fleet.join(format!("lmbench-{machine}-fleet"));
        std::fs::create_dir_all(&art).unwrap();
        for f in ["run.json", "machine.json", "SUMMARY.txt"] {
            std::fs::copy(
                env.results().join(machine).join("fleet").join(f),
                art.join(f),
            )
            .unwrap();
        }
    }
    let o = env.lmbench(&["summary", fleet.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let a = text
        .lines()
        .filter(|l| l.starts_with("bench-a/fleet "))
        .count();
    let b = text
        .lines()
        .filter(|l| l.starts_with("bench-b/fleet "))
        .count();
    assert!(a >= 1 && a == b, "{text}");
    // Every table with rows has exactly the two machines.
    for block in text.split("\n\n").filter(|b| b.contains("bench-a/fleet")) {
        assert_eq!(
            block.lines().filter(|l| l.contains("/fleet ")).count(),
            2,
            "{block}"
        );
    }
}

#[test]
fn the_workflow_uses_commands_that_exist() {
    let wf = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/.github/workflows/fleet.yml"
    ))
    .unwrap();
    assert!(wf.contains("workflow_dispatch"));
    assert!(wf.contains("matrix:") && wf.contains("fromJSON(inputs.runners)"));
    assert!(wf.contains("actions/upload-artifact"));
    let env = Env::new();
    let help = stdout(&env.lmbench(&["run", "--help"]));
    for flag in ["--quick", "--save", "--machine", "--force"] {
        assert!(wf.contains(flag) && help.contains(flag), "{flag}");
    }
    let help = stdout(&env.lmbench(&["summary", "--help"]));
    assert!(wf.contains("summary fleet --format markdown") && help.contains("markdown"));
}
