//! One lmbench summary table as a report's model (`format::document`):
//! its title, Host (9) and OS (13) and then its columns, each with
//! lmbench's two header lines and width, and a row per run; and which
//! tables a set of runs has data for.

use lmbench_support::catalog::{Source, Table};

use crate::cells::Cell;
use crate::format::document::{self, Align, Column};
use crate::run::Run;

pub const HOST_W: usize = 9;
pub const OS_W: usize = 13;

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

/// One summary table's model for the given runs: `cells[i]` are run i's
/// cells, one per column. Host and OS open each row; a figure keeps as
/// many digits as its column's width holds (one fewer and a `*` if
/// measured on a busy machine); with `spread`, the text format shows a
/// line under each run with each figure's spread as a share of it.
pub fn model(table: &Table, runs: &[Run], cells: &[Vec<Cell>], spread: bool) -> document::Table {
    // Host widens to the longest run name (`machine/label`) so two runs of
    // one machine never truncate to the same cell.
    let host_w = runs
        .iter()
        .map(|r| r.host().chars().count())
        .fold(HOST_W, usize::max);
    let mut host = Column::new("Host", host_w, Align::Left);
    host.clip = true;
    let mut os = Column::new("OS", OS_W, Align::Left);
    os.clip = true;
    os.header_align = Some(Align::Right);
    let figures = table.columns.iter().enumerate().map(|(i, c)| Column {
        header: c.header.iter().map(|h| h.to_string()).collect(),
        // A top header may run on over the next column when that one's
        // top is empty ("0K File" spans Create and Delete, as in lmbench).
        header_align: Some(Align::Left),
        ..Column::new(&table.column_name(i), c.width, Align::Right)
    });
    let rows = runs
        .iter()
        .zip(cells)
        .map(|(run, row)| {
            [
                document::Cell::text(run.host()),
                document::Cell::text(run.machine.os_label()),
            ]
            .into_iter()
            .chain(row.iter().map(|c| document::Cell::Figure {
                value: c.value,
                busy: c.busy.is_some(),
                spread: c.spread,
            }))
            .collect()
        })
        .collect();
    document::Table {
        title: Some(table.title.to_string()),
        columns: [host, os].into_iter().chain(figures).collect(),
        rows,
        header_rule: true,
        spread_label: spread.then(|| "  ± spread".to_string()),
        ..document::Table::default()
    }
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
