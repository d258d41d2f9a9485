//! `compare`'s text blocks: the runs, the machine facts that differ,
//! whether the machine itself changed, a row per metric, the counts, and
//! the notes on the test and the noise (`notes`).

use crate::format::document::{Align, Block, Cell, Column, Shown, Table};
use crate::format::fmt_num;
use crate::run::Run;
use crate::verdict::{self, Comparison, Drift, Level, Row, Verdict};

use super::notes::{interfered_line, noise_line, short_of_threshold, sittings_line, twins_section};
use super::row_cells::{pct, Cells, HEADERS};

/// A text-only table of `rows`: the first `shown` of the row's cells
/// (metric `idw` wide), and `last` after two blanks.
fn rows_table(idw: usize, shown: usize, last: (&str, Vec<String>), rows: &[&Row]) -> Block {
    let widths = [idw, 5, 9, 9, 8, 17, 6, 8, 5, 7];
    let mut columns: Vec<Column> = HEADERS[..shown]
        .iter()
        .zip(widths)
        .map(|(h, w)| Column::new(h, w, Align::Right))
        .collect();
    columns[0].align = Align::Left;
    columns.push(Column {
        gap: 2,
        ..Column::new(last.0, 0, Align::Left)
    });
    let rows = rows
        .iter()
        .zip(last.1)
        .map(|(r, last)| {
            let cells = Cells::of(r);
            (cells.all()[..shown].iter().map(|c| Cell::text(*c)))
                .chain([Cell::text(last)])
                .collect()
        })
        .collect();
    Block::Table(
        Shown::Text,
        Table {
            columns,
            rows,
            ..Table::default()
        },
    )
}

/// What the text format shows. `diff`: the facts that differ.
pub fn blocks(
    old: &Run,
    new: &Run,
    c: &Comparison,
    busy_cpus: f64,
    diff: &[(String, String, String)],
) -> Vec<Block> {
    let busy_pct = 100.0 * busy_cpus;
    let _threshold = c.threshold_pct;
    let mut blocks = Vec::new();
    let mut out = preamble(old, new, c, diff);
    let idw = c.rows.iter().map(|r| r.id.len()).max().unwrap_or(6).max(6);
    let (judged, busy): (Vec<&Row>, Vec<&Row>) =
        c.rows.iter().partition(|r| r.verdict != Verdict::Busy);
    blocks.push(Block::Prose(Shown::Text, std::mem::take(&mut out)));
    let verdicts = judged.iter().map(|r| Cells::of(r).all()[10].to_string());
    blocks.push(rows_table(
        idw,
        10,
        ("verdict", verdicts.collect()),
        &judged,
    ));
    out.push_str(&test_notes(old, new, c, &judged, busy.len()));
    out.push_str(&column_notes(c));
    out.push_str(&closing_notes(old, new, &judged));
    if !busy.is_empty() {
        out.push_str(&format!(
            "\nmeasured on a busy machine (other work used at least {busy_pct}% of a CPU; \
             no verdict: measure again on an idle machine):\n"
        ));
        let what_ran = busy.iter().map(|r| {
            let what: Vec<String> = [("OLD", &r.busy[0]), ("NEW", &r.busy[1])]
                .into_iter()
                .filter_map(|(side, a)| Some(format!("{side}: {}", a.as_ref()?.describe())))
                .collect();
            what.join("; ")
        });
        blocks.push(Block::Prose(Shown::Text, std::mem::take(&mut out)));
        blocks.push(rows_table(idw, 5, ("what ran", what_ran.collect()), &busy));
    }
    blocks.push(Block::Prose(Shown::Text, out));
    blocks
}

