//! Did Criterion keep what a benchmark measured? Criterion 0.8 analyses a
//! benchmark only if none of its samples took zero time: otherwise it logs
//! one error line, writes nothing, and the bench still exits 0, so the
//! metric vanishes from the run without a failure (lat_ctx's paired switch
//! once returned a zero-length sample under load and left a run with no
//! results). [`Watch`] notices that and fails the metric by its id.

use std::path::PathBuf;
use std::time::SystemTime;

use crate::catalog::Metric;

/// Criterion's latest estimates of one benchmark, watched across its run.
pub(super) struct Watch {
    path: PathBuf,
    before: Option<Stamp>,
    zero_samples: u64,
}

/// What tells one write of a file from another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    modified: SystemTime,
    len: u64,
}

fn stamp(path: &std::path::Path) -> Option<Stamp> {
    let m = std::fs::metadata(path).ok()?;
    Some(Stamp {
        modified: m.modified().ok()?,
        len: m.len(),
    })
}

impl Watch {
    /// Before the benchmark runs: its `new/estimates.json` under `home`.
    pub(super) fn start(home: &std::path::Path, metric: &Metric) -> Watch {
        let path = home.join(metric.id).join("new").join("estimates.json");
        Watch {
            before: stamp(&path),
            path,
            zero_samples: 0,
        }
    }

    /// Each timed call: whether it returned zero (time or figure).
    pub(super) fn returned(&mut self, zero: bool) {
        if zero {
            self.zero_samples += 1;
        }
    }

    /// After the benchmark ran and Criterion analysed it: why its results
    /// were not saved, if they were not. A file that exists and has not
    /// changed counts as lost only when a call returned zero time (a
    /// rewrite within one tick of the file system's clock could look
    /// unchanged; Criterion discards a benchmark for no other reason).
    pub(super) fn lost(&self) -> Option<String> {
        let after = stamp(&self.path);
        let kept = match after {
            None => false,
            Some(a) => self.before != Some(a) || self.zero_samples == 0,
        };
        if kept {
            return None;
        }
        let why = if self.zero_samples > 0 {
            format!(
                "{} timed call(s) returned zero time, so Criterion discarded the samples",
                self.zero_samples
            )
        } else {
            "Criterion gave no reason on this path (see its error above)".to_string()
        };
        Some(format!(
            "no results saved at {}: {why}",
            self.path.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::lat_syscall::NULL;

    fn estimates(home: &std::path::Path, body: &str) {
        let dir = home.join(NULL.id).join("new");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("estimates.json"), body).unwrap();
    }

    #[test]
    fn a_benchmark_that_wrote_its_estimates_kept_them() {
        let home = tempfile::tempdir().unwrap();
        let mut w = Watch::start(home.path(), &NULL);
        w.returned(false);
        estimates(home.path(), "{}");
        assert_eq!(w.lost(), None);
    }

    #[test]
    fn no_estimates_after_the_run_are_lost_results() {
        let home = tempfile::tempdir().unwrap();
        let mut w = Watch::start(home.path(), &NULL);
        w.returned(true);
        w.returned(false);
        let lost = w.lost().expect("lost");
        assert!(
            lost.contains("1 timed call(s) returned zero time"),
            "{lost}"
        );
        assert!(
            lost.contains("lat_syscall/null/new/estimates.json"),
            "{lost}"
        );
        // Missing without a zero sample: lost all the same.
        let w = Watch::start(home.path(), &NULL);
        assert!(w.lost().unwrap().contains("no reason"));
    }

    #[test]
    fn an_earlier_run_s_estimates_left_unchanged_after_a_zero_sample_are_lost() {
        let home = tempfile::tempdir().unwrap();
        estimates(home.path(), "{\"earlier\":1}");
        let mut w = Watch::start(home.path(), &NULL);
        w.returned(true);
        assert!(w.lost().is_some());
        // Rewritten (another length): kept.
        estimates(home.path(), "{}");
        assert_eq!(w.lost(), None);
    }
}
