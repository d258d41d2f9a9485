//! The importer's fixtures (`tests/fixtures/import/`) and what the import
//! tests ask of them.

use lmbench::import::{parse, Machine, ParseError};

/// The path of fixture `name`.
pub fn fixture_path(name: &str) -> String {
    format!(
        "{}/tests/fixtures/import/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

pub fn fixture(name: &str) -> String {
    let p = fixture_path(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// The machines fixture `name` holds; it must parse.
pub fn machines(name: &str) -> Vec<Machine> {
    parse(&fixture(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .machines
}

pub fn cell(m: &Machine, key: &str) -> Option<f64> {
    m.cells.get(key).copied()
}

/// The error a malformed text must give.
pub fn refused(text: &str) -> ParseError {
    parse(text).expect_err("accepted a malformed file")
}