/// The runs, the machine facts that differ, whether the machine itself
/// (its core, main memory, the shared cache) changed, the moves between
/// sittings and the core's clock: what the rows below are read against.
fn preamble(old: &Run, new: &Run, c: &Comparison, diff: &[(String, String, String)]) -> String {
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
    if diff.is_empty() {
        out.push_str("machine facts: no difference\n\n");
    } else {
        out.push_str("machine facts that differ:\n");
        let w = diff.iter().map(|d| d.0.len()).max().unwrap_or(0);
        for (k, o, n) in diff {
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
    out.push_str(&group_drift(
        &c.memory,
        ["main memory", "main-memory"],
        "buffers of 64M and more, par_mem",
        "A kernel's memory handling (THP, page sizes) moves them, and so does the host's \
         memory under an unchanged kernel: where the kernel's did not change, their \
         verdicts below include the host's change.",
    ));
    let past = c
        .private_cache
        .map(|b| format!("past the core's {} L2 ", lmbench_support::size::human(b)))
        .unwrap_or_default();
    out.push_str(&group_drift(
        &c.shared,
        ["shared cache", "shared-cache"],
        &format!("buffers {past}and under 64M"),
        "A guest shares its last-level cache with the host's other guests: where the \
         kernel did not change, their verdicts below include the neighbours' change.",
    ));
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
    out
}

/// Under the rows: the counts, then how the rows were tested (paired,
/// the test and its false discoveries, single runs, per cycle) and where
/// the noise lies.
fn test_notes(old: &Run, new: &Run, c: &Comparison, judged: &[&Row], busy: usize) -> String {
    let threshold = c.threshold_pct;
    let mut out = String::new();
    let count = |v: Verdict| c.count(v);
    let called = count(Verdict::Slower) + count(Verdict::Faster) + count(Verdict::Small);
    out.push_str(&format!("\n{}\n", counts(c, busy)));
    let uncorrected = judged
        .iter()
        .filter(|r| r.test.as_ref().is_some_and(|t| t.p < verdict::ALPHA))
        .count();
    // Two sides of one interleaved sitting: their runs are pairs.
    let paired: Vec<&&Row> = judged.iter().filter(|r| r.paired).collect();
    if !paired.is_empty() {
        let pairs = paired.iter().map(|r| r.runs[0]).max().unwrap_or(0);
        out.push_str(&format!(
            "Paired: {} of {} metrics were tested on the differences of their rounds \
             (round i of old beside round i of new, the two sides taking turns in one \
             sitting; up to {pairs} pairs, t with pairs - 1 degrees of freedom), which \
             cancels what moved between rounds; the rest as two samples.\n",
            paired.len(),
            judged.len()
        ));
    }
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
    if let Some(line) = noise_line(old, new, judged) {
        out.push_str(&line);
    }
    out
}

/// How many metrics behind lmbench's own columns can detect the
/// threshold (with their pinned twins' help, as the comparison settles
/// them), and which cannot.
fn column_notes(c: &Comparison) -> String {
    let threshold = c.threshold_pct;
    let share = c.column_share();
    let mut out = String::new();
    if !share.behind.is_empty() {
        let pct = |n: usize| 100.0 * n as f64 / share.behind.len() as f64;
        let with_twins = match share.by_twins.len() {
            0 => String::new(),
            n => format!(
                "; {} ({:.0}%) with the pinned twins of {n} unpinned figures (below)",
                share.answered(),
                pct(share.answered())
            ),
        };
        out.push_str(&format!(
            "lmbench's own columns: {} metrics behind them here, {} ({:.0}%) can \
             detect a {threshold}% change{with_twins}.\n",
            share.behind.len(),
            share.resolved,
            pct(share.resolved),
        ));
        out.push_str(&short_of_threshold(
            &share.behind,
            &share.by_twins,
            threshold,
        ));
        out.push_str(&twins_section(&share.by_twins));
    }
    out
}

/// The file system's notes on its create figures, the bimodal metrics,
/// the runs left out as slowed whole, the metrics only one side has and
/// a side without a record of what else ran.
fn closing_notes(old: &Run, new: &Run, judged: &[&Row]) -> String {
    let mut out = String::new();
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
            let m = r
                .modes
                .as_ref()
                .expect("bimodal holds only rows with modes");
            let unit = |ns: f64| {
                lmbench_support::catalog::Metric::by_id(&r.id)
                    .and_then(|x| x.unit.from_ns_per_iter(ns, None))
                    .unwrap_or(ns)
            };
            out.push_str(&format!(
                "  {}: {} and {} {}; fast mode in {:.0}% of OLD's samples, {:.0}% of NEW's; main: the {} mode\n",
                r.id,
                fmt_num(unit(m.centres_ns[0]), 9).trim(),
                fmt_num(unit(m.centres_ns[1]), 9).trim(),
                r.unit,
                100.0 * m.fast_share[0],
                100.0 * m.fast_share[1],
                if m.main == 0 { "fast" } else { "slow" },
            ));
        }
    }
    if let Some(line) = interfered_line(judged) {
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
    out
}

/// "N metrics: a slower, b faster, ...": the verdicts counted.
pub(super) fn counts(c: &Comparison, busy: usize) -> String {
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

/// How a group of metrics the machine decides moved (main memory, the
/// shared cache): named `[group, adjective]`, its members described, and
/// why a joint move matters; empty when the comparison has none of them.
fn group_drift(d: &Drift, [group, adjective]: [&str; 2], members: &str, why: &str) -> String {
    if d.machine_changed() {
        format!(
            "{group} changed: {} of {} {adjective} metrics ({members}) moved the same way \
             ({} called), by {} in time at the median. {why}\n\n",
            d.same_way,
            d.metrics,
            d.called,
            pct(d.median_pct)
        )
    } else if d.metrics > 0 {
        format!(
            "{adjective} metrics ({members}): {} of {} called changed, median {} in time.\n\n",
            d.called,
            d.metrics,
            pct(d.median_pct)
        )
    } else {
        String::new()
    }
}
