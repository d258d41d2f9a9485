//! `lmbench summary --floors`: every metric that has a floor
//! (`catalog::floor_pairs::FLOORS`) beside it, one row per metric and run:
//! the metric's figure, its floor's (a bare loop of the same operation in
//! a small single-threaded process: the `floor` program) and the ratio
//! figure / floor. A ratio near 1 says the figure is the operating
//! system's; the excess above 1 is the suite's share. `-` marks a side a
//! run lacks (and then the ratio). Same formats and busy marks as the
//! other summary tables.
//!
//! A second ratio, "Best", divides the fastest sample of each side: on a
//! shared host (a 2-vCPU AMD EPYC guest whose core's other hyperthread
//! belongs to another tenant) a bare C getppid loop read 166 ns in its
//! fastest 0.17 s chunk, 172 in its median one and 182 at the 90th
//! percentile, so medians of a metric and its floor taken seconds apart
//! differ by up to ±20% with no change of code; contention only ever
//! slows a sample, so the fastest samples compare the code itself (on
//! this host within 5% where the medians swung 0.76-1.40).

use anyhow::{bail, Result};
use lmbench_support::activity::Activity;
use lmbench_support::catalog::floor_pairs::{Floor, FLOORS};
use lmbench_support::catalog::{Lookup, Metric};
use serde_json::json;

use super::summary::runs_data;
use super::summary::Options;
use crate::format::document::{Align, Block, Cell, Column, Records, Report, Shown, Table};
use crate::format::{busy_note, legend};
use crate::run::Run;
use crate::table::{HOST_W, OS_W};

pub const TITLE: &str =
    "Floors - each metric beside a bare loop of its operation (ratio = figure / floor)";

/// One side of a row: the figure and, if measured on a busy machine,
/// the busiest window.
struct Side {
    value: Option<f64>,
    /// The fastest sample, in the metric's unit.
    fastest: Option<f64>,
    busy: Option<Activity>,
}

fn side(run: &Run, m: &Metric, busy_cpus: f64) -> Side {
    let stats = run.metrics.get(m.id);
    Side {
        value: run.value(m),
        fastest: stats.and_then(|s| {
            m.unit
                .from_ns_per_iter(s.min_ns, s.bytes_per_iter.map(|b| b as f64))
        }),
        busy: run
            .metrics
            .get(m.id)
            .and_then(|s| s.busy_window(busy_cpus))
            .cloned(),
    }
}

/// A row: one floor pair for one run.
struct Row<'a> {
    floor: &'static Floor,
    run: &'a Run,
    figure: Side,
    bare: Side,
}

impl Row<'_> {
    fn ratio(&self) -> Option<f64> {
        quotient(self.figure.value, self.bare.value)
    }
    /// The ratio of the two sides' fastest samples.
    fn best(&self) -> Option<f64> {
        quotient(self.figure.fastest, self.bare.fastest)
    }
    fn busy(&self) -> bool {
        self.figure.busy.is_some() || self.bare.busy.is_some()
    }
}

fn quotient(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// Floor-major rows (a metric's runs together), for the floors that any
/// run has either side of.
fn rows<'a>(runs: &'a [Run], opts: &Options) -> Result<Vec<Row<'a>>> {
    let mut out = Vec::new();
    for floor in FLOORS {
        let rows: Vec<Row> = runs
            .iter()
            .map(|run| Row {
                floor,
                run,
                figure: side(run, floor.metric, opts.busy_cpus),
                bare: side(run, floor.floor, opts.busy_cpus),
            })
            .collect();
        if rows
            .iter()
            .any(|r| r.figure.value.is_some() || r.bare.value.is_some())
        {
            out.extend(rows);
        }
    }
    if out.is_empty() {
        bail!(
            "none of the runs has a metric that has a floor, nor a floor (run: lmbench run floor)"
        );
    }
    Ok(out)
}

/// The model of the floors in any of summary's formats.
pub fn report(runs: &[Run], opts: &Options) -> Result<Report> {
    let rows = rows(runs, opts)?;
    Ok(Report {
        blocks: blocks(runs, &rows, opts),
        records: records(&rows),
        data: data(runs, &rows, opts),
    })
}

