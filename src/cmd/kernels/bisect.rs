//! `kernels --bisect METRIC`: the kernels are an ordered list, good to
//! bad (Debian's point releases of one series, say). The ends are
//! measured first, in one interleaved sitting; when the metric moved
//! between them, each further sitting puts the good end beside a
//! midpoint, until two neighbours bracket the move. Every step is a
//! sitting of its own, A B B A, so each verdict is paired and none leans
//! on a figure from another hour of the host.

use anyhow::{bail, Result};

use super::image::Side;
use super::plan::{side_name, Plan};
use super::sitting;
use crate::run::Run;
use crate::verdict::{Row, Verdict};

/// One step's reading of the metric: good end against `sides[i]`.
struct Step {
    index: usize,
    row: Row,
}

/// The comparison row of `metric` between the sides of a two-side run.
fn row_of(runs: &[Run], metric: &str, threshold: f64) -> Result<Row> {
    let re = regex::Regex::new(&format!("^{}$", regex::escape(metric)))?;
    let busy = lmbench_support::activity::BUSY_CPUS;
    let c = crate::verdict::compare(
        &runs[0],
        &runs[1],
        &crate::verdict::Options {
            busy_cpus: busy,
            filter: Some(&re),
            ..crate::verdict::Options::at(threshold)
        },
    );
    c.rows.into_iter().next().ok_or_else(|| {
        anyhow::anyhow!("{metric} was not measured on both sides (see the console log)")
    })
}

fn say(sides: &[Side], s: &Step) -> String {
    let t = s.row.test.as_ref();
    let interval = t.map_or(String::new(), |t| {
        format!(
            " [{:+.2}%, {:+.2}%]",
            (t.interval.0 - 1.0) * 100.0,
            (t.interval.1 - 1.0) * 100.0
        )
    });
    format!(
        "{}: {:+.2}%{interval} against {}, {}",
        sides[s.index].spec,
        s.row.change_pct,
        sides[0].spec,
        s.row.verdict.text()
    )
}

/// The binary search between index 0 (good) and `last`'s (moved): `moved_at(i)` measures kernel i and gives its reading
/// when it moved as the last did. Returns the last unmoved index and the
/// first moved one's reading; measures only the midpoints it needs.
fn first_moved<S: HasIndex, C>(
    last: S,
    mut moved_at: impl FnMut(usize, &mut C) -> Result<Option<S>>,
    ctx: &mut C,
) -> Result<(usize, S)> {
    let (mut good, mut bad) = (0, last);
    while bad.index() - good > 1 {
        let mid = (good + bad.index()) / 2;
        match moved_at(mid, ctx)? {
            Some(step) => bad = step,
            None => good = mid,
        }
    }
    Ok((good, bad))
}

trait HasIndex {
    fn index(&self) -> usize;
}

impl HasIndex for Step {
    fn index(&self) -> usize {
        self.index
    }
}

/// Bisects `plan.sides` (good first, bad last) on `metric`; prints each
/// step and the answer.
pub fn run(plan: &Plan, metric: &str, log: &mut std::fs::File) -> Result<()> {
    let sides = plan.sides;
    let n = sides.len();
    let measure = |i: usize, log: &mut std::fs::File| -> Result<Step> {
        let pair = [sides[0].clone(), sides[i].clone()];
        let p = Plan {
            sides: &pair,
            ..plan.clone()
        };
        eprintln!(
            "bisect: {} beside {}",
            side_name(&sides[0], 0),
            side_name(&sides[i], i)
        );
        let runs = sitting::run(&p, &mut [], log, std::time::Instant::now())?;
        let row = row_of(&runs, metric, plan.threshold)?;
        let step = Step { index: i, row };
        eprintln!("bisect: {}", say(sides, &step));
        Ok(step)
    };
    let end = measure(n - 1, log)?;
    let moved = end.row.verdict;
    if !matches!(moved, Verdict::Slower | Verdict::Faster) {
        bail!(
            "{metric} did not move by {}% between the ends ({}): nothing to bisect",
            plan.threshold,
            say(sides, &end)
        );
    }
    // What each kernel that did not move measured, for the answer: a
    // move under the threshold is still a move a reader wants to see.
    let mut below: std::collections::BTreeMap<usize, String> = Default::default();
    let (good, bad) = first_moved(
        end,
        |mid, log| {
            let step = measure(mid, log)?;
            if step.row.verdict == moved {
                Ok(Some(step))
            } else {
                below.insert(mid, say(sides, &step));
                Ok(None)
            }
        },
        log,
    )?;
    let before = match below.get(&good) {
        Some(said) => format!(
            "the kernel before it moved by less than {}%: {said}",
            plan.threshold
        ),
        None => format!("the kernel before it is the good end, {}", sides[0].spec),
    };
    println!(
        "{metric} moved first in {} ({}; {before})",
        sides[bad.index].spec,
        say(sides, &bad),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    impl HasIndex for usize {
        fn index(&self) -> usize {
            *self
        }
    }

    #[test]
    fn finds_the_first_moved_kernel_measuring_only_midpoints() {
        for n in 2..=17 {
            for first in 1..n {
                let mut measured = Vec::new();
                let (good, bad) = first_moved(
                    n - 1,
                    |i, m: &mut Vec<usize>| {
                        m.push(i);
                        Ok((i >= first).then_some(i))
                    },
                    &mut measured,
                )
                .unwrap();
                assert_eq!((good, bad), (first - 1, first), "n {n}, first {first}");
                let most = (n as f64 - 1.0).log2().ceil() as usize;
                assert!(measured.len() <= most, "n {n}: {measured:?}");
                assert!(measured.iter().all(|&i| i > 0 && i < n - 1), "{measured:?}");
            }
        }
    }
}
