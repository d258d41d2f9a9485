//! The library's dependencies point down: the run model and its
//! primitives, then the statistics, then the store (and the flag values
//! checked against its names), then what measures and what reports. A
//! module may use its own layer or those below it, never one above; the
//! commands (the binary's `src/cmd/`) sit on top and may use anything.
//! Tests are left out: a test may build a run with whatever is handy.
//!
//! docs/design.md draws the same layers.

use std::collections::BTreeMap;
use std::path::Path;

/// Each top-level module of the library and its layer.
const LAYERS: &[(&str, u8)] = &[
    // The run model and what it is read from or written with.
    ("stats", 0),
    ("run", 0),
    ("filter", 0),
    ("environment", 0),
    ("workspace", 0),
    ("publish", 0),
    ("lock", 0),
    ("criterion_files", 0),
    ("cells", 0),
    ("columns", 0),
    // The statistics.
    ("verdict", 1),
    // Saved runs, and the flag values named as the store names things.
    ("store", 2),
    ("flags", 2),
    // What measures, what reads old results, what reports.
    ("session", 3),
    ("import", 3),
    ("table", 3),
    ("format", 3),
    ("report", 3),
];

/// The non-test source of a library module: its file, or every file
/// under its directory, each cut at its first `#[cfg(test)]`.
fn source_of(root: &Path, module: &str) -> String {
    let mut files = Vec::new();
    let file = root.join(format!("src/{module}.rs"));
    if file.is_file() {
        files.push(file);
    }
    let mut dirs = vec![root.join(format!("src/{module}"))];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            match text.find("#[cfg(test)]") {
                Some(at) => text[..at].to_string(),
                None => text,
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The library modules `source` names as `crate::<module>`.
fn used(source: &str) -> Vec<String> {
    let mut out: Vec<String> = source
        .match_indices("crate::")
        .filter(|(at, _)| {
            // Not `lmbench_support::...crate::` or a longer identifier.
            source[..*at]
                .chars()
                .last()
                .is_none_or(|c| !c.is_alphanumeric() && c != '_' && c != ':')
        })
        .map(|(at, _)| {
            source[at + 7..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .filter(|m| !m.is_empty())
        .collect();
    // `use crate::{a, b::c}`.
    for (at, _) in source.match_indices("crate::{") {
        let list = &source[at + 8..];
        let list = &list[..list.find('}').unwrap_or(list.len())];
        out.extend(
            list.split(',')
                .map(|item| item.trim().split("::").next().unwrap_or("").to_string())
                .filter(|m| !m.is_empty()),
        );
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn every_library_module_has_a_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let layers: BTreeMap<&str, u8> = LAYERS.iter().copied().collect();
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches(';'))
        .collect();
    assert!(declared.len() > 10, "src/lib.rs declares {declared:?}");
    let missing: Vec<&&str> = declared
        .iter()
        .filter(|m| !layers.contains_key(**m))
        .collect();
    assert!(
        missing.is_empty(),
        "give these library modules a layer in tests/layers.rs: {missing:?}"
    );
}

#[test]
fn dependencies_point_down() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let layers: BTreeMap<&str, u8> = LAYERS.iter().copied().collect();
    let mut against = Vec::new();
    let mut seen = 0;
    for (module, layer) in LAYERS {
        let source = source_of(root, module);
        if source.is_empty() {
            continue;
        }
        for dep in used(&source) {
            seen += 1;
            if let Some(&l) = layers.get(dep.as_str()) {
                if l > *layer {
                    against.push(format!("{module} (layer {layer}) uses {dep} (layer {l})"));
                }
            }
        }
    }
    // The scan reads something: the store alone uses the run and the
    // statistics.
    assert!(seen > 20, "only {seen} dependencies found");
    assert!(
        against.is_empty(),
        "dependencies against the layers: {against:#?}"
    );
}

#[test]
fn the_scanner_sees_paths_and_use_lists() {
    let src = "use crate::run::Run;\nuse crate::{store, verdict::Row};\nlet x = crate::stats::mean(&v);\nlmbench_support::crate::no";
    assert_eq!(used(src), ["run", "stats", "store", "verdict"]);
}
