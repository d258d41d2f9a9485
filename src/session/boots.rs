//! What the further rounds of a sitting of boots (`kernels --budget`)
//! measure. Every boot costs the host a fixed time before its first
//! sample and after its last (the guest's init, settling, sending the
//! results: 10-25 s of a boot under icount on a 2-vCPU AMD EPYC host),
//! and every further round boots each side once. So a further round
//! measures the candidates that the time left can settle: a metric that
//! needs more rounds than the time left buys is dropped (the one that
//! needs the most first) until every one left fits, and a boot of fewer
//! metrics buys more rounds for the rest.

use std::time::Duration;

use super::rounds::{Candidate, Costs};

/// The candidates worth further rounds: those that a run of `rounds` a
/// side so far brings to the threshold within the rounds `left` buys
/// when each of `sides` boots once a round, every boot costing `fixed`
/// plus each chosen metric's cost. Ordered as `candidates` were;
/// empty when the time left settles none.
pub fn worth_booting(
    candidates: &[Candidate],
    rounds: usize,
    left: Duration,
    sides: usize,
    fixed: Duration,
    costs: &Costs,
) -> Vec<Candidate> {
    // Beyond reach (more than the estimate's ceiling) is never worth it.
    let mut chosen: Vec<&Candidate> = candidates
        .iter()
        .filter(|c| c.runs_needed.is_some())
        .collect();
    loop {
        let boot = fixed + chosen.iter().map(|c| costs.of(&c.id)).sum::<Duration>();
        let reach = rounds + further_rounds(left, sides, boot);
        // The metric that needs the most rounds, if the time cannot buy them.
        let worst = chosen
            .iter()
            .enumerate()
            .filter(|(_, c)| c.runs_needed.is_some_and(|k| k > reach))
            .max_by_key(|(_, c)| c.runs_needed)
            .map(|(i, _)| i);
        match worst {
            Some(i) => {
                chosen.remove(i);
            }
            None => return chosen.into_iter().cloned().collect(),
        }
    }
}

/// The rounds `left` buys when a round is one boot of `boot` per side,
/// in whole pairs (each pair of rounds balanced, A B then B A).
fn further_rounds(left: Duration, sides: usize, boot: Duration) -> usize {
    let pair = boot.as_secs_f64() * 2.0 * sides.max(1) as f64;
    if pair <= 0.0 {
        return 0;
    }
    2 * (left.as_secs_f64() / pair).floor() as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use lmbench_support::catalog::{lat_fs, lat_syscall};

    fn candidate(id: &str, runs_needed: Option<usize>) -> Candidate {
        Candidate {
            id: id.to_string(),
            tier: 0,
            detect_pct: 2.0,
            runs_needed,
            single: false,
        }
    }

    fn ids(c: &[Candidate]) -> Vec<&str> {
        c.iter().map(|c| c.id.as_str()).collect()
    }

    #[test]
    fn the_time_left_buys_whole_pairs_of_rounds() {
        let s = Duration::from_secs;
        // A pair of rounds of two sides is four boots of 25 s.
        assert_eq!(further_rounds(s(1200), 2, s(25)), 24);
        assert_eq!(further_rounds(s(99), 2, s(25)), 0);
        assert_eq!(further_rounds(s(100), 2, s(25)), 2);
        assert_eq!(further_rounds(s(100), 2, Duration::ZERO), 0);
    }

    #[test]
    fn what_needs_more_rounds_than_the_time_buys_is_dropped_worst_first() {
        let mut costs = Costs::default();
        let open = lat_syscall::OPEN.id;
        let create = lat_fs::CREATE_0K.id;
        let null = lat_syscall::NULL.id;
        for m in [&lat_syscall::OPEN, &lat_fs::CREATE_0K, &lat_syscall::NULL] {
            costs.record(&[m], Duration::from_secs(5), &[]);
        }
        let cands = [
            candidate(open, Some(12)),
            candidate(create, Some(14)),
            candidate(null, None),
            candidate("lat_connect/tcp", Some(5000)),
        ];
        // 20 s fixed + 10 s of metrics = 30 s a boot, 120 s a pair of
        // rounds: 1200 s buys 20 rounds, so after 2 both fit.
        let all = worth_booting(
            &cands[..2],
            2,
            Duration::from_secs(1200),
            2,
            Duration::from_secs(20),
            &costs,
        );
        assert_eq!(ids(&all), [open, create]);
        // Beyond reach, or needing more than any time left buys: never.
        let some = worth_booting(
            &cands,
            2,
            Duration::from_secs(1200),
            2,
            Duration::from_secs(20),
            &costs,
        );
        assert_eq!(ids(&some), [open, create]);
        // 600 s buys 10 rounds of both (12 in all: not 14), and 12 of
        // open alone (25 s a boot, 100 s a pair: 6 pairs, 14 in all).
        let one = worth_booting(
            &cands[..2],
            2,
            Duration::from_secs(600),
            2,
            Duration::from_secs(20),
            &costs,
        );
        assert_eq!(ids(&one), [open]);
        assert!(worth_booting(
            &cands[..2],
            2,
            Duration::from_secs(60),
            2,
            Duration::from_secs(20),
            &costs
        )
        .is_empty());
    }
}
