//! One metric's test before moderation and adjustment: the change of the
//! log statistic and its variance from the runs (paired round by round
//! when both sides took turns in one sitting), or with one run a side
//! from the samples; then, moderated by its program's prior, the test a
//! row shows (interval, p, detectable change, runs a side still needed).

use super::moderate::Prior;
use super::sides::Sides;
use super::{Level, Test, ALPHA, POWER};
use crate::stats;

/// A test before moderation and adjustment.
pub(super) struct Raw {
    pub(super) diff: f64,
    pub(super) s2: f64,
    pub(super) d: f64,
    /// sqrt(1/ka + 1/kb), or for samples the factor of Welch's se.
    pub(super) scale: f64,
    pub(super) level: Level,
    pub(super) runs: [usize; 2],
    /// Tested over pairs of runs (round i of old with round i of new).
    pub(super) paired: bool,
}

/// The raw test of one metric from its per-run statistics (or, with one
/// run a side, its samples). `paired`: the two runs took turns in one
/// sitting, run i of each in round i: with every run of both sides kept
/// and two or more a side, the test is on the rounds' differences, which
/// cancels whatever moved the host from one round to the next.
pub(super) fn raw_test(s: &Sides, paired: bool) -> Option<Raw> {
    let (ka, kb) = (s.old.len(), s.new.len());
    if ka == 0 || kb == 0 {
        return None;
    }
    let ln = |x: &[f64]| -> Vec<f64> { x.iter().map(|v| v.ln()).collect() };
    let (a, b) = (ln(&s.old), ln(&s.new));
    let diff = stats::mean(&b) - stats::mean(&a);
    let all_kept = s.busy_runs == [0, 0] && s.interfered_runs == [0, 0];
    if paired && ka == kb && ka >= 2 && all_kept {
        let d: Vec<f64> = b.iter().zip(&a).map(|(b, a)| b - a).collect();
        // Kept on the scale of one run's variance, as the unpaired test's
        // (a difference has two runs' worth), so the program's prior and
        // the runs a side still needed read alike: se^2 = var(d) / k.
        return Some(Raw {
            diff,
            s2: stats::variance(&d) / 2.0,
            d: (ka - 1) as f64,
            scale: (2.0 / ka as f64).sqrt(),
            level: Level::Runs,
            runs: [ka, kb],
            paired: true,
        });
    }
    if ka + kb >= 3 {
        // Pooled variance of the runs around their side's mean.
        let ss = |x: &[f64]| stats::variance(x) * (x.len() as f64 - 1.0).max(0.0);
        let d = (ka + kb - 2) as f64;
        return Some(Raw {
            diff,
            s2: (ss(&a) + ss(&b)) / d,
            d,
            scale: (1.0 / ka as f64 + 1.0 / kb as f64).sqrt(),
            level: Level::Runs,
            runs: [ka, kb],
            paired: false,
        });
    }
    // One run a side: the spread of its samples (log), Welch's df.
    let pos = |x: &[f64]| -> Vec<f64> { x.iter().filter(|v| **v > 0.0).map(|v| v.ln()).collect() };
    let (xa, xb) = (pos(&s.samples[0]), pos(&s.samples[1]));
    if xa.len() < 2 || xb.len() < 2 {
        return None;
    }
    let (va, vb) = (
        stats::variance(&xa) / xa.len() as f64,
        stats::variance(&xb) / xb.len() as f64,
    );
    let se2 = va + vb;
    let d = if se2 > 0.0 {
        se2 * se2 / (va * va / (xa.len() as f64 - 1.0) + vb * vb / (xb.len() as f64 - 1.0))
    } else {
        (xa.len() + xb.len() - 2) as f64
    };
    Some(Raw {
        diff,
        s2: se2,
        d,
        scale: 1.0,
        level: Level::Samples,
        runs: [1, 1],
        paired: false,
    })
}

/// The runs a side at which the detectable change reaches `target` (a
/// log ratio) for a run-to-run variance `s2` with `d0` borrowed df and a
/// between-sitting variance `tau2` that runs do not shrink.
fn runs_needed(s2: f64, d0: f64, target: f64, tau2: f64) -> Option<usize> {
    (2..=1000).find(|&k| {
        let df = (2 * k - 2) as f64 + d0;
        detect_factor(df) * (s2 * 2.0 / k as f64 + tau2).sqrt() <= target
    })
}

/// t(0.975) + t(0.80) at `df`: the detectable change in standard errors.
fn detect_factor(df: f64) -> f64 {
    stats::t_quantile(ALPHA, df) + stats::t_quantile(2.0 * (1.0 - POWER), df)
}

/// The test a row shows: `r` moderated by its program's prior `own` (the
/// whole comparison's `global` where its program has none), at `threshold`
/// (a log ratio), with the between-sitting variance `tau2` that runs do
/// not shrink; and the level it rests on (one run a side borrows its
/// program's run-to-run spread when some metrics have runs to show it).
pub(super) fn moderated(
    r: &Raw,
    own: Prior,
    global: Prior,
    threshold: f64,
    tau2: f64,
) -> (Level, Test) {
    let mut level = r.level;
    let (s2, df, scale, d0) = match r.level {
        Level::Runs => {
            let (s2, df) = own.moderate(r.s2, r.d);
            (s2, df, r.scale, own.d0)
        }
        // One run a side: its program's run-to-run spread, when some
        // metrics have runs to show it, never less than what the two
        // runs' own samples show.
        _ => {
            let prior = if own.d0 > 0.0 { own } else { global };
            if prior.d0 > 0.0 {
                level = Level::Borrowed;
                let s2 = prior.s0_sq.max(r.s2 / 2.0);
                (s2, prior.d0, std::f64::consts::SQRT_2, prior.d0)
            } else {
                (r.s2, r.d, r.scale, 0.0)
            }
        }
    };
    let se = (s2 * scale * scale + tau2).sqrt();
    let p_value = if se > 0.0 {
        stats::t_two_sided_p(r.diff / se, df)
    } else if r.diff == 0.0 {
        1.0
    } else {
        0.0
    };
    let half = stats::t_quantile(ALPHA, df) * se;
    let detect = detect_factor(df) * se;
    let test = Test {
        ratio: r.diff.exp(),
        interval: ((r.diff - half).exp(), (r.diff + half).exp()),
        df,
        p: p_value,
        q: f64::NAN,
        detect_pct: 100.0 * (detect.exp() - 1.0),
        runs_needed: match level {
            Level::Runs | Level::Borrowed if detect > threshold => {
                runs_needed(s2, d0, threshold, tau2)
            }
            _ => None,
        },
        borrowed_df: match level {
            Level::Borrowed => df,
            _ => df - r.d,
        },
    };
    (level, test)
}
