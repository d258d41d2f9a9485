//! JSON: the report's data as one pretty-printed document ending in a
//! newline; a figure a run lacks is null.

use anyhow::Result;

use super::document::Report;
use super::Writer;

/// The JSON writer.
pub struct Json;

impl Writer for Json {
    fn write(&self, report: &Report) -> Result<String> {
        Ok(serde_json::to_string_pretty(&report.data)? + "\n")
    }
}
