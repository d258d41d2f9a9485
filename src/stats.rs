//! The small statistics `compare` and `--runs` need: sample summaries,
//! Student's t distribution and the binomial ranks of a median's interval
//! (both `statrs`' distributions: exact for every df, fractional ones
//! included, no normal approximation), Welch's unequal-variance t-test,
//! the expected fastest of m samples, the trigamma function and
//! Benjamini-Hochberg's adjusted p-values.

use statrs::distribution::{Binomial, ContinuousCDF, DiscreteCDF, StudentsT};
use statrs::function::gamma;

/// Arithmetic mean; NaN for an empty slice.
pub fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Sample variance (n - 1 in the denominator); 0 for fewer than 2 values.
pub fn variance(xs: &[f64]) -> f64 {
    if xs.len() < 2 {
        return 0.0;
    }
    let m = mean(xs);
    xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (xs.len() - 1) as f64
}

/// Median (mean of the middle two for an even count); NaN if empty.
pub fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Median absolute deviation scaled by 1.4826, as Criterion reports it (an
/// estimate of the standard deviation for normal data).
pub fn mad(xs: &[f64]) -> f64 {
    let m = median(xs);
    let dev: Vec<f64> = xs.iter().map(|x| (x - m).abs()).collect();
    median(&dev) * 1.4826
}

/// Two-sided p-value of Student's t statistic with `df` degrees of freedom
/// (df may be fractional, as Welch's is; an infinite df is the normal's).
pub fn t_two_sided_p(t: f64, df: f64) -> f64 {
    if !t.is_finite() {
        return 0.0;
    }
    // P(|T| > |t|), twice the upper tail; NaN for a df no distribution has.
    match StudentsT::new(0.0, 1.0, df) {
        Ok(dist) => 2.0 * dist.sf(t.abs()),
        Err(_) => f64::NAN,
    }
}

/// The outcome of Welch's t-test of "b differs from a".
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Welch {
    pub t: f64,
    pub df: f64,
    pub p: f64,
}

/// Welch's unequal-variance t-test; `None` when either side has fewer than
/// two samples (no variance, so no test).
pub fn welch(a: &[f64], b: &[f64]) -> Option<Welch> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (va, vb) = (variance(a) / na, variance(b) / nb);
    let diff = mean(b) - mean(a);
    let se2 = va + vb;
    if se2 == 0.0 {
        // Identical constant samples: no difference, or a certain one.
        let p = if diff == 0.0 { 1.0 } else { 0.0 };
        return Some(Welch {
            t: if diff == 0.0 { 0.0 } else { f64::INFINITY },
            df: na + nb - 2.0,
            p,
        });
    }
    let t = diff / se2.sqrt();
    let df = se2 * se2 / (va * va / (na - 1.0) + vb * vb / (nb - 1.0));
    Some(Welch {
        t,
        df,
        p: t_two_sided_p(t, df),
    })
}

/// The t value whose two-sided tail probability is `p_two_sided` with `df`
/// degrees of freedom (0.05 gives the 97.5% quantile); NaN for a df no
/// distribution has. A df beyond 1e7 is the normal's.
pub fn t_quantile(p_two_sided: f64, df: f64) -> f64 {
    match StudentsT::new(0.0, 1.0, df.min(1e7)) {
        Ok(t) => t.inverse_cdf(1.0 - p_two_sided / 2.0),
        Err(_) => f64::NAN,
    }
}

/// The two-sided 97.5% quantile of Student's t (for a 95% interval).
pub fn t_quantile_975(df: f64) -> f64 {
    t_quantile(0.05, df)
}

/// The smallest difference of means that Welch's test at 95% confidence
/// (two-sided) finds with 80% power, for samples spread as `a` and `b`:
/// (t(0.975, df) + t(0.80, df)) times the standard error of the
/// difference, with Welch's degrees of freedom. `None` when a side has
/// fewer than two values.
pub fn min_detectable(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (va, vb) = (variance(a) / na, variance(b) / nb);
    let se2 = va + vb;
    if se2 == 0.0 {
        return Some(0.0);
    }
    let df = se2 * se2 / (va * va / (na - 1.0) + vb * vb / (nb - 1.0));
    // 80% power: the one-sided 20% tail, i.e. a two-sided 40%.
    Some((t_quantile(0.05, df) + t_quantile(0.40, df)) * se2.sqrt())
}

