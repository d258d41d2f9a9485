//! Run-to-run variance borrowed across metrics: with three or five runs a
//! side, one metric's own variance rests on a handful of degrees of
//! freedom, and Student's t with 4 df needs a change nearly three times
//! the run-to-run spread before it is significant. The metrics of one
//! program share their noise (one process, one peer, one placement), so
//! each metric's variance is shrunk toward its program's, as the
//! empirical Bayes "moderated t" of Smyth (2004, the method of limma for
//! thousands of genes with three replicates each) does: the variances of
//! a group are taken as a scaled inverse chi-square prior with d0 degrees
//! of freedom and scale s0², fitted by the method of moments on their
//! logarithms; a metric's moderated variance is (d0 s0² + d s²) / (d0 +
//! d) and its test has d0 + d degrees of freedom.
//!
//! One guard departs from Smyth: a metric is never credited with less
//! variance than its own (`max(s², moderated)`), so a metric with one
//! wild run keeps its own spread and only gains the degrees of freedom.

use crate::stats;

/// The fitted prior of one group of metrics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prior {
    /// Prior degrees of freedom (0: nothing borrowed).
    pub d0: f64,
    /// Prior variance (of the log statistic).
    pub s0_sq: f64,
}

/// The most degrees of freedom a prior lends: a group whose metrics agree
/// perfectly would otherwise lend infinitely many.
pub const D0_MAX: f64 = 50.0;

/// The least variance a metric is credited with: a relative spread of
/// 0.01% (a CPU-bound chain repeats to the cycle, and a zero would be
/// minus infinity on the log scale the prior is fitted on).
pub const S2_FLOOR: f64 = 1e-8;

/// The least number of metrics a group needs for a prior of its own.
pub const MIN_GROUP: usize = 3;

/// Fits the prior to sample variances `s2` with `d` degrees of freedom
/// each (Smyth 2004, section 6.2). Fewer than [`MIN_GROUP`] variances lend
/// nothing.
pub fn fit(s2: &[f64], d: &[f64]) -> Prior {
    let none = Prior {
        d0: 0.0,
        s0_sq: 0.0,
    };
    let pairs: Vec<(f64, f64)> = s2
        .iter()
        .zip(d)
        .filter(|(_, d)| **d > 0.0)
        .map(|(s, d)| (s.max(S2_FLOOR), *d))
        .collect();
    let g = pairs.len();
    if g < MIN_GROUP {
        return none;
    }
    // e = log s² - digamma(d/2) + log(d/2) has mean log s0² - digamma(d0/2)
    // + log(d0/2) and variance trigamma(d/2) + trigamma(d0/2).
    let e: Vec<f64> = pairs
        .iter()
        .map(|(s, d)| s.ln() - stats::digamma(d / 2.0) + (d / 2.0).ln())
        .collect();
    let mean = stats::mean(&e);
    let excess = stats::variance(&e)
        - pairs
            .iter()
            .map(|(_, d)| stats::trigamma(d / 2.0))
            .sum::<f64>()
            / g as f64;
    let d0 = if excess > 0.0 {
        (2.0 * trigamma_inverse(excess)).min(D0_MAX)
    } else {
        D0_MAX
    };
    let s0_sq = (mean + stats::digamma(d0 / 2.0) - (d0 / 2.0).ln()).exp();
    Prior { d0, s0_sq }
}

impl Prior {
    /// The moderated variance of a metric with sample variance `s2` on `d`
    /// degrees of freedom, and the degrees of freedom of its test.
    pub fn moderate(&self, s2: f64, d: f64) -> (f64, f64) {
        if self.d0 <= 0.0 || d + self.d0 <= 0.0 {
            return (s2, d);
        }
        let shrunk = (self.d0 * self.s0_sq + d * s2) / (self.d0 + d);
        (shrunk.max(s2), self.d0 + d)
    }
}

/// The x with trigamma(x) = y, by Smyth's Newton iteration on 1/x.
fn trigamma_inverse(y: f64) -> f64 {
    if y > 1e7 {
        return 1.0 / y.sqrt();
    }
    if y < 1e-6 {
        return 1.0 / y;
    }
    let mut x = 0.5 + 1.0 / y;
    for _ in 0..50 {
        let tri = stats::trigamma(x);
        // tetragamma by a central difference: the iteration converges
        // quadratically either way.
        let h = 1e-5 * x;
        let tetra = (stats::trigamma(x + h) - stats::trigamma(x - h)) / (2.0 * h);
        let step = tri * (1.0 - tri / y) / tetra;
        x += step;
        if -step / x < 1e-8 {
            break;
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trigamma_inverse_inverts() {
        for x in [0.3, 1.0, 2.0, 7.5, 40.0] {
            let y = stats::trigamma(x);
            assert!((trigamma_inverse(y) - x).abs() < 1e-6 * x, "{x}");
        }
    }

    #[test]
    fn equal_variances_lend_the_most_and_scattered_ones_little() {
        // Forty metrics with one true variance, 0.01: sample variances on
        // 4 df spread as the chi-square quantiles do.
        use statrs::distribution::{ChiSquared, ContinuousCDF};
        let chi = ChiSquared::new(4.0).unwrap();
        let s2: Vec<f64> = (0..40)
            .map(|i| 0.01 * chi.inverse_cdf((i as f64 + 0.5) / 40.0) / 4.0)
            .collect();
        let d = vec![4.0; s2.len()];
        let p = fit(&s2, &d);
        assert!(p.d0 > 10.0, "{p:?}");
        assert!((p.s0_sq / 0.01 - 1.0).abs() < 0.3, "{p:?}");
        // Variances spread over four orders of magnitude: little to borrow.
        let wild: Vec<f64> = (0..40).map(|i| 10f64.powi(-(i % 5) - 2)).collect();
        let q = fit(&wild, &d);
        assert!(q.d0 < 2.0, "{q:?}");
        // Too few metrics: nothing.
        assert_eq!(fit(&s2[..2], &d[..2]).d0, 0.0);
    }

    #[test]
    fn moderation_never_lowers_a_metric_below_its_own_variance() {
        let p = Prior {
            d0: 10.0,
            s0_sq: 1e-4,
        };
        let (v, df) = p.moderate(1e-2, 4.0);
        assert_eq!((v, df), (1e-2, 14.0));
        let (v, df) = p.moderate(1e-6, 4.0);
        assert!(v > 1e-6 && v < 1e-4 && df == 14.0);
        let none = Prior {
            d0: 0.0,
            s0_sq: 0.0,
        };
        assert_eq!(none.moderate(3.0, 4.0), (3.0, 4.0));
    }
}
