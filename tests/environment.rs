//! The environment variables the sources read are the ones
//! `lmbench::environment` lists, and `lmbench --help` names the user's.

use std::collections::BTreeSet;
use std::path::Path;

mod common;

use lmbench::environment::{Setter, VARIABLES};

/// The text of every Rust source the suite is built from: src, support,
/// benches, tests, exec_targets and build.rs (not the examples; the test
/// fixtures hold no source).
fn sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out: Vec<(String, String)> = ["src", "support", "benches", "tests", "exec_targets"]
        .iter()
        .flat_map(|dir| common::snapshot(&root.join(dir)))
        .chain([(
            root.join("build.rs"),
            std::fs::read(root.join("build.rs")).expect("build.rs"),
        )])
        .filter(|(path, _)| path.extension().is_some_and(|e| e == "rs"))
        .map(|(path, bytes)| {
            let text = String::from_utf8(bytes).expect("a source file in UTF-8");
            (path.display().to_string(), text)
        })
        .collect();
    out.retain(|(path, _)| !path.ends_with("src/environment.rs") && !path.ends_with(file!()));
    out
}

/// Every `LMBENCH_NAME` in `text`.
fn names_in(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("LMBENCH_") {
        let tail = &rest[at..];
        let len = tail
            .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
            .unwrap_or(tail.len());
        let name = tail[..len].trim_end_matches('_');
        if name.len() > "LMBENCH_".len() {
            names.insert(name.to_string());
        }
        rest = &tail[len.max(1)..];
    }
    names
}

#[test]
fn the_sources_read_exactly_the_listed_variables() {
    let sources = sources();
    let listed: BTreeSet<&str> = VARIABLES.iter().map(|v| v.name).collect();
    let mut unlisted = BTreeSet::new();
    for (path, text) in &sources {
        for name in names_in(text) {
            if !listed.contains(name.as_str()) {
                unlisted.insert(format!("{name} ({path})"));
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "read but not in lmbench::environment::VARIABLES: {unlisted:?}"
    );
    for v in VARIABLES {
        assert!(
            sources.iter().any(|(_, text)| text.contains(v.name)),
            "{} is listed but no source reads it",
            v.name
        );
    }
}

#[test]
fn help_names_every_user_variable() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lmbench"))
        .arg("--help")
        .output()
        .expect("running lmbench --help");
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for v in VARIABLES.iter().filter(|v| v.setter == Setter::User) {
        assert!(help.contains(v.name), "{} missing from --help", v.name);
    }
}

#[test]
fn the_readme_lists_every_user_variable() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/reference.md"))
            .expect("docs/reference.md");
    for v in VARIABLES.iter().filter(|v| v.setter == Setter::User) {
        assert!(
            readme.contains(&format!("| `{}` | {} |", v.name, v.meaning)),
            "{} is not in docs/reference.md's environment table as --help says it",
            v.name
        );
    }
}
