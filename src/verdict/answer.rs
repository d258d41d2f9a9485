//! The comparison's answer to `check`'s question, "did anything regress
//! at the threshold?": a regression ([`Comparison::regressions`]) if any
//! row is one; else "cannot tell" while any row is neither decided nor
//! answered by its pinned twin ([`Comparison::unanswered`]); else none.

use super::Comparison;

/// What a comparison answers to "did anything regress?".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    NoRegression,
    Regression,
    CannotTell,
}

impl Comparison {
    /// The answer at the comparison's threshold.
    pub fn answer(&self) -> Answer {
        if self.regressions(self.threshold_pct).next().is_some() {
            Answer::Regression
        } else if self.unanswered().next().is_some() {
            Answer::CannotTell
        } else {
            Answer::NoRegression
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::columns::Columns;
    use super::super::{Drift, Level, Row, Test, Verdict};
    use super::*;
    use std::collections::BTreeMap;

    /// A row of metric `id` with `verdict`, `change` percent and, when
    /// `detect` is given, a test that finds that change.
    fn row(id: &str, verdict: Verdict, change: f64, detect: Option<f64>) -> Row {
        Row {
            id: id.into(),
            unit: "us",
            old: 1.0,
            new: 1.0,
            change_pct: change,
            time_change_pct: change,
            estimator: super::super::estimate::Estimator::Fastest,
            per_cycle: false,
            in_time_change_pct: None,
            m: 10,
            runs: [3, 3],
            paired: false,
            busy_runs: [0, 0],
            interfered_runs: [0, 0],
            level: Level::Runs,
            test: detect.map(|detect_pct| Test {
                ratio: 1.0 + change / 100.0,
                interval: (1.0, 1.0),
                df: 4.0,
                p: 0.5,
                q: 0.5,
                detect_pct,
                runs_needed: None,
                borrowed_df: 0.0,
            }),
            modes: None,
            verdict,
            busy: [None, None],
        }
    }

    fn comparison_of(rows: Vec<Row>) -> Comparison {
        Comparison {
            tested: rows.len(),
            rows,
            drift: Drift::default(),
            memory: Drift::default(),
            shared: Drift::default(),
            private_cache: None,
            clock: None,
            sittings: None,
            threshold_pct: 5.0,
            columns: Columns::default(),
        }
    }

    fn comparison(verdicts: &[(Verdict, f64)]) -> Comparison {
        comparison_of(
            verdicts
                .iter()
                .map(|&(v, change)| row("lat_syscall/null", v, change, None))
                .collect(),
        )
    }

    #[test]
    fn a_regression_then_any_doubt_decides_the_answer() {
        use Verdict::*;
        let code = |v: &[(Verdict, f64)]| comparison(v).answer();
        assert_eq!(
            code(&[(Unchanged, 0.1), (Faster, -9.0)]),
            Answer::NoRegression
        );
        // A small slowdown is not a regression at the threshold.
        assert_eq!(
            code(&[(Small, 2.0), (Unchanged, 0.0)]),
            Answer::NoRegression
        );
        assert_eq!(
            code(&[(Slower, 7.0), (CannotTell, 0.0)]),
            Answer::Regression
        );
        assert_eq!(
            code(&[(Unchanged, 0.0), (CannotTell, 3.0)]),
            Answer::CannotTell
        );
        assert_eq!(code(&[(Busy, 0.0)]), Answer::CannotTell);
    }

    #[test]
    fn an_unpinned_column_is_answered_by_a_decided_pinned_twin() {
        use Verdict::*;
        let (own, twin) = ("lat_pipe/pipe", "lat_pipe/pipe_pinned");
        let twins = BTreeMap::from([(own.to_string(), twin.to_string())]);
        let with = |own_row: Row, twin_row: Row| {
            let mut c = comparison_of(vec![own_row, twin_row]);
            c.columns.twins = twins.clone();
            c.answer()
        };
        // The twin unchanged and able to find 5%: nothing regressed.
        assert_eq!(
            with(
                row(own, CannotTell, 9.0, Some(40.0)),
                row(twin, Unchanged, 0.5, Some(2.0))
            ),
            Answer::NoRegression
        );
        // The twin slower: that path regressed.
        assert_eq!(
            with(
                row(own, CannotTell, 9.0, Some(40.0)),
                row(twin, Slower, 8.0, Some(2.0))
            ),
            Answer::Regression
        );
        // A twin that cannot find 5% itself answers nothing.
        assert_eq!(
            with(
                row(own, CannotTell, 9.0, Some(40.0)),
                row(twin, Unchanged, 0.5, Some(7.0))
            ),
            Answer::CannotTell
        );
        // Nor does an undecided twin, nor any twin for a busy row.
        assert_eq!(
            with(
                row(own, CannotTell, 9.0, Some(40.0)),
                row(twin, CannotTell, 1.0, Some(9.0))
            ),
            Answer::CannotTell
        );
        assert_eq!(
            with(
                row(own, Busy, 9.0, None),
                row(twin, Unchanged, 0.5, Some(2.0))
            ),
            Answer::CannotTell
        );
        // Without the twin in the comparison (a filter left it out): cannot tell.
        let mut alone = comparison_of(vec![row(own, CannotTell, 9.0, Some(40.0))]);
        alone.columns.twins = twins.clone();
        assert_eq!(alone.answer(), Answer::CannotTell);
    }

    #[test]
    fn a_twin_settles_a_column_only_when_decided_and_able_to_see_the_threshold() {
        use Verdict::*;
        // Where compare and check once differed: a twin that could see
        // the threshold (detect 2% at 5%) but is still "cannot tell" was
        // counted in compare's share while check did not take its answer.
        // It has not said whether its path moved: it settles nothing.
        let (own, twin) = ("lat_pipe/pipe", "lat_pipe/pipe_pinned");
        let share = |twin_row: Row| {
            let mut c = comparison_of(vec![row(own, CannotTell, 9.0, Some(40.0)), twin_row]);
            c.columns = Columns {
                metrics: [own.to_string()].into(),
                twins: BTreeMap::from([(own.to_string(), twin.to_string())]),
            };
            let s = c.column_share();
            (s.behind.len(), s.resolved, s.by_twins.len(), s.answered())
        };
        assert_eq!(share(row(twin, CannotTell, 4.0, Some(2.0))), (1, 0, 0, 0));
        assert_eq!(share(row(twin, Unchanged, 0.5, Some(2.0))), (1, 0, 1, 1));
        assert_eq!(share(row(twin, Slower, 8.0, Some(2.0))), (1, 0, 1, 1));
        // A twin that cannot see the threshold, decided or not: nothing.
        assert_eq!(share(row(twin, Slower, 8.0, Some(7.0))), (1, 0, 0, 0));
    }
}
