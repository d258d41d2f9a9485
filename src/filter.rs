//! The metric filter of `run`, `check`, `save`, `compare` and `list`: a
//! regular expression over metric ids.

use anyhow::Result;
use regex::Regex;

/// Compiles a metric-id filter given as `what` (e.g. `--filter`); the regex
/// crate's multi-line message is cut to its last line so the error stays
/// one line.
pub fn metric_regex(f: &str, what: &str) -> Result<Regex> {
    Regex::new(f).map_err(|e| {
        let msg = e.to_string();
        let last = msg
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        anyhow::anyhow!(
            "bad {what} {f:?} (a regular expression over metric ids): {}",
            last.trim()
        )
    })
}
