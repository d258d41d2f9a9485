//! `lmbench compare OLD NEW`: first the machine facts that differ (what
//! may explain a change) and whether the machine itself changed (the
//! CPU-only metrics), then per metric the old and new figures, the change
//! with its 95% interval, the adjusted p-value, the smallest change the
//! data could detect, the statistic compared and a verdict. The method is
//! `lmbench::verdict`'s; this file parses the options and renders.

use anyhow::{bail, Result};
use regex::Regex;

use crate::columns::{lmbench_column_metrics, pinned_twins};
use crate::results::Run;
use crate::verdict::sittings::Sittings;
use crate::verdict::{self, Comparison, Level, Row, Verdict};
use crate::{store, table};

mod cells;
use cells::{pct, Cells};

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// The earlier run: `latest`, MACHINE/LABEL, a label or a directory.
    pub old: String,
    /// The later run, as OLD.
    pub new: String,
    /// The change that matters, percent: calls of a smaller change are
    /// "small", and "unchanged" means a change this large would have been
    /// seen and the interval lies within it.
    #[arg(long, default_value_t = 5.0, value_name = "PCT")]
    pub threshold: f64,
    /// Only metrics whose id matches this regular expression.
    #[arg(long)]
    pub filter: Option<String>,
    /// Exit with code 1 if a metric is called slower by more than PCT.
    #[arg(long, value_name = "PCT")]
    pub fail_on_regression: Option<f64>,
    /// Give no verdict on metrics measured while other work used at
    /// least PCT% of a CPU (either run).
    #[arg(long, value_name = "PCT", default_value_t = super::BUSY_PCT)]
    pub busy_threshold: f64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// An A/A pair of this machine (two sittings of one build, nothing
    /// changed between them), as OLD: how far each program's metrics moved
    /// between them beyond their runs' spread is added to every test, so
    /// a move of the host between sittings is not called a change. Repeat
    /// it for more pairs: their moves are estimated together.
    #[arg(long, num_args = 2, value_names = ["A", "B"], action = clap::ArgAction::Append)]
    pub aa: Option<Vec<String>>,
}

/// How `compare` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Markdown,
    Csv,
    Json,
}

/// The facts that differ: (key, old, new); absent facts show as "(absent)".
pub fn fact_diff(old: &Run, new: &Run) -> Vec<(String, String, String)> {
    let keys: std::collections::BTreeSet<&String> =
        old.machine.0.keys().chain(new.machine.0.keys()).collect();
    let show = |r: &Run, k: &str| {
        r.machine
            .get(k)
            .map_or("(absent)".to_string(), |v| v.replace('\n', "; "))
    };
    keys.into_iter()
        .filter(|k| old.machine.get(k) != new.machine.get(k))
        .map(|k| (k.clone(), show(old, k), show(new, k)))
        .collect()
}