/// The expected fastest of `m` samples drawn at random (without
/// replacement) from these, estimated from all of them: the weighted
/// mean of the sorted values in which the i-th smallest (0-based) weighs
/// C(n-1-i, m-1) / C(n, m), the chance that it is the smallest of a random
/// m-subset. Unbiased for the fastest of m whatever n >= m is, so runs of
/// 10 and of 100 samples compare like with like; with m = n it is the
/// minimum. `m` is capped at n; NaN if empty.
pub fn fastest_of(sorted: &[f64], m: usize) -> f64 {
    let n = sorted.len();
    if n == 0 || m == 0 {
        return f64::NAN;
    }
    let m = m.min(n);
    // Weights by the ratio w(i+1)/w(i) = (n-m-i)/(n-1-i), from w(0) = m/n.
    let (mut w, mut sum) = (m as f64 / n as f64, 0.0);
    for (i, x) in sorted.iter().enumerate() {
        if w == 0.0 {
            break;
        }
        sum += w * x;
        w *= (n - m).saturating_sub(i) as f64 / (n - 1 - i).max(1) as f64;
    }
    sum
}

/// The trigamma function, the derivative of digamma: by the recurrence
/// up to x >= 10, then its asymptotic series (error below 1e-12 there).
pub fn trigamma(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return f64::NAN;
    }
    let (mut x, mut acc) = (x, 0.0);
    while x < 10.0 {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    let x2 = 1.0 / (x * x);
    acc + 1.0 / x
        + x2 / 2.0
        + x2 / x * (1.0 / 6.0 - x2 * (1.0 / 30.0 - x2 * (1.0 / 42.0 - x2 / 30.0)))
}

/// The digamma function (statrs').
pub fn digamma(x: f64) -> f64 {
    gamma::digamma(x)
}

/// Benjamini-Hochberg's adjusted p-values ("q-values"), in the input's
/// order: calling every test with q < alpha keeps the expected share of
/// false calls among the calls at most alpha (independent or positively
/// dependent tests). NaN p-values stay NaN and do not count as tests.
pub fn bh_adjust(p: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..p.len()).filter(|&i| !p[i].is_nan()).collect();
    idx.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let m = idx.len() as f64;
    let mut q = vec![f64::NAN; p.len()];
    let mut running = 1.0f64;
    for (rank, &i) in idx.iter().enumerate().rev() {
        running = running.min(p[i] * m / (rank + 1) as f64);
        q[i] = running.min(1.0);
    }
    q
}

/// The `q` quantile of sorted values, interpolating between neighbours
/// (the common "type 7" definition); NaN if empty.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let h = (n - 1) as f64 * q.clamp(0.0, 1.0);
            let (i, frac) = (h.floor() as usize, h - h.floor());
            let next = sorted[(i + 1).min(n - 1)];
            sorted[i] + frac * (next - sorted[i])
        }
    }
}

