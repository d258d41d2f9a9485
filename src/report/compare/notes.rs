//! The notes under `compare`'s text table: what the A/A pairs, lmbench's
//! own columns, their pinned twins, the noise split and the runs left out
//! as slowed whole say of the comparison.

use std::collections::BTreeMap;

use crate::run::Run;
use crate::verdict::sittings::Sittings;
use crate::verdict::{self, Row};

/// The runs left out as slowed whole, when any were: how many on each
/// side, and the metrics that lost the most (a change that slows only
/// some runs shows as many left out on one side).
pub(super) fn interfered_line(judged: &[&Row]) -> Option<String> {
    let mut hit: Vec<&&Row> = judged
        .iter()
        .filter(|r| r.interfered_runs.iter().sum::<usize>() > 0)
        .collect();
    if hit.is_empty() {
        return None;
    }
    let side = |k: usize| hit.iter().map(|r| r.interfered_runs[k]).sum::<usize>();
    let (old, new) = (side(0), side(1));
    hit.sort_by_key(|r| std::cmp::Reverse(r.interfered_runs[0].max(r.interfered_runs[1])));
    let most: Vec<String> = hit
        .iter()
        .take(5)
        .map(|r| format!("{} {}+{}", r.id, r.interfered_runs[0], r.interfered_runs[1]))
        .collect();
    Some(format!(
        "slowed whole: {} runs of {} metrics left out of their tests (OLD {old}, NEW {new}), \
         each slower than its side's median run by over {} robust SDs of the runs and {:.0}% \
         while the machine looked idle (steal, a neighbour); most: {}\n",
        old + new,
        hit.len(),
        verdict::estimate::INTERFERED_SDS,
        100.0 * verdict::estimate::INTERFERED_FLOOR,
        most.join(", ")
    ))
}

/// What the A/A pair showed of the moves between sittings: the groups
/// that moved beyond their runs' spread, largest first.
pub(super) fn sittings_line(s: &Sittings) -> String {
    let mut moved: Vec<(&String, f64)> = s
        .groups
        .iter()
        .map(|(g, m)| (g, m.pct()))
        .filter(|(_, pct)| *pct >= 0.5)
        .collect();
    moved.sort_by(|a, b| b.1.total_cmp(&a.1));
    let list = if moved.is_empty() {
        "no group moved beyond its runs' spread".to_string()
    } else {
        moved
            .iter()
            .map(|(g, pct)| format!("{g} ±{pct:.1}%"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let pairs = s
        .pairs
        .iter()
        .map(|[a, b]| format!("{a} and {b}"))
        .collect::<Vec<_>>()
        .join(", ");
    let what = if s.pairs.len() == 1 { "pair" } else { "pairs" };
    format!(
        "between sittings, from the A/A {what} {pairs}: {list}. Each test counts its \
         group's move (more runs of one sitting do not shrink it).\n\n"
    )
}

/// The metrics behind lmbench's own columns that cannot detect the
/// threshold, by program: each one's detectable change and the runs a side
/// that would settle it, so a reader sees which columns this machine
/// leaves short of the threshold in one sitting and what more runs would buy.
pub(super) fn short_of_threshold(
    behind: &[&Row],
    twins: &[(&Row, &Row)],
    threshold: f64,
) -> String {
    let mut by_program: BTreeMap<&str, Vec<String>> = Default::default();
    let settled = |r: &Row| twins.iter().any(|(own, _)| own.id == r.id);
    let mut rows: Vec<(&Row, &verdict::Test)> = behind
        .iter()
        .filter(|r| !r.detects(threshold) && !settled(r))
        .filter_map(|r| Some((*r, r.test.as_ref()?)))
        .collect();
    rows.sort_by(|a, b| a.1.detect_pct.total_cmp(&b.1.detect_pct));
    for (r, t) in rows {
        let (program, rest) = r.id.split_once('/').unwrap_or((&r.id, ""));
        let runs = match t.runs_needed {
            Some(k) => k.to_string(),
            None => "-".to_string(),
        };
        by_program
            .entry(program)
            .or_default()
            .push(format!("{rest} ±{:.1}% ({runs})", t.detect_pct));
    }
    if by_program.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "  not at {threshold}% (detectable change, and in brackets the runs a side that \
         would settle it; -: more than 1000):\n"
    );
    for (program, items) in by_program {
        out.push_str(&format!("    {program}: {}\n", items.join(", ")));
    }
    out
}

/// The unpinned figures answered by their pinned twins: each one's own
/// detectable change, then its twin's verdict, change and interval.
pub(super) fn twins_section(twins: &[(&Row, &Row)]) -> String {
    if twins.is_empty() {
        return String::new();
    }
    let mut out = "  settled by their pinned twins (every end on one CPU: the same kernel path \
                   without the unpinned figure's placement lottery):\n"
        .to_string();
    for (own, twin) in twins {
        let own_detect = own.test.as_ref().map_or(f64::NAN, |t| t.detect_pct);
        let twin_detect = twin.test.as_ref().map_or(f64::NAN, |t| t.detect_pct);
        let interval = twin
            .change_interval_pct()
            .map_or(String::new(), |(lo, hi)| format!(" [{lo:+.1}, {hi:+.1}]"));
        out.push_str(&format!(
            "    {} ±{own_detect:.1}%: {} {} {:+.1}%{interval}, detect ±{twin_detect:.1}%\n",
            own.id,
            twin.id,
            twin.verdict.text(),
            twin.change_pct,
        ));
    }
    out
}

/// Where the noise of the compared metrics lies (between runs or within),
/// from the sides that pool several runs.
pub(super) fn noise_line(old: &Run, new: &Run, rows: &[&Row]) -> Option<String> {
    let shares: Vec<f64> = rows
        .iter()
        .flat_map(|r| [old.metrics.get(&r.id), new.metrics.get(&r.id)])
        .flatten()
        .filter_map(verdict::noise::split)
        .map(|n| n.between_share)
        .collect();
    if shares.is_empty() {
        return None;
    }
    let most = shares.iter().filter(|s| **s > 0.5).count();
    let median = crate::stats::median(&shares);
    Some(format!(
        "Where the noise is: between runs holds {:.0}% of the variance of a run's mean \
         for the median metric, over half of it for {:.0}% of them{}.\n",
        100.0 * median,
        100.0 * most as f64 / shares.len() as f64,
        if median > 0.5 {
            ": more runs, not more samples a run, narrow the intervals"
        } else {
            ""
        }
    ))
}