/// The runs left out as slowed whole, when any were: how many on each
/// side, and the metrics that lost the most (a change that slows only
/// some runs shows as many left out on one side).
fn interfered_line(judged: &[&Row]) -> Option<String> {
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

/// The whole report as text.
pub fn render(old: &Run, new: &Run, c: &Comparison, busy_cpus: f64) -> String {
    let busy_pct = 100.0 * busy_cpus;
    let threshold = c.threshold_pct;
    let mut out = String::new();
    let name = |r: &Run| {
        let commit = r.meta.commit.as_deref().unwrap_or("unknown");
        let pooled = match r.meta.runs_pooled {
            0 | 1 => String::new(),
            n => format!(", {n} runs pooled"),
        };
        format!(
            "{}  {}, lmbench-rs {} ({}){pooled}",
            r.host(),
            r.meta.date,
            r.meta.suite_version,
            &commit[..commit.len().min(12)]
        )
    };
    out.push_str(&format!("OLD {}\nNEW {}\n\n", name(old), name(new)));
    let diff = fact_diff(old, new);
    if diff.is_empty() {
        out.push_str("machine facts: no difference\n\n");
    } else {
        out.push_str("machine facts that differ:\n");
        let w = diff.iter().map(|d| d.0.len()).max().unwrap_or(0);
        for (k, o, n) in &diff {
            out.push_str(&format!("  {k:<w$}  {o}\n  {:<w$}  -> {n}\n", ""));
        }
        out.push('\n');
    }
    let d = &c.drift;
    if d.machine_changed() {
        out.push_str(&format!(
            "the machine itself changed: {} of {} CPU-only metrics ({}) moved the same way \
             ({} called), by {} at the median. They do not depend on the kernel: the host, \
             the clock or a neighbour changed, and every verdict below includes that \
             change.\n\n",
            d.same_way,
            d.metrics,
            verdict::SENTINELS.join(", "),
            d.called,
            pct(d.median_pct)
        ));
    } else if d.metrics > 0 {
        out.push_str(&format!(
            "CPU-only metrics ({}): {} of {} called changed, median {}: the machine's \
             core ran alike.\n\n",
            verdict::SENTINELS.join(", "),
            d.called,
            d.metrics,
            pct(d.median_pct)
        ));
    }
    let m = &c.memory;
    if m.machine_changed() {
        out.push_str(&format!(
            "main memory changed: {} of {} main-memory metrics (buffers of 64M and more, \
             par_mem) moved the same way ({} called), by {} in time at the median. A \
             kernel's memory handling (THP, page sizes) moves them, and so does the host's \
             memory under an unchanged kernel: where the kernel's did not change, their \
             verdicts below include the host's change.\n\n",
            m.same_way,
            m.metrics,
            m.called,
            pct(m.median_pct)
        ));
    } else if m.metrics > 0 {
        out.push_str(&format!(
            "main-memory metrics (buffers of 64M and more, par_mem): {} of {} called \
             changed, median {} in time.\n\n",
            m.called,
            m.metrics,
            pct(m.median_pct)
        ));
    }
    if let Some(s) = &c.sittings {
        out.push_str(&sittings_line(s));
    }
    if let Some(k) = &c.clock {
        out.push_str(&format!(
            "core clock, probed beside every sample: {:.0} MHz old, {:.0} MHz new at the \
             median ({}). {} metrics the core's speed decides are compared per cycle \
             (stat \"/c\"), their old and new figures at the old run's clock.\n\n",
            k.mhz[0],
            k.mhz[1],
            pct(k.change_pct()),
            k.per_cycle
        ));
    }
    let idw = c.rows.iter().map(|r| r.id.len()).max().unwrap_or(6).max(6);
    let (judged, busy): (Vec<&Row>, Vec<&Row>) =
        c.rows.iter().partition(|r| r.verdict != Verdict::Busy);
    out.push_str(&format!(
        "{:<idw$} {:>5} {:>9} {:>9} {:>8} {:>17} {:>6} {:>8} {:>5} {:>7}  verdict\n",
        "metric", "unit", "old", "new", "change", "95% interval", "q", "detect", "runs", "stat"
    ));
    for r in &judged {
        out.push_str(&Cells::of(r).text(idw));
        out.push('\n');
    }
    let count = |v: Verdict| c.count(v);
    let called = count(Verdict::Slower) + count(Verdict::Faster) + count(Verdict::Small);
    out.push_str(&format!("\n{}\n", counts(c, busy.len())));
    let uncorrected = judged
        .iter()
        .filter(|r| r.test.as_ref().is_some_and(|t| t.p < verdict::ALPHA))
        .count();
    out.push_str(&format!(
        "The test: Student's t on the log of one statistic per run (\"stat\": minN the \
         expected fastest of N samples, med the median, mode the median inside the main \
         mode of a bimodal metric), each metric's run-to-run variance moderated by its \
         program's; {} tests, Benjamini-Hochberg at 5%: of the {called} calls, at most \
         {:.1} are expected to be chance (uncorrected, p < 0.05 would call {uncorrected}, \
         where chance alone calls about {:.0}). \"detect\": the change found with 80% power; \
         \"unchanged\": the interval within ±{threshold}%, and a change of {threshold}% would \
         have been seen.\n",
        c.tested,
        verdict::ALPHA * called as f64,
        verdict::ALPHA * c.tested as f64,
    ));
    let borrowed = judged.iter().filter(|r| r.level == Level::Borrowed).count();
    if borrowed > 0 {
        out.push_str(&format!(
            "1+1~: {borrowed} metrics have a single run a side; the interval shown borrows \
             their program's run-to-run spread (from its metrics with several runs), never \
             less than their samples show, but other metrics need not be like them: they are \
             not called until each side has a second run, as a single run beside several is \
             not.\n"
        ));
    }
    let samples_only = judged.iter().filter(|r| r.level == Level::Samples).count();
    if samples_only > 0 {
        out.push_str(&format!(
            "1+1*: {samples_only} metrics have a single run a side, tested on the samples of \
             those runs: run-to-run noise is unseen and calls overstate certainty; \
             `run --runs N` or `--budget` makes runs to test.\n"
        ));
    }
    let per_cycle = judged.iter().filter(|r| r.per_cycle).count();
    if per_cycle > 0 {
        out.push_str(&format!(
            "/c: {per_cycle} metrics compared per cycle of the core clock, on the median of \
             the samples run at one steady clock; see \"core clock\" above.\n"
        ));
    }
    if let Some(line) = noise_line(old, new, &judged) {
        out.push_str(&line);
    }
    let columns = lmbench_column_metrics(new);
    let behind: Vec<&&Row> = judged.iter().filter(|r| columns.contains(&r.id)).collect();
    if !behind.is_empty() {
        let resolved = behind.iter().filter(|r| r.detects(threshold)).count();
        let twins = settled_by_twins(&behind, &judged, &pinned_twins(new), threshold);
        let pct = |n: usize| 100.0 * n as f64 / behind.len() as f64;
        let with_twins = match twins.len() {
            0 => String::new(),
            n => format!(
                "; {} ({:.0}%) with the pinned twins of {n} unpinned figures (below)",
                resolved + n,
                pct(resolved + n)
            ),
        };
        out.push_str(&format!(
            "lmbench's own columns: {} metrics behind them here, {resolved} ({:.0}%) can \
             detect a {threshold}% change{with_twins}.\n",
            behind.len(),
            pct(resolved),
        ));
        out.push_str(&short_of_threshold(&behind, &twins, threshold));
        out.push_str(&twins_section(&twins));
    }
    // What the file system of either side says of its create figures.
    if judged.iter().any(|r| r.id.starts_with("lat_fs/create")) {
        let fs_notes = |run: &Run| (lmbench_support::catalog::tables::FS_VM.notes)(run);
        let mut notes = fs_notes(new);
        for n in fs_notes(old) {
            if !notes.contains(&n) {
                notes.push(n);
            }
        }
        for n in notes {
            out.push_str(&format!("{n}\n"));
        }
    }
    let bimodal: Vec<&&Row> = judged.iter().filter(|r| r.modes.is_some()).collect();
    if !bimodal.is_empty() {
        out.push_str("bimodal (compared inside the main mode; the share of the fast mode moves with placement):\n");
        for r in bimodal {
            let m = r.modes.as_ref().expect("filtered");
            let unit = |ns: f64| {
                lmbench_support::catalog::Metric::by_id(&r.id)
                    .and_then(|x| x.unit.from_ns_per_iter(ns, None))
                    .unwrap_or(ns)
            };
            out.push_str(&format!(
                "  {}: {} and {} {}; fast mode in {:.0}% of OLD's samples, {:.0}% of NEW's; main: the {} mode\n",
                r.id,
                table::fmt_num(unit(m.centres_ns[0]), 9).trim(),
                table::fmt_num(unit(m.centres_ns[1]), 9).trim(),
                r.unit,
                100.0 * m.fast_share[0],
                100.0 * m.fast_share[1],
                if m.main == 0 { "fast" } else { "slow" },
            ));
        }
    }
    if let Some(line) = interfered_line(&judged) {
        out.push_str(&line);
    }
    let only = |a: &Run, b: &Run| -> Vec<String> {
        a.metrics
            .keys()
            .filter(|k| !b.metrics.contains_key(*k))
            .cloned()
            .collect()
    };
    for (what, ids) in [("OLD", only(old, new)), ("NEW", only(new, old))] {
        if !ids.is_empty() {
            out.push_str(&format!("only in {what}: {}\n", ids.join(", ")));
        }
    }
    for (what, run) in [("OLD", old), ("NEW", new)] {
        if !run.metrics.values().any(|s| !s.activity.is_empty()) {
            out.push_str(&format!(
                "{what} has no record of what else the machine did (saved before \
                 lmbench-rs kept one): its figures cannot be checked for a busy machine.\n"
            ));
        }
    }
    if !busy.is_empty() {
        out.push_str(&format!(
            "\nmeasured on a busy machine (other work used at least {busy_pct}% of a CPU; \
             no verdict: measure again on an idle machine):\n"
        ));
        out.push_str(&format!(
            "{:<idw$} {:>5} {:>9} {:>9} {:>8}  what ran\n",
            "metric", "unit", "old", "new", "change"
        ));
        for r in busy {
            let what: Vec<String> = [("OLD", &r.busy[0]), ("NEW", &r.busy[1])]
                .into_iter()
                .filter_map(|(side, a)| Some(format!("{side}: {}", a.as_ref()?.describe())))
                .collect();
            out.push_str(&format!(
                "{}  {}\n",
                Cells::of(r).figures(idw),
                what.join("; ")
            ));
        }
    }
    out
}

/// What the A/A pair showed of the moves between sittings: the groups
/// that moved beyond their runs' spread, largest first.
fn sittings_line(s: &Sittings) -> String {
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
fn short_of_threshold(behind: &[&&Row], twins: &[(&Row, &Row)], threshold: f64) -> String {
    let mut by_program: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    let settled = |r: &Row| twins.iter().any(|(own, _)| own.id == r.id);
    let mut rows: Vec<(&Row, &verdict::Test)> = behind
        .iter()
        .filter(|r| !r.detects(threshold) && !settled(r))
        .filter_map(|r| Some((**r, r.test.as_ref()?)))
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

/// The rows behind lmbench's columns that cannot detect `threshold` on
/// their own while their pinned twin (`twins`: column metric -> twin) can:
/// (the column's row, the twin's row), in the column's order.
fn settled_by_twins<'a>(
    behind: &[&&'a Row],
    judged: &[&'a Row],
    twins: &std::collections::BTreeMap<String, String>,
    threshold: f64,
) -> Vec<(&'a Row, &'a Row)> {
    behind
        .iter()
        .filter(|r| !r.detects(threshold))
        .filter_map(|r| {
            let twin = twins.get(&r.id)?;
            let t = judged.iter().find(|t| &t.id == twin)?;
            t.detects(threshold).then_some((**r, *t))
        })
        .collect()
}

/// The unpinned figures answered by their pinned twins: each one's own
/// detectable change, then its twin's verdict, change and interval.
fn twins_section(twins: &[(&Row, &Row)]) -> String {
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
fn noise_line(old: &Run, new: &Run, rows: &[&Row]) -> Option<String> {
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

/// "N metrics: a slower, b faster, ...": the verdicts counted.
fn counts(c: &Comparison, busy: usize) -> String {
    let count = |v: Verdict| c.count(v);
    format!(
        "{} metrics: {} slower, {} faster, {} small (under {}%), {} unchanged, {} cannot tell{}{}.",
        c.rows.len(),
        count(Verdict::Slower),
        count(Verdict::Faster),
        count(Verdict::Small),
        c.threshold_pct,
        count(Verdict::Unchanged),
        count(Verdict::CannotTell),
        match count(Verdict::Untested) {
            0 => String::new(),
            n => format!(", {n} untested"),
        },
        match busy {
            0 => String::new(),
            n => format!(", {n} measured on a busy machine"),
        },
    )
}

/// The comparison as Markdown, for a report or an issue: the runs, the
/// facts that differ, whether the machine itself changed, a row per metric
/// with the text table's cells, and the counts. (The text report's notes on
/// the test and the noise stay in the text format.)
pub fn render_markdown(old: &Run, new: &Run, c: &Comparison) -> String {
    let cell = |s: &str| s.replace('|', "\\|");
    let mut out = format!("## `{}` → `{}`\n\n", old.host(), new.host());
    let diff = fact_diff(old, new);
    if diff.is_empty() {
        out.push_str("Machine facts: no difference.\n\n");
    } else {
        out.push_str("| machine fact | old | new |\n|---|---|---|\n");
        for (k, o, n) in &diff {
            out.push_str(&format!("| {} | {} | {} |\n", cell(k), cell(o), cell(n)));
        }
        out.push('\n');
    }
    for (changed, what) in [
        (c.drift.machine_changed(), "CPU-only metrics"),
        (c.memory.machine_changed(), "main-memory metrics"),
    ] {
        if changed {
            out.push_str(&format!(
                "**The machine itself changed**: the {what} moved together \
                 (see the text report).\n\n"
            ));
        }
    }
    let (judged, busy): (Vec<&Row>, Vec<&Row>) =
        c.rows.iter().partition(|r| r.verdict != Verdict::Busy);
    out.push_str(&format!("| {} |\n", cells::HEADERS.join(" | ")));
    out.push_str(&format!("|{}\n", "---|".repeat(cells::HEADERS.len())));
    for r in judged.iter().chain(&busy) {
        let cells = Cells::of(r);
        let row: Vec<String> = cells.all().iter().map(|s| cell(s)).collect();
        out.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    out.push_str(&format!("\n{}\n", counts(c, busy.len())));
    out
}

/// The comparison as CSV, a row per metric with raw figures (no units in
/// the numbers, an empty field where there is none): for a spreadsheet or
/// a script. The facts that differ and the notes are in the other formats.
pub fn render_csv(c: &Comparison) -> Result<String> {
    use crate::report::{csv_num, csv_text};
    let finite = |x: f64| Some(x).filter(|x| x.is_finite());
    let records = c.rows.iter().map(|r| {
        let (lo, hi) = r.change_interval_pct().unzip();
        let t = r.test.as_ref();
        vec![
            r.id.clone(),
            r.unit.to_string(),
            csv_num(finite(r.old)),
            csv_num(finite(r.new)),
            csv_num(finite(r.change_pct)),
            csv_num(lo.and_then(finite)),
            csv_num(hi.and_then(finite)),
            csv_num(t.map(|t| t.q).and_then(finite)),
            csv_num(t.map(|t| t.detect_pct).and_then(finite)),
            r.runs[0].to_string(),
            r.runs[1].to_string(),
            format!("{:?}", r.level).to_lowercase(),
            r.stat_label(),
            r.verdict.text().to_string(),
        ]
    });
    csv_text(
        "metric,unit,old,new,change_pct,interval_low_pct,interval_high_pct,q,detect_pct,\
         runs_old,runs_new,level,stat,verdict",
        records,
    )
}

/// The comparison as JSON: the runs, the facts that differ, the drift,
/// and every row.
pub fn render_json(old: &Run, new: &Run, c: &Comparison) -> Result<String> {
    let facts: Vec<serde_json::Value> = fact_diff(old, new)
        .into_iter()
        .map(|(k, o, n)| serde_json::json!({"fact": k, "old": o, "new": n}))
        .collect();
    let v = serde_json::json!({
        "old": old.host(),
        "new": new.host(),
        "facts_that_differ": facts,
        "threshold_pct": c.threshold_pct,
        "alpha": verdict::ALPHA,
        "tested": c.tested,
        "drift": c.drift,
        "clock": c.clock,
        "machine_changed": c.drift.machine_changed(),
        "memory_drift": c.memory,
        "memory_changed": c.memory.machine_changed(),
        "between_sittings": c.sittings,
        "rows": c.rows,
        // The metrics behind lmbench 3's own summary columns: the rows a
        // script keeps to ask lmbench's question alone.
        "lmbench_columns": lmbench_column_metrics(new),
        // For each of those with a pinned twin (the same switch, round
        // trip or stream with every end on one CPU), the twin's metric.
        "pinned_twins": pinned_twins(new),
    });
    Ok(serde_json::to_string_pretty(&v)? + "\n")
}

/// A comparison with an imported run: the summary columns both have, old
/// and new and the change, and "no samples" where a verdict would be (an
/// imported figure has no samples to test).
pub fn render_imported(old: &Run, new: &Run) -> Result<String> {
    use lmbench_support::catalog::TABLES;
    let mut rows = Vec::new();
    for t in TABLES {
        for i in 0..t.columns.len() {
            if let (Some(o), Some(n)) = (old.cell(t, i), new.cell(t, i)) {
                rows.push((format!("{}: {}", t.key, t.column_name(i)), o, n));
            }
        }
    }
    if rows.is_empty() {
        bail!(
            "{} and {} have no summary column in common",
            old.host(),
            new.host()
        );
    }
    let origin = |r: &Run| match &r.imported {
        Some(i) => format!("{}, imported from {}", i.format, i.source),
        None => format!("lmbench-rs {}, {}", r.meta.suite_version, r.meta.date),
    };
    let mut out = format!(
        "OLD {}  {}\nNEW {}  {}\n\n",
        old.host(),
        origin(old),
        new.host(),
        origin(new)
    );
    let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(6).max(6);
    out.push_str(&format!(
        "{:<w$} {:>9} {:>9} {:>8}  verdict\n",
        "column", "old", "new", "change"
    ));
    for (name, o, n) in &rows {
        let change = if *o != 0.0 { (n - o) / o * 100.0 } else { 0.0 };
        out.push_str(&format!(
            "{name:<w$} {:>9} {:>9} {:>+7.1}%  no samples\n",
            table::fmt_num(*o, 9),
            table::fmt_num(*n, 9),
            change
        ));
    }
    out.push_str(&format!(
        "\n{} summary columns; no verdicts: an imported run has figures, not samples.\n",
        rows.len()
    ));
    Ok(out)
}

/// `lmbench compare`.
pub fn run(opts: Args) -> Result<()> {
    let busy_cpus = opts.busy_threshold / 100.0;
    if !(opts.threshold.is_finite() && opts.threshold > 0.0) {
        bail!("--threshold must be a percentage > 0");
    }
    let filter = opts
        .filter
        .as_deref()
        .map(|f| crate::filter::metric_regex(f, "--filter"))
        .transpose()?;
    let old = store::resolve(&opts.old)?;
    let new = store::resolve(&opts.new)?;
    if old.imported.is_some() || new.imported.is_some() {
        print!("{}", render_imported(&old, &new)?);
        return Ok(());
    }
    if !(busy_cpus.is_finite() && busy_cpus > 0.0) {
        bail!("--busy-threshold must be a percentage of a CPU > 0");
    }
    let sittings = match opts.aa.as_deref() {
        Some(runs) if !runs.is_empty() => {
            let pairs: Vec<(&str, &str)> = runs
                .chunks_exact(2)
                .map(|p| (p[0].as_str(), p[1].as_str()))
                .collect();
            Some(sittings_of(&pairs, opts.threshold, busy_cpus)?)
        }
        _ => None,
    };
    let c = comparison(
        &old,
        &new,
        opts.threshold,
        busy_cpus,
        filter.as_ref(),
        sittings.as_ref(),
    );
    if c.rows.is_empty() {
        bail!(
            "{} and {} have no metric in common{} ({} and {} metrics)",
            opts.old,
            opts.new,
            if filter.is_some() {
                " matching --filter"
            } else {
                ""
            },
            old.metrics.len(),
            new.metrics.len()
        );
    }
    match opts.format {
        Format::Text => print!("{}", render(&old, &new, &c, busy_cpus)),
        Format::Markdown => print!("{}", render_markdown(&old, &new, &c)),
        Format::Csv => print!("{}", render_csv(&c)?),
        Format::Json => print!("{}", render_json(&old, &new, &c)?),
    }
    if let Some(limit) = opts.fail_on_regression {
        let bad = regressions(&c, limit);
        if !bad.is_empty() {
            eprintln!(
                "lmbench: {} regression(s) beyond {limit}%: {}",
                bad.len(),
                bad.join(", ")
            );
            std::process::exit(super::EXIT_REGRESSION);
        }
    }
    Ok(())
}

/// The comparison of two runs with the command line's options.
pub fn comparison(
    old: &Run,
    new: &Run,
    threshold: f64,
    busy_cpus: f64,
    filter: Option<&Regex>,
    sittings: Option<&Sittings>,
) -> Comparison {
    verdict::compare(
        old,
        new,
        &verdict::Options {
            threshold_pct: threshold,
            busy_cpus,
            filter,
            sittings,
        },
    )
}

/// The moves between sittings that the A/A pairs show, pooled.
pub fn sittings_of(pairs: &[(&str, &str)], threshold: f64, busy_cpus: f64) -> Result<Sittings> {
    let mut comparisons = Vec::new();
    let mut private_cache = None;
    for &(a, b) in pairs {
        let (ra, rb) = (store::resolve(a)?, store::resolve(b)?);
        if ra.imported.is_some() || rb.imported.is_some() {
            bail!("--aa {a} {b}: an A/A pair needs samples; an imported run has none");
        }
        let c = comparison(&ra, &rb, threshold, busy_cpus, None, None);
        if c.rows.is_empty() {
            bail!("--aa {a} {b}: the two runs have no metric in common");
        }
        private_cache = private_cache
            .or_else(|| l2_bytes(&ra))
            .or_else(|| l2_bytes(&rb));
        comparisons.push((c, [ra.host(), rb.host()]));
    }
    let pairs: Vec<(&Comparison, [String; 2])> =
        comparisons.iter().map(|(c, p)| (c, p.clone())).collect();
    Ok(Sittings::from_aa(&pairs, private_cache))
}

/// A core's L2 (bytes), from the run's machine facts.
fn l2_bytes(run: &Run) -> Option<u64> {
    run.machine
        .get("cache_l2")
        .and_then(|v| v.parse().ok())
        .filter(|&b| b > 0)
}

/// The metrics called slower by more than `limit` percent, as "id
/// (+x.y%)".
pub fn regressions(c: &Comparison, limit: f64) -> Vec<String> {
    c.rows
        .iter()
        .filter(|r| r.verdict.called() && r.time_change_pct > limit)
        .map(|r| format!("{} (+{:.1}%)", r.id, r.time_change_pct))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{MetricStats, Origin};
    use lmbench_support::catalog::{lat_pipe, lat_unix, Metric};
    use lmbench_support::machine::Facts;

    /// One run a level: ten samples each, a tenth of a percent apart.
    fn stats(levels: &[f64]) -> MetricStats {
        let runs: Vec<MetricStats> = levels
            .iter()
            .map(|&level| {
                let mut s = MetricStats::single(level);
                s.iters = (1..=10).map(|i| 100.0 * i as f64).collect();
                s.times_ns = (s.iters.iter().enumerate())
                    .map(|(j, n)| level * n * (1.0 + 0.001 * j as f64))
                    .collect();
                s
            })
            .collect();
        MetricStats::pool(&runs).expect("runs")
    }

    fn run(metrics: &[(&Metric, &[f64])]) -> Run {
        Run {
            machine: Facts::default(),
            metrics: (metrics.iter())
                .map(|(m, levels)| (m.id.to_string(), stats(levels)))
                .collect(),
            origin: Origin::Live,
            meta: crate::store::current_meta(8),
            imported: None,
        }
    }

    #[test]
    fn an_unpinned_round_trip_its_own_runs_cannot_settle_is_answered_by_its_pinned_twin() {
        // The unpinned figures spread 30% run to run (placement); the
        // pinned pipe repeats to a tenth of a percent, the pinned AF_UNIX
        // spreads as its unpinned figure does.
        let lottery: &[f64] = &[10e3, 14e3, 11.5e3, 13e3, 10.5e3, 12.5e3, 11e3, 13.5e3];
        let steady: &[f64] = &[5e3, 5.01e3, 4.99e3, 5.02e3, 5e3, 4.98e3, 5.01e3, 5e3];
        let side = run(&[
            (&lat_pipe::PIPE, lottery),
            (&lat_pipe::PINNED, steady),
            (&lat_unix::STREAM, lottery),
            (&lat_unix::PINNED, lottery),
        ]);
        let opts = verdict::Options {
            threshold_pct: 5.0,
            busy_cpus: lmbench_support::activity::BUSY_CPUS,
            filter: None,
            sittings: None,
        };
        let c = verdict::compare(&side, &side, &opts);
        let text = render(&side, &side, &c, opts.busy_cpus);
        assert!(
            text.contains(
                "2 metrics behind them here, 0 (0%) can detect a 5% change; 1 (50%) with \
                 the pinned twins of 1 unpinned figures (below)"
            ),
            "{text}"
        );
        let settled = text
            .lines()
            .find(|l| l.trim_start().starts_with("lat_pipe/pipe ±"))
            .unwrap_or_else(|| panic!("no twin line in {text}"));
        assert!(
            settled.contains(": lat_pipe/pinned unchanged +0.0% [") && settled.contains("detect ±"),
            "{settled}"
        );
        // AF_UNIX's twin cannot settle it either: it stays short, on its
        // own figure.
        assert!(text.contains("    lat_unix: stream ±"), "{text}");
        assert!(!text.contains("    lat_pipe: pipe ±"), "{text}");
        let json: serde_json::Value =
            serde_json::from_str(&render_json(&side, &side, &c).expect("json")).expect("parse");
        assert_eq!(json["pinned_twins"]["lat_pipe/pipe"], "lat_pipe/pinned");
    }
}
