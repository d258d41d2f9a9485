//! One comparison row as the table cells the formats people read show:
//! the text table and the Markdown one hold the same strings, so the two
//! cannot disagree on a figure.

use crate::format::fmt_num;
use crate::verdict::{Level, Row, Verdict};

/// A change in percent with its sign, to one decimal.
pub(super) fn pct(x: f64) -> String {
    if x.abs() >= 999.5 {
        format!("{x:+.0}%")
    } else {
        format!("{x:+.1}%")
    }
}

/// The column headers, in the order of [`Cells::all`].
pub(super) const HEADERS: [&str; 11] = [
    "metric",
    "unit",
    "old",
    "new",
    "change",
    "95% interval",
    "q",
    "detect",
    "runs",
    "stat",
    "verdict",
];

/// The cells of one row, formatted.
pub(super) struct Cells {
    metric: String,
    unit: String,
    old: String,
    new: String,
    change: String,
    interval: String,
    q: String,
    detect: String,
    runs: String,
    stat: String,
    verdict: String,
}

impl Cells {
    pub fn of(r: &Row) -> Cells {
        let change = if r.change_pct.is_finite() {
            pct(r.change_pct)
        } else {
            "-".to_string()
        };
        let (interval, q, detect) = match &r.test {
            Some(t) => {
                let (lo, hi) = r.change_interval_pct().unwrap_or((f64::NAN, f64::NAN));
                (
                    format!("[{}, {}]", pct(lo), pct(hi)),
                    if t.q.is_nan() {
                        "-".to_string()
                    } else {
                        format!("{:.3}", t.q)
                    },
                    format!("±{}%", fmt_num(t.detect_pct, 5)),
                )
            }
            None => ("-".into(), "-".into(), "-".into()),
        };
        let runs = match r.level {
            Level::Runs => format!("{}+{}", r.runs[0], r.runs[1]),
            Level::Borrowed => "1+1~".to_string(),
            Level::Samples => "1+1*".to_string(),
        };
        let mut verdict = r.verdict.text().to_string();
        if r.verdict == Verdict::CannotTell {
            if let Some(k) = r.test.as_ref().and_then(|t| t.runs_needed) {
                verdict.push_str(&format!(" ({k} runs)"));
            }
        }
        Cells {
            metric: r.id.clone(),
            unit: r.unit.to_string(),
            old: fmt_num(r.old, 9),
            new: fmt_num(r.new, 9),
            change,
            interval,
            q,
            detect,
            runs,
            stat: r.stat_label(),
            verdict,
        }
    }

    /// Every cell, in the order of [`HEADERS`].
    pub fn all(&self) -> [&str; 11] {
        [
            &self.metric,
            &self.unit,
            &self.old,
            &self.new,
            &self.change,
            &self.interval,
            &self.q,
            &self.detect,
            &self.runs,
            &self.stat,
            &self.verdict,
        ]
    }
}
