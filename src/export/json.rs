//! JSON: the report's data as one pretty-printed document ending in a
//! newline; a figure a run lacks is null. Also the `runs` list that opens
//! the summary's documents.

use anyhow::Result;
use serde_json::{json, Value};

use super::document::Report;
use super::Exporter;
use crate::run::Run;

/// The JSON writer.
pub struct Json;

impl Exporter for Json {
    fn write(&self, report: &Report) -> Result<String> {
        Ok(serde_json::to_string_pretty(&report.data)? + "\n")
    }
}

/// The `runs` list of the summary's documents: each run, and each of its
/// metrics measured while other work used at least `busy_cpus` CPUs with
/// what ran.
pub fn runs(runs: &[Run], busy_cpus: f64) -> Vec<Value> {
    runs.iter()
        .map(|r| {
            let busy: Vec<_> = r
                .metrics
                .iter()
                .filter_map(|(id, s)| {
                    let a = s.busy_window(busy_cpus)?;
                    Some(json!({ "metric": id, "other_cpus": a.other_cpus(),
                                 "what_ran": a.describe() }))
                })
                .collect();
            json!({
                "run": r.host(),
                "machine": r.machine_name(),
                "label": r.label(),
                "os": r.machine.os_label(),
                "date": r.meta.date,
                "busy": busy,
            })
        })
        .collect()
}
