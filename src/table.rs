//! lmbench-style table layout: a title, a rule, two header lines, a dashed
//! rule per column, then one row per run. Host (9) and OS (13) open every
//! row; each figure is formatted to its column's width the way lmbench's
//! report does (`export::text::figure`: as many digits as fit).

use lmbench_support::catalog::{Source, Table};

use crate::cells::{fmt_spread, Cell};
use crate::export::text::{figure, push_line, rule};
use crate::run::Run;

pub const HOST_W: usize = 9;
pub const OS_W: usize = 13;

fn cut(s: &str, w: usize) -> String {
    s.chars().take(w).collect()
}

/// True if any run has a figure for any column of the table: a figure it
/// measured (or imported), not only a machine fact such as the OS's clock
/// or CPU count, so a run of a few programs prints only their tables. An
/// imported figure kept beside the table (no column of ours) counts too,
/// so the table is printed with it underneath.
pub fn has_data(table: &Table, runs: &[Run]) -> bool {
    let beside = format!("{}/", table.key);
    runs.iter().any(|r| {
        let imported_beside = r
            .imported
            .as_ref()
            .is_some_and(|imp| imp.extra.keys().any(|k| k.starts_with(&beside)));
        imported_beside
            || table
                .columns
                .iter()
                .enumerate()
                .any(|(i, c)| match r.imported {
                    Some(_) => !matches!(c.source, Source::Fact(_)) && r.cell(table, i).is_some(),
                    None => c.source.measured(r),
                })
    })
}

/// Renders one table for the given runs: `cells[i]` are run i's cells,
/// one per column. A figure measured on a busy machine ends in `*` (one
/// digit fewer); with `spread`, a line under each run gives each figure's
/// spread as a share of it.
pub fn render(table: &Table, runs: &[Run], cells: &[Vec<Cell>], spread: bool) -> String {
    // Host widens to the longest run name (`machine/label`) so two runs of
    // one machine never truncate to the same cell.
    let host_w = runs
        .iter()
        .map(|r| r.host().chars().count())
        .fold(HOST_W, usize::max);
    let mut out = String::new();
    let mut line = |s: String| push_line(&mut out, &s);
    let width: usize = host_w + 1 + OS_W + table.columns.iter().map(|c| c.width + 1).sum::<usize>();
    line(table.title.to_string());
    line("-".repeat(width.max(table.title.len())));
    // Headers are placed at their column's start; a top header may run on
    // over the next column when that one's top is empty ("0K File" spans
    // Create and Delete, as in lmbench).
    for row in 0..2 {
        let mut s = if row == 0 {
            format!("{:<host_w$} {:>OS_W$}", "Host", "OS")
        } else {
            " ".repeat(host_w + 1 + OS_W)
        };
        for c in table.columns {
            let start = s.len() + 1;
            s.push(' ');
            s.push_str(&" ".repeat(c.width));
            if s.len() < start + c.header[row].len() {
                s.push_str(&" ".repeat(start + c.header[row].len() - s.len()));
            }
            if !c.header[row].is_empty() {
                s.replace_range(start..start + c.header[row].len(), c.header[row]);
            }
        }
        line(s);
    }
    let widths: Vec<usize> = [host_w, OS_W]
        .into_iter()
        .chain(table.columns.iter().map(|c| c.width))
        .collect();
    line(rule(&widths));
    for (run, row) in runs.iter().zip(cells) {
        let mut s = format!(
            "{:<host_w$} {:<OS_W$}",
            cut(&run.host(), host_w),
            cut(&run.machine.os_label(), OS_W)
        );
        for (c, cell) in table.columns.iter().zip(row) {
            let text = figure(cell.value, cell.busy.is_some(), c.width);
            s.push(' ');
            s.push_str(&format!("{text:>w$}", w = c.width));
        }
        line(s);
        if spread {
            let mut s = format!("{:<host_w$} {:<OS_W$}", "", "  ± spread");
            for (c, cell) in table.columns.iter().zip(row) {
                let text = match (cell.value, cell.spread) {
                    (Some(v), Some(h)) => fmt_spread(h, v, c.width),
                    _ => "-".to_string(),
                };
                s.push(' ');
                s.push_str(&format!("{text:>w$}", w = c.width));
            }
            line(s);
        }
    }
    out
}

/// The banner lmbench prints above its tables.
pub fn banner() -> String {
    let title = "L M B E N C H  S U M M A R Y  (lmbench-rs)";
    format!(
        "{:>w$}\n{:>w$}\n",
        title,
        "-".repeat(title.len()),
        w = title.len() + 17
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{MetricStats, Origin};
    use lmbench_support::catalog::lat_pipe;
    use lmbench_support::catalog::tables::TABLES;
    use lmbench_support::machine::Facts;

    /// A run of lat_pipe alone on a machine whose facts give the clock,
    /// the cache line and the CPU count.
    fn pipe_only() -> Run {
        let mut machine = Facts::default();
        for (k, v) in [
            ("host", "h"),
            ("cpu_mhz", "2596"),
            ("cache_line", "64"),
            ("ncpu", "2"),
        ] {
            machine.set(k, Some(v.into()));
        }
        Run {
            machine,
            metrics: [(lat_pipe::PIPE.id.to_string(), MetricStats::single(5000.0))].into(),
            origin: Origin::Live,
            meta: crate::store::current_meta(1),
            imported: None,
        }
    }

    #[test]
    fn machine_facts_alone_do_not_make_a_table() {
        let run = [pipe_only()];
        let shown: Vec<&str> = TABLES
            .iter()
            .filter(|t| has_data(t, &run))
            .map(|t| t.key)
            .collect();
        assert_eq!(shown, ["comm_lat"]);
    }
}