const NUM_W: usize = 8;
const RATIO_W: usize = 5;

/// A side's figure, busy-marked.
fn fig(s: &Side) -> Cell {
    Cell::figure(s.value, s.busy.is_some())
}

fn two_places(q: Option<f64>) -> String {
    q.map_or("-".into(), |q| format!("{q:.2}"))
}

/// One line per run with busy figures: which metrics, and what ran in
/// the busiest of their windows.
fn busy_notes(rows: &[Row]) -> Vec<String> {
    let mut hosts: Vec<String> = rows.iter().map(|r| r.run.host()).collect();
    hosts.sort();
    hosts.dedup();
    hosts
        .iter()
        .filter_map(|host| {
            let busy: Vec<(&str, &Activity)> = rows
                .iter()
                .filter(|r| &r.run.host() == host)
                .flat_map(|r| [(&r.figure, r.floor.metric), (&r.bare, r.floor.floor)])
                .filter(|(s, _)| s.value.is_some())
                .filter_map(|(s, m)| Some((m.id, s.busy.as_ref()?)))
                .collect();
            busy_note(host, &busy)
        })
        .collect()
}

/// What `*` means, if any figure is busy.
fn busy_legend(any_busy: bool, opts: &Options) -> String {
    legend(any_busy, opts.busy_cpus, None)
}

/// The table, then (text) its busy notes and what "Best" is, or
/// (Markdown) what "Best" is and the busy notes; the legend.
fn blocks(runs: &[Run], rows: &[Row], opts: &Options) -> Vec<Block> {
    let notes = busy_notes(rows);
    let legend = busy_legend(!notes.is_empty(), opts);
    vec![
        Block::Heading(3, TITLE.to_string()),
        Block::Table(Shown::Both, table(runs, rows)),
        Block::Prose(Shown::Markdown, format!("\n{BEST_NOTE}\n\n")),
        Block::BusyNotes(notes),
        Block::Prose(Shown::Text, format!("\n{BEST_NOTE}\n")),
        Block::Legend(legend),
    ]
}

fn table(runs: &[Run], rows: &[Row]) -> Table {
    let host_w = runs
        .iter()
        .map(|r| r.host().chars().count())
        .fold(HOST_W, usize::max);
    let id_w = FLOORS
        .iter()
        .map(|f| f.metric.id.len())
        .fold("Metric".len(), usize::max);
    let clipped = |name, width| Column {
        clip: true,
        ..Column::new(name, width, Align::Left)
    };
    let columns = vec![
        clipped("Host", host_w),
        clipped("OS", OS_W),
        Column::new("Metric", id_w, Align::Left),
        Column::new("Unit", 4, Align::Left),
        Column::new("Figure", NUM_W, Align::Right),
        Column::new("Floor", NUM_W, Align::Right),
        Column::new("Ratio", RATIO_W, Align::Right),
        Column::new("Best", RATIO_W, Align::Right),
    ];
    let rows = rows
        .iter()
        .map(|r| {
            vec![
                Cell::text(r.run.host()),
                Cell::text(r.run.machine.os_label()),
                Cell::text(r.floor.metric.id),
                Cell::text(r.floor.metric.unit.label()),
                fig(&r.figure),
                fig(&r.bare),
                Cell::text(two_places(r.ratio())),
                Cell::text(two_places(r.best())),
            ]
        })
        .collect();
    Table {
        title: Some(TITLE.to_string()),
        // One dash short of the table, as this report has always printed.
        title_rule: Some(host_w + OS_W + id_w + 4 + 2 * NUM_W + 2 * RATIO_W + 6),
        columns,
        rows,
        header_rule: true,
        spread_label: None,
    }
}

/// Under the text and Markdown tables: what "Best" is.
const BEST_NOTE: &str = "Best = fastest sample / fastest floor sample: other work (a co-tenant\n\
                         on a VM's core) only slows samples, so on a shared host this ratio\n\
                         shows the suite's share with the least noise.";

