//! How long a run has left: what each program took the last time it ran
//! in this checkout with the same preset, kept in
//! `target/lmbench/durations.json` and updated as each program finishes
//! (so the second round of a run is estimated from its first).
//!
//! An estimate is a courtesy: a missing or unreadable file means no
//! estimate, and a file that cannot be written is not an error of the run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use lmbench_support::catalog::Program;

/// Seconds a whole program took, by preset and program name.
type Table = BTreeMap<String, BTreeMap<String, f64>>;

pub(super) struct Durations {
    path: PathBuf,
    preset: &'static str,
    table: Table,
}

impl Durations {
    /// The durations recorded under `dir` (the run's log directory) for
    /// the preset (`quick` or the default).
    pub fn load(dir: &Path, quick: bool) -> Durations {
        let path = dir.join("durations.json");
        let table = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        Durations {
            path,
            preset: if quick { "quick" } else { "default" },
            table,
        }
    }

    /// Records that `metrics` of `program`'s metrics took `took`, as the
    /// time of the whole program (a filtered step is scaled up), and keeps
    /// it on disk for the next run.
    pub fn record(&mut self, program: &Program, metrics: usize, took: Duration) {
        if metrics == 0 {
            return;
        }
        let whole = took.as_secs_f64() * program.metrics.len() as f64 / metrics as f64;
        self.table
            .entry(self.preset.to_string())
            .or_default()
            .insert(program.name.to_string(), whole);
        if let Ok(text) = serde_json::to_vec_pretty(&self.table) {
            let _ = lmbench_support::atomic_file::write_atomic(&self.path, &text);
        }
    }

    /// The time `steps` (a program and how many of its metrics) will take,
    /// if every program has a recorded time.
    pub fn estimate<'a>(
        &self,
        steps: impl IntoIterator<Item = (&'a Program, usize)>,
    ) -> Option<Duration> {
        let times = self.table.get(self.preset)?;
        let mut secs = 0.0;
        for (program, metrics) in steps {
            let whole = times.get(program.name)?;
            secs += whole * metrics as f64 / program.metrics.len().max(1) as f64;
        }
        Some(Duration::from_secs_f64(secs))
    }
}

/// "about 4 min left", "about 40 s left", or nothing without an estimate.
pub fn left(estimate: Option<Duration>) -> String {
    match estimate.map(|d| d.as_secs_f64().round() as u64) {
        None => String::new(),
        Some(s) if s >= 90 => format!(", about {} min left", (s + 30) / 60),
        Some(s) => format!(", about {s} s left"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lmbench_support::catalog::PROGRAMS;

    #[test]
    fn a_step_is_estimated_from_its_programs_last_time_scaled_to_its_metrics() {
        let dir = tempfile::tempdir().unwrap();
        let p = PROGRAMS
            .iter()
            .find(|p| p.metrics.len() >= 4)
            .expect("a program of four metrics");
        let n = p.metrics.len();
        let mut d = Durations::load(dir.path(), true);
        assert_eq!(d.estimate([(*p, n)]), None, "nothing recorded yet");
        // Half its metrics took 10 s: the whole program takes twice that,
        // and a quarter of it a quarter.
        let half = n / 2;
        d.record(p, half, Duration::from_secs(10));
        let whole = 10.0 * n as f64 / half as f64;
        let secs = |k| d.estimate([(*p, k)]).unwrap().as_secs_f64();
        assert!((secs(n) - whole).abs() < 1e-6, "{}", secs(n));
        assert!((secs(n / 4) - whole * (n / 4) as f64 / n as f64).abs() < 1e-6);
        // Kept on disk for the next run of the same preset, not the other.
        let again = Durations::load(dir.path(), true);
        assert!(again.estimate([(*p, n)]).is_some());
        assert_eq!(Durations::load(dir.path(), false).estimate([(*p, n)]), None);
        // A program never timed: no estimate for a plan that has it.
        let other = PROGRAMS.iter().find(|q| q.name != p.name).unwrap();
        assert_eq!(again.estimate([(*p, n), (*other, 1)]), None);
    }

    #[test]
    fn the_time_left_reads_in_seconds_then_minutes() {
        assert_eq!(left(None), "");
        assert_eq!(left(Some(Duration::from_secs(40))), ", about 40 s left");
        assert_eq!(left(Some(Duration::from_secs(250))), ", about 4 min left");
    }

    #[test]
    fn an_unreadable_file_means_no_estimate() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("durations.json"), "not json").unwrap();
        let d = Durations::load(dir.path(), true);
        assert_eq!(d.estimate([(PROGRAMS[0], 1)]), None);
    }
}
