//! `lmbench run` refuses a bad LMBENCH_FSDIR with one line, before it
//! builds or runs any bench.

use std::process::Command;

fn run_with_fsdir(fsdir: &std::path::Path) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lmbench"))
        .args(["run", "--quick", "lat_fs"])
        .env("LMBENCH_FSDIR", fsdir)
        .output()
        .expect("run lmbench");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn missing_fsdir_is_one_line_before_any_bench() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing");
    let (ok, err) = run_with_fsdir(&missing);
    assert!(!ok);
    assert_eq!(
        err,
        format!(
            "lmbench: LMBENCH_FSDIR={}: no such directory\n",
            missing.display()
        )
    );
}

#[test]
fn file_as_fsdir_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("f");
    std::fs::write(&file, b"x").unwrap();
    let (ok, err) = run_with_fsdir(&file);
    assert!(!ok);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.ends_with(": not a directory\n"), "{err}");
}