/// One line per row; `busy` is true if either side was measured on a
/// busy machine; a figure or ratio the run lacks is an empty field.
fn records(rows: &[Row]) -> Records {
    Records {
        header: vec![
            "metric",
            "floor",
            "unit",
            "run",
            "machine",
            "label",
            "os",
            "figure",
            "floor_figure",
            "ratio",
            "best_ratio",
            "busy",
        ],
        rows: rows
            .iter()
            .map(|r| {
                vec![
                    r.floor.metric.id.into(),
                    r.floor.floor.id.into(),
                    r.floor.metric.unit.label().into(),
                    r.run.host().into(),
                    r.run.machine_name().into(),
                    r.run.label().unwrap_or("").into(),
                    r.run.machine.os_label().into(),
                    r.figure.value.into(),
                    r.bare.value.into(),
                    r.ratio().into(),
                    r.best().into(),
                    r.busy().into(),
                ]
            })
            .collect(),
    }
}

/// As summary's JSON: the runs, then per floor pair arrays with one entry
/// per run (null where missing).
fn data(runs: &[Run], rows: &[Row], opts: &Options) -> serde_json::Value {
    let floors: Vec<_> = rows
        .chunks(runs.len().max(1))
        .map(|pair| {
            let f = pair[0].floor;
            json!({
                "metric": f.metric.id,
                "floor": f.floor.id,
                "unit": f.metric.unit.label(),
                "figure": pair.iter().map(|r| r.figure.value).collect::<Vec<_>>(),
                "floor_figure": pair.iter().map(|r| r.bare.value).collect::<Vec<_>>(),
                "ratio": pair.iter().map(Row::ratio).collect::<Vec<_>>(),
                "best_ratio": pair.iter().map(Row::best).collect::<Vec<_>>(),
                "busy": pair.iter().map(Row::busy).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "runs": runs_data(runs, opts.busy_cpus),
        "floors": floors,
        "busy_threshold_cpus": opts.busy_cpus,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;
    use crate::run::{Meta, MetricStats, Origin};
    use lmbench_support::catalog::{floor, lat_proc, lat_syscall};
    use lmbench_support::machine::Facts;

    fn run(label: &str, figures: &[(&Metric, f64)]) -> Run {
        let mut machine = Facts::default();
        machine.set("os", Some("Linux".into()));
        machine.set("os_release", Some("6.1".into()));
        Run {
            machine,
            metrics: figures
                .iter()
                .map(|(m, ns)| (m.id.to_string(), MetricStats::single(*ns)))
                .collect(),
            origin: Origin::Saved {
                machine: "vm".into(),
                label: label.into(),
                dir: "/nonexistent".into(),
            },
            meta: Meta {
                suite_version: "0".into(),
                commit: None,
                criterion_version: None,
                date: "2026-01-01T00:00:00Z".into(),
                runs_pooled: 1,
                failed: Default::default(),
            },
            imported: None,
        }
    }

    /// Two runs: `a` has null with its floor (their fastest samples equal,
    /// their medians 5% apart), a fork without one, and an exec floor
    /// without its metric; `b` only null's figure.
    fn fixture() -> Vec<Run> {
        let mut a = run(
            "a",
            &[
                (&lat_syscall::NULL, 84.0),
                (&floor::NULL, 80.0),
                (&lat_proc::FORK, 158_420.0),
                (&floor::EXEC, 637_000.0),
            ],
        );
        for id in [lat_syscall::NULL.id, floor::NULL.id] {
            a.metrics.get_mut(id).unwrap().min_ns = 70.0;
        }
        vec![a, run("b", &[(&lat_syscall::NULL, 100.0)])]
    }

    fn render_as(runs: &[Run], opts: &Options) -> Result<String> {
        crate::format::render(&report(runs, opts)?, opts.format)
    }

    fn render(format: Format) -> String {
        let opts = Options {
            format,
            ..Options::default()
        };
        render_as(&fixture(), &opts).unwrap()
    }

    #[test]
    fn text_shows_figure_floor_ratio_and_dashes() {
        assert_eq!(
            render(Format::Text),
            "\
Floors - each metric beside a bare loop of its operation (ratio = figure / floor)
---------------------------------------------------------------------------------
Host      OS            Metric                Unit   Figure    Floor Ratio  Best
--------- ------------- --------------------- ---- -------- -------- ----- -----
vm/a      Linux 6.1     lat_syscall/null      us     0.0840   0.0800  1.05  1.00
vm/b      Linux 6.1     lat_syscall/null      us     0.1000        -     -     -
vm/a      Linux 6.1     lat_proc/fork         us      158.4        -     -     -
vm/b      Linux 6.1     lat_proc/fork         us          -        -     -     -
vm/a      Linux 6.1     lat_proc/exec         us          -      637     -     -
vm/b      Linux 6.1     lat_proc/exec         us          -        -     -     -

Best = fastest sample / fastest floor sample: other work (a co-tenant
on a VM's core) only slows samples, so on a shared host this ratio
shows the suite's share with the least noise.
"
        );
    }

    #[test]
    fn markdown_csv_and_json_carry_the_same_rows() {
        let md = render(Format::Markdown);
        assert!(md.starts_with(&format!("### {TITLE}\n\n| Host | OS | Metric |")));
        assert!(md.contains(
            "| vm/a | Linux 6.1 | lat_syscall/null | us | 0.0840 | 0.0800 | 1.05 | 1.00 |\n"
        ));
        assert!(md.contains("| vm/b | Linux 6.1 | lat_proc/exec | us | - | - | - | - |\n"));

        let csv = render(Format::Csv);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines[0],
            "metric,floor,unit,run,machine,label,os,figure,floor_figure,ratio,best_ratio,busy"
        );
        assert_eq!(
            lines[1],
            "lat_syscall/null,floor/null,us,vm/a,vm,a,Linux 6.1,0.084,0.08,1.05,1,false"
        );
        assert_eq!(
            lines[2],
            "lat_syscall/null,floor/null,us,vm/b,vm,b,Linux 6.1,0.1,,,,false"
        );
        assert_eq!(lines.len(), 7);

        let json: serde_json::Value = serde_json::from_str(&render(Format::Json)).unwrap();
        let floors = json["floors"].as_array().unwrap();
        assert_eq!(floors.len(), 3);
        assert_eq!(floors[0]["metric"], "lat_syscall/null");
        assert_eq!(floors[0]["floor"], "floor/null");
        assert_eq!(floors[0]["figure"], json!([0.084, 0.1]));
        assert_eq!(floors[0]["floor_figure"], json!([0.08, null]));
        assert_eq!(floors[2]["ratio"], json!([null, null]));
        assert_eq!(floors[0]["best_ratio"], json!([1.0, null]));
        assert_eq!(json["runs"].as_array().unwrap().len(), 2);
    }

    /// A window of `wall_s` seconds in which `name` used `cpu_s`.
    fn window(name: &str, cpu_s: f64) -> Activity {
        Activity {
            wall_s: 1.0,
            cpus: 2,
            others_cpu_s: Some(cpu_s),
            top: vec![lmbench_support::activity::Proc {
                name: name.into(),
                cpu_s,
            }],
            ..Activity::default()
        }
    }

    #[test]
    fn the_busy_note_names_the_busiest_window_not_the_first() {
        let mut runs = fixture();
        // In row order, null's figure (lightly busy) comes before its floor
        // (busier).
        let a = &mut runs[0].metrics;
        a.get_mut(lat_syscall::NULL.id).unwrap().activity = vec![window("cron", 0.1)];
        a.get_mut(floor::NULL.id).unwrap().activity = vec![window("stress", 0.8)];
        let text = render_as(&runs, &Options::default()).unwrap();
        assert!(
            text.contains(
                "  * vm/a: measured on a busy machine (lat_syscall/null, floor/null): \
                 other work 0.80 CPU (stress 0.80), over 1.0 s\n"
            ),
            "{text}"
        );
        assert!(
            text.contains(" us    0.0840*  0.0800*  1.05  1.00\n"),
            "{text}"
        );
        assert!(text.ends_with("not comparable.\n"), "{text}");
    }

    #[test]
    fn no_floor_data_is_an_error() {
        let runs = vec![run("c", &[(&lat_proc::SHELL, 500.0)])];
        let e = render_as(&runs, &Options::default()).unwrap_err();
        assert!(e.to_string().contains("lmbench run floor"), "{e}");
    }
}
