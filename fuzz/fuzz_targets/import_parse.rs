//! The C-suite results importer (`lmbench::import::parse`): any
//! text a user may pass to `lmbench import`, a SUMMARY post (lmbench 1.0
//! to 3.0, intact, quoted or collapsed onto long lines) or a results file,
//! mangled by mailers, editors and truncation.
//!
//! Checked beyond "no panic": an error names a line of the text (1 to one
//! past the last); a machine read starts at a line of the text; every
//! figure read is finite and not negative (the C suite's negative marks
//! mean "failed" and must read as absent, never as a figure); reading the
//! same text twice gives the same result (nothing depends on state).
#![no_main]

use libfuzzer_sys::fuzz_target;
use lmbench::import;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let lines = text.lines().count().max(1);
    let parsed = import::parse(&text);
    assert_eq!(parsed, import::parse(&text), "two reads differ");
    match parsed {
        Err(e) => assert!(
            (1..=lines + 1).contains(&e.line),
            "error at line {} of {lines}: {e}",
            e.line
        ),
        Ok(p) => {
            for m in &p.machines {
                assert!(
                    (1..=lines).contains(&m.line),
                    "machine {:?} at line {} of {lines}",
                    m.host,
                    m.line
                );
                for (col, v) in m.cells.iter().chain(&m.extra) {
                    assert!(v.is_finite() && *v >= 0.0, "{col} = {v}");
                }
            }
        }
    }
});
