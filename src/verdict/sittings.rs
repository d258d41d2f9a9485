//! Between sittings: how far a metric moves from one sitting of the suite
//! to the next when nothing changed. The runs of one sitting share the
//! host's state of that hour (its memory placement, its neighbours), so
//! their spread shows nothing of it, and a comparison of two sittings
//! takes a move of the host for a change. Only an A/A pair, two sittings
//! of one build on one machine, shows it: `compare --aa A B` reads it
//! from the pair and adds it to the uncertainty of every test. Several
//! pairs (`--aa A B --aa C D`) pool their tests: one pair's median over a
//! program's handful of metrics is itself a noisy figure.
//!
//! On a 2-vCPU Xeon guest, two idle sittings of one build an hour apart
//! read Mem read at 64 MB about half of the first sitting's and a 2 GB
//! chain 12% slower: with runs that agree within each sitting, calls on
//! their runs alone.
//!
//! What is estimated, per group of metrics (a program, its main-memory
//! metrics apart, [`group`]): the variance tau^2 (of the log of the
//! statistic) that, added to each metric's own, makes the pair's tests
//! as often significant as chance makes them: the median two-sided p
//! over the group's metrics is 0.5. A median, not a mean, so that one
//! metric's wild move does not set its group's. A group with fewer than
//! [`MIN_GROUP`] metrics takes the estimate of its class (main memory or
//! not) over the whole pair.
//!
//! A program's buffers past the core's private caches (its L2, from the
//! pair's machine facts) are a group of their own too: the last-level
//! cache is shared with the host's other guests. On a 2-vCPU AMD EPYC
//! guest (1 MiB L2, 32 MiB L3) the stride chains over 1.5-48 MiB read
//! 13-77% faster in one sitting than in the one an hour before, while
//! the sizes in L1 and L2 did not move: in one group with those, the
//! median hid them.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{estimate, Comparison, Level, Test, Verdict, ALPHA};
use crate::stats;

/// The fewest metrics a group needs for an estimate of its own.
pub const MIN_GROUP: usize = 4;

/// The groups' between-sitting variances, from one or more A/A pairs.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Sittings {
    /// The pairs it was read from: old, new.
    pub pairs: Vec<[String; 2]>,
    /// Per group: the metrics it was estimated from and tau^2.
    pub groups: BTreeMap<String, GroupMove>,
    /// The estimates of the two classes, for groups too small: main
    /// memory's, the rest's.
    pub class_tau2: [f64; 2],
    /// The private caches of a core (its L2, bytes), past which a
    /// program's buffers are grouped apart; `None` when the pair's facts
    /// do not say.
    pub private_cache: Option<u64>,
}

/// One group's move between sittings.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct GroupMove {
    /// The tests it was estimated from (a metric once per pair).
    pub metrics: usize,
    /// The between-sitting variance of the log of its statistic.
    pub tau2: f64,
}

impl GroupMove {
    /// Its standard deviation as a percent of the figure.
    pub fn pct(&self) -> f64 {
        100.0 * (self.tau2.sqrt().exp() - 1.0)
    }
}

/// The group of metric `id`: its program, with main memory
/// ([`estimate::main_memory`]) and the shared cache (buffers past
/// `private_cache` bytes) apart: a program's sizes in the core's own
/// caches do not move with the host's memory or its other guests.
pub fn group(id: &str, private_cache: Option<u64>) -> String {
    let program = id.split('/').next().unwrap_or(id);
    if estimate::main_memory(id) {
        format!("{program} (main memory)")
    } else if estimate::shared_cache(id, private_cache) {
        format!("{program} (shared cache)")
    } else {
        program.to_string()
    }
}

/// The standard error (log) of a test, from its interval.
pub fn se_of(t: &Test) -> f64 {
    (t.interval.1 / t.interval.0).ln() / (2.0 * stats::t_quantile(ALPHA, t.df))
}

/// tau^2 for the tests `(log ratio, se, df)`: the least that brings the
/// median two-sided p to 0.5 (0 when it is there already).
fn tau2_of(tests: &[(f64, f64, f64)]) -> f64 {
    let median_p = |tau2: f64| {
        let p: Vec<f64> = tests
            .iter()
            .map(|(d, se, df)| stats::t_two_sided_p(d.abs() / (se * se + tau2).sqrt(), *df))
            .collect();
        stats::median(&p)
    };
    if tests.is_empty() || median_p(0.0) >= 0.5 {
        return 0.0;
    }
    // Bisection on tau (log), between no move and a factor of e.
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if median_p(mid * mid) < 0.5 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi * hi
}