/// 0-based ranks (j, k) of sorted samples that bound a distribution-free
/// confidence interval of the median of at least 95%: the widest j with
/// P(Binomial(n, 1/2) < j + 1) <= 2.5%, mirrored. Fewer than 6 samples
/// cannot reach 95%: the interval is then the whole range.
pub fn median_ci_ranks(n: usize) -> (usize, usize) {
    if n == 0 {
        return (0, 0);
    }
    // X = how many samples fall below the median, Binomial(n, 1/2). The
    // interval from the sorted samples of 0-based ranks i and n-1-i misses
    // the median with probability 2 P(X <= i): keep the largest i where
    // that is <= 5% (0 when none is).
    let below = Binomial::new(0.5, n as u64).expect("1/2 is a probability");
    let j = (0..n)
        .take_while(|&i| below.cdf(i as u64) <= 0.025)
        .last()
        .unwrap_or(0);
    let j = j.min((n - 1) / 2);
    (j, n - 1 - j)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn t_distribution_matches_tables() {
        // Two-sided 5% critical values from any t table.
        for (df, t) in [(1.0, 12.706), (2.0, 4.303), (5.0, 2.571), (10.0, 2.228)] {
            let p = t_two_sided_p(t, df);
            assert!(close(p, 0.05, 2e-4), "df {df}: p {p}");
        }
        assert!(close(t_two_sided_p(2.042, 30.0), 0.05, 2e-4));
        assert!(close(t_two_sided_p(2.576, 1e6), 0.01, 1e-4));
        // Closed forms: Cauchy (df 1) at t = 1 is P(|T| > 1) = 1/2; df 2 has
        // CDF 1/2 + t / (2 sqrt(2 + t^2)).
        assert!(close(t_two_sided_p(1.0, 1.0), 0.5, 1e-12));
        let t: f64 = 1.5;
        let cdf = 0.5 + t / (2.0 * (2.0 + t * t).sqrt());
        assert!(close(t_two_sided_p(t, 2.0), 2.0 * (1.0 - cdf), 1e-12));
        assert_eq!(t_two_sided_p(0.0, 7.0), 1.0);
        assert_eq!(t_two_sided_p(-1.0, 1.0), t_two_sided_p(1.0, 1.0));
        assert_eq!(t_two_sided_p(f64::INFINITY, 3.0), 0.0);
        assert!(t_two_sided_p(1.0, 0.0).is_nan() && t_two_sided_p(1.0, f64::NAN).is_nan());
        for (df, t) in [(1.0, 12.706), (4.0, 2.776), (10.0, 2.228), (30.0, 2.042)] {
            let q = t_quantile_975(df);
            assert!(close(q, t, 1e-3), "df {df}: quantile {q}");
            assert!(close(t_two_sided_p(q, df), 0.05, 1e-9), "df {df}");
        }
        // Welch's df is fractional: between its integer neighbours, and the
        // quantile and the p-value invert each other there too.
        let q = t_quantile_975(4.5);
        assert!(q < t_quantile_975(4.0) && q > t_quantile_975(5.0), "{q}");
        assert!(close(t_two_sided_p(q, 4.5), 0.05, 1e-9));
        assert!(t_quantile_975(0.0).is_nan());
    }

    #[test]
    fn welch_matches_hand_computation() {
        let a = [1.0, 2.0, 3.0, 4.0];
        let b = [2.0, 4.0, 6.0, 8.0];
        let w = welch(&a, &b).unwrap();
        // se² = 5/12 + 20/12; t = 2.5 / sqrt(25/12); df by Welch–Satterthwaite.
        assert!(close(w.t, 2.5 / (25.0f64 / 12.0).sqrt(), 1e-12));
        let (va, vb) = (5.0 / 12.0, 20.0 / 12.0);
        let df = (va + vb) * (va + vb) / (va * va / 3.0 + vb * vb / 3.0);
        assert!(close(w.df, df, 1e-12));
        assert!(w.p > 0.05 && w.p < 0.25, "p {}", w.p);
        let same = welch(&a, &a).unwrap();
        assert_eq!(same.p, 1.0);
        assert!(welch(&[1.0], &a).is_none());
        assert_eq!(welch(&[1.0, 1.0], &[2.0, 2.0]).unwrap().p, 0.0);
    }

    #[test]
    fn quantiles_and_median_intervals() {
        let x = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(quantile(&x, 0.25), 2.0);
        assert_eq!(quantile(&x, 0.5), 3.0);
        assert_eq!(quantile(&[1.0, 2.0], 0.25), 1.25);
        assert!(quantile(&[], 0.5).is_nan());
        // Ranks from binomial tables: n = 10 -> 2nd and 9th, n = 100 ->
        // 40th and 61st (1-based); under 6 samples, the whole range.
        assert_eq!(median_ci_ranks(10), (1, 8));
        assert_eq!(median_ci_ranks(100), (39, 60));
        assert_eq!(median_ci_ranks(5), (0, 4));
        assert_eq!(median_ci_ranks(1), (0, 0));
    }

    #[test]
    fn detectable_change_follows_the_power_formula() {
        // Two sides of 10 values, sd 1: se = sqrt(0.2); df 18:
        // t(0.975) 2.101 + t(0.80) 0.862 = 2.963.
        let a: Vec<f64> = (0..10)
            .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
            .collect();
        let sd = variance(&a).sqrt();
        let d = min_detectable(&a, &a).unwrap();
        assert!(close(d, 2.963 * sd * 0.2f64.sqrt(), 0.01 * sd), "{d}");
        assert_eq!(min_detectable(&[1.0, 1.0], &[2.0, 2.0]), Some(0.0));
        assert!(min_detectable(&[1.0], &a).is_none());
        assert!(close(t_quantile(0.40, 18.0), 0.862, 1e-3));
    }

    #[test]
    fn fastest_of_m_is_the_expected_minimum() {
        let x = [1.0, 2.0, 3.0, 4.0];
        // m = n: the minimum; m = 1: the mean.
        assert_eq!(fastest_of(&x, 4), 1.0);
        assert!(close(fastest_of(&x, 1), 2.5, 1e-12));
        // m = 2 of 4: the six pairs' minima 1,1,1,2,2,3 average 10/6.
        assert!(close(fastest_of(&x, 2), 10.0 / 6.0, 1e-12));
        // m above n is capped; empty is NaN.
        assert_eq!(fastest_of(&x, 9), 1.0);
        assert!(fastest_of(&[], 3).is_nan());
        // Brute force over every 3-subset of 7 values.
        let y: [f64; 7] = [0.5, 0.7, 1.1, 1.3, 2.0, 2.2, 5.0];
        let mut sum = 0.0;
        let mut count = 0.0;
        for a in 0..7 {
            for b in a + 1..7 {
                for c in b + 1..7 {
                    sum += y[a].min(y[b]).min(y[c]);
                    count += 1.0;
                }
            }
        }
        assert!(close(fastest_of(&y, 3), sum / count, 1e-12));
    }

    #[test]
    fn trigamma_and_digamma_match_closed_forms() {
        let pi2 = std::f64::consts::PI * std::f64::consts::PI;
        assert!(close(trigamma(1.0), pi2 / 6.0, 1e-10));
        assert!(close(trigamma(0.5), pi2 / 2.0, 1e-10));
        // trigamma(x + 1) = trigamma(x) - 1/x^2, across the series' edge.
        for x in [0.3, 2.5, 5.5, 7.0, 40.0] {
            assert!(close(trigamma(x + 1.0), trigamma(x) - 1.0 / (x * x), 1e-10));
        }
        assert!(close(digamma(1.0), -0.5772156649015329, 1e-9));
        assert!(trigamma(0.0).is_nan());
    }

    #[test]
    fn benjamini_hochberg_matches_hand_computation() {
        // Sorted p 0.01, 0.02, 0.03, 0.5 of four tests: p*m/rank = 0.04,
        // 0.04, 0.04, 0.5 (then running minima from the top).
        let q = bh_adjust(&[0.5, 0.01, 0.03, 0.02]);
        let want = [0.5, 0.04, 0.04, 0.04];
        for (a, b) in q.iter().zip(want) {
            assert!(close(*a, b, 1e-12), "{q:?}");
        }
        let q = bh_adjust(&[0.04, f64::NAN, 0.9]);
        assert!(close(q[0], 0.08, 1e-12) && q[1].is_nan() && close(q[2], 0.9, 1e-12));
        assert!(bh_adjust(&[]).is_empty());
    }

    #[test]
    fn summaries() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(variance(&[1.0, 2.0, 3.0, 4.0]), 5.0 / 3.0);
        assert!(close(mad(&[1.0, 2.0, 3.0, 4.0, 100.0]), 1.4826, 1e-12));
    }
}
