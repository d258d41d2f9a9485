//! A program that fails costs a run its own metrics, not the sitting: the
//! run goes on (as lmbench's own scripts do), keeps the one-line reason
//! the bench gave, saves the metrics it could not measure as failed, and
//! ends with the list and the partial run's exit status (3). `--fail-fast`
//! (and `check`, where a bisect step must not pass on a partial run) stop
//! at the first failure instead.

use std::collections::BTreeMap;
use std::fmt;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::ExitStatus;

use anyhow::Result;
use lmbench_support::bench_lines::FAILED_LINE;
use lmbench_support::catalog::Program;

use crate::run::MetricStats;

/// One program's failure, as its output in the run's log says it.
#[derive(Debug, Clone)]
pub struct Failure {
    pub program: &'static str,
    /// The metrics this invocation asked the program for.
    pub asked: Vec<&'static str>,
    /// The metric the bench named as it failed, if it named one.
    pub metric: Option<String>,
    /// One line: the bench's own reason, else its panic message, else how
    /// it exited.
    pub reason: String,
}

impl Failure {
    /// Reads why program `p` (run with `filter`) exited with `status`, from
    /// its output in the log at `log_path`, which starts at `from`.
    pub fn read(
        p: &'static Program,
        filter: Option<&str>,
        status: ExitStatus,
        log_path: &Path,
        from: u64,
    ) -> Failure {
        let re = filter.and_then(|f| regex::Regex::new(f).ok());
        let asked = p
            .metrics
            .iter()
            .map(|m| m.id)
            .filter(|id| re.as_ref().is_none_or(|re| re.is_match(id)))
            .collect();
        let output = read_from(log_path, from).unwrap_or_default();
        let (metric, reason) = reason(&output, &status.to_string());
        Failure {
            program: p.name,
            asked,
            metric,
            reason,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.metric {
            Some(m) => write!(f, "{}: {m}: {}", self.program, self.reason),
            None => write!(f, "{}: {}", self.program, self.reason),
        }
    }
}

impl std::error::Error for Failure {}

fn read_from(path: &Path, from: u64) -> std::io::Result<String> {
    let mut f = std::fs::File::open(path)?;
    f.seek(SeekFrom::Start(from))?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The failed metric and the one-line reason in a program's output: the
/// harness's [`FAILED_LINE`] (the last one), else the first line of a
/// panic's message, else `exited` (how the process ended).
pub fn reason(output: &str, exited: &str) -> (Option<String>, String) {
    if let Some(line) = output
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(FAILED_LINE))
    {
        return match line.split_once(": ") {
            Some((id, why)) => (Some(id.to_string()), why.to_string()),
            None => (None, line.to_string()),
        };
    }
    let mut lines = output.lines();
    while let Some(l) = lines.next() {
        if l.contains("panicked at") {
            // `thread 'main' panicked at FILE:LINE:COL:` then the message.
            if let Some(msg) = lines.next().filter(|m| !m.trim().is_empty()) {
                return (None, format!("panicked: {}", msg.trim()));
            }
        }
    }
    (None, format!("exited with {exited}"))
}

/// A program's outcome: its timings, or, when it failed and the run goes
/// on (not `fail_fast`), none, the failure said and kept.
pub fn go_on<T>(
    outcome: Result<T>,
    fail_fast: bool,
    failed: &mut Vec<Failure>,
) -> Result<Option<T>> {
    match outcome {
        Ok(t) => Ok(Some(t)),
        Err(e) if !fail_fast && e.is::<Failure>() => {
            let f = e.downcast::<Failure>().expect("checked by is::<Failure>()");
            eprintln!("      failed: {f} (going on; --fail-fast stops here)");
            failed.push(f);
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// The failed metrics of a run whose results are `measured`: every metric
/// a failed program was asked for and no round measured, with its reason
/// (the metric the bench failed in keeps the bench's own reason; the ones
/// after it in the program were not reached).
pub fn unmeasured(
    failed: &[Failure],
    measured: &BTreeMap<String, MetricStats>,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for f in failed {
        for id in &f.asked {
            if measured.contains_key(*id) || out.contains_key(*id) {
                continue;
            }
            let why = match &f.metric {
                Some(m) if m == id => f.reason.clone(),
                Some(m) => format!("not measured: {} stopped when {m} failed", f.program),
                None => format!("not measured: {} failed: {}", f.program, f.reason),
            };
            out.insert(id.to_string(), why);
        }
    }
    out
}

/// A run that went on past failed programs: listed on stderr by `run`,
/// then this one-line error; `lmbench` exits with the partial run's
/// status (3).
#[derive(Debug)]
pub struct Partial {
    pub failed: Vec<Failure>,
    pub log: PathBuf,
    pub saved: bool,
}

impl Partial {
    /// The list printed before the error line: one failure a line.
    pub fn list(&self) -> String {
        let mut out = String::from("failed programs:\n");
        for f in &self.failed {
            out.push_str(&format!("  {f}\n"));
        }
        out
    }
}

impl fmt::Display for Partial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut programs: Vec<&str> = self.failed.iter().map(|f| f.program).collect();
        programs.sort();
        programs.dedup();
        write!(
            f,
            "{} failed ({}); the rest was measured{}; the output is in {}; --fail-fast stops at the first failure",
            if programs.len() == 1 {
                "a program".to_string()
            } else {
                format!("{} programs", programs.len())
            },
            programs.join(", "),
            if self.saved {
                " and saved, the failed metrics marked with their reasons"
            } else {
                ""
            },
            self.log.display()
        )
    }
}

impl std::error::Error for Partial {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_harness_line_names_the_metric_and_the_reason() {
        let out = "Benchmarking lat_pagefault/faults_per_page\n\
                   lmbench: failed lat_pagefault/faults_per_page: no results saved: 11 zero samples\n\
                   \nthread 'main' panicked at benches/lat_pagefault.rs:1:2:\n\
                   lat_pagefault/faults_per_page: no results saved: 11 zero samples\n\
                   note: run with `RUST_BACKTRACE=1`\n";
        assert_eq!(
            reason(out, "exit status: 101"),
            (
                Some("lat_pagefault/faults_per_page".to_string()),
                "no results saved: 11 zero samples".to_string()
            )
        );
    }

    #[test]
    fn a_panic_elsewhere_gives_its_message_and_a_crash_its_status() {
        let out = "thread 'main' (7) panicked at support/src/x.rs:3:4:\nindex out of bounds\n";
        assert_eq!(
            reason(out, "x").1,
            "panicked: index out of bounds".to_string()
        );
        assert_eq!(
            reason("Benchmarking x\n", "signal: 9 (SIGKILL)"),
            (None, "exited with signal: 9 (SIGKILL)".to_string())
        );
    }

    #[test]
    fn unmeasured_metrics_keep_the_reason_or_say_they_were_not_reached() {
        let f = Failure {
            program: "lat_pagefault",
            asked: vec![
                "lat_pagefault/page",
                "lat_pagefault/per_fault",
                "lat_pagefault/faults_per_page",
            ],
            metric: Some("lat_pagefault/per_fault".to_string()),
            reason: "zero".to_string(),
        };
        let mut measured = BTreeMap::new();
        measured.insert(
            "lat_pagefault/page".to_string(),
            crate::run::MetricStats::single(2.0),
        );
        let u = unmeasured(&[f], &measured);
        assert_eq!(u.len(), 2);
        assert_eq!(u["lat_pagefault/per_fault"], "zero");
        assert_eq!(
            u["lat_pagefault/faults_per_page"],
            "not measured: lat_pagefault stopped when lat_pagefault/per_fault failed"
        );
    }
}