impl Sittings {
    /// Reads the groups' moves from the comparisons of A/A pairs (each
    /// made without a calibration of its own), their tests pooled;
    /// `private_cache` as in [`group`].
    pub fn from_aa(pairs: &[(&Comparison, [String; 2])], private_cache: Option<u64>) -> Sittings {
        let mut by_group: BTreeMap<String, Vec<(f64, f64, f64)>> = BTreeMap::new();
        let mut by_class: [Vec<(f64, f64, f64)>; 2] = Default::default();
        for r in pairs.iter().flat_map(|(c, _)| &c.rows) {
            let Some(t) = r.test.as_ref() else {
                continue;
            };
            // A single run shows no spread of its own: its move would be
            // read against another metric's.
            if r.verdict == Verdict::Busy || r.level == Level::Samples || r.single_run() {
                continue;
            }
            let test = (t.ratio.ln(), se_of(t), t.df);
            if !test.1.is_finite() || !test.0.is_finite() {
                continue;
            }
            by_group
                .entry(group(&r.id, private_cache))
                .or_default()
                .push(test);
            by_class[usize::from(!estimate::main_memory(&r.id))].push(test);
        }
        let class_tau2 = [tau2_of(&by_class[0]), tau2_of(&by_class[1])];
        let groups = by_group
            .into_iter()
            .map(|(g, tests)| {
                let tau2 = if tests.len() >= MIN_GROUP {
                    tau2_of(&tests)
                } else {
                    class_tau2[usize::from(!g.ends_with("(main memory)"))]
                };
                (
                    g,
                    GroupMove {
                        metrics: tests.len(),
                        tau2,
                    },
                )
            })
            .collect();
        Sittings {
            pairs: pairs.iter().map(|(_, p)| p.clone()).collect(),
            groups,
            class_tau2,
            private_cache,
        }
    }

    /// The between-sitting variance to add to metric `id`'s test: its
    /// group's, else its class's.
    pub fn tau2(&self, id: &str) -> f64 {
        match self.groups.get(&group(id, self.private_cache)) {
            Some(g) => g.tau2,
            None => self.class_tau2[usize::from(!estimate::main_memory(id))],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_as_spread_as_their_errors_say_need_no_move() {
        // Log ratios of about one standard error each: p near 0.3-0.5.
        let quiet: Vec<(f64, f64, f64)> = (0..20)
            .map(|i| (0.01 * (f64::from(i % 5) - 2.0) * 0.5, 0.01, 20.0))
            .collect();
        assert_eq!(tau2_of(&quiet), 0.0);
    }

    #[test]
    fn tests_that_move_far_beyond_their_errors_get_the_move() {
        // Every metric moved by +-20% with an error of 1%: tau near 0.2.
        let moved: Vec<(f64, f64, f64)> = (0..20)
            .map(|i| (if i % 2 == 0 { 0.2 } else { -0.2 }, 0.01, 20.0))
            .collect();
        let tau = tau2_of(&moved).sqrt();
        assert!((0.25..0.35).contains(&tau), "tau {tau}");
        // The median p is then 0.5: |0.2| / tau is about 0.69.
        let p = stats::t_two_sided_p(0.2 / (0.0001 + tau * tau).sqrt(), 20.0);
        assert!((p - 0.5).abs() < 0.01, "p {p}");
        // One wild metric among quiet ones does not set the group's.
        let mut one: Vec<(f64, f64, f64)> = (0..9).map(|_| (0.001, 0.01, 20.0)).collect();
        one.push((3.0, 0.01, 20.0));
        assert_eq!(tau2_of(&one), 0.0);
    }

    #[test]
    fn main_memory_and_the_shared_cache_are_groups_of_their_own() {
        let l2 = Some(1 << 20);
        assert_eq!(group("lat_mem_rd/s1024/1g", l2), "lat_mem_rd (main memory)");
        assert_eq!(
            group("lat_mem_rd/s128/16m", l2),
            "lat_mem_rd (shared cache)"
        );
        assert_eq!(group("bw_mem/frd/2m", l2), "bw_mem (shared cache)");
        assert_eq!(group("lat_mem_rd/s128/1m", l2), "lat_mem_rd");
        assert_eq!(group("lat_mem_rd/s1024/16k", l2), "lat_mem_rd");
        assert_eq!(group("lat_syscall/null", l2), "lat_syscall");
        assert_eq!(group("tlb/pages/4096", l2), "tlb");
        // Facts that do not say: the shared cache is not told apart.
        assert_eq!(group("lat_mem_rd/s128/16m", None), "lat_mem_rd");
    }
}
