//! The verdicts: a side of one run is neither called nor decided; every
//! other idle metric with a test goes through one Benjamini-Hochberg
//! adjustment, and its q-value, change and detectable change decide
//! slower, faster, small, unchanged or cannot tell.

use super::{Row, Verdict, ALPHA};
use crate::stats;

/// Gives every row its verdict (`threshold`: the change that matters, a
/// log ratio); returns how many rows were tested for a call.
pub(super) fn call(rows: &mut [Row], threshold: f64) -> usize {
    // A side of one run is neither called nor decided: beside several,
    // the other side's spread says nothing of whether that run was slowed
    // whole or met another state of the host; one a side, the spread is
    // borrowed from other metrics, which need not be like it. It gets a
    // second run first (`run --budget` re-measures it), and stays out of
    // the multiplicity correction, as it is not tested for a call.
    for row in rows.iter_mut().filter(|r| r.single_run()) {
        if let Some(t) = row.test.as_mut() {
            t.runs_needed = Some(t.runs_needed.unwrap_or(0).max(2));
            if row.verdict != Verdict::Busy {
                row.verdict = Verdict::CannotTell;
            }
        }
    }
    // Benjamini-Hochberg over every other idle metric with a test.
    let judged: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].verdict == Verdict::Untested && rows[i].test.is_some())
        .collect();
    let p: Vec<f64> = judged
        .iter()
        .map(|&i| rows[i].test.as_ref().map_or(f64::NAN, |t| t.p))
        .collect();
    for (&i, q) in judged.iter().zip(stats::bh_adjust(&p)) {
        let row = &mut rows[i];
        let t = row.test.as_mut().expect("judged rows have tests");
        t.q = q;
        let change = t.ratio.ln();
        row.verdict = if q < ALPHA {
            if change.abs() < threshold {
                Verdict::Small
            } else if change > 0.0 {
                Verdict::Slower
            } else {
                Verdict::Faster
            }
        } else if (1.0 + t.detect_pct / 100.0).ln() <= threshold
            && t.interval.0.ln().abs() <= threshold
            && t.interval.1.ln().abs() <= threshold
        {
            Verdict::Unchanged
        } else {
            Verdict::CannotTell
        };
    }
    judged.len()
}
