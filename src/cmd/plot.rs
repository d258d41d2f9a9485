//! `lmbench plot`: the memory-latency curves lmbench warns about ("check
//! graphs") but never draws. x: working-set size (log2), y: ns per load
//! (log), one line per chain shape (stride 16..1024, random) and per run;
//! the OS's cache sizes are marked. Writes an SVG (plotters, pure Rust) and
//! prints its path; `--text` draws the same in the terminal instead.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Result};
use lmbench_support::analysis::{cache_levels::mem_notes, mem_curve::latencies_by_size};
use lmbench_support::atomic_file::write_atomic;
use lmbench_support::catalog::lat_mem_rd::{self, SHAPES};
use lmbench_support::size::human as human_size;
use plotters::prelude::*;

use crate::run::Run;

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// Saved runs to draw (default: the latest run).
    pub runs: Vec<lmbench::flags::RunSpec>,
    /// Draw in the terminal instead of writing an SVG.
    #[arg(long, conflicts_with = "out")]
    pub text: bool,
    /// Where to write the SVG (default: target/lmbench/lat_mem_rd.svg).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// The OS's cache levels of a run, for the boundary marks.
fn cache_marks(run: &Run) -> Vec<(String, u64)> {
    [("L1d", "l1d"), ("L2", "l2"), ("L3", "l3")]
        .iter()
        .filter_map(|(name, key)| {
            let b = run.machine.cache_bytes(key)?;
            Some((format!("{name} {}", human_size(b)), b))
        })
        .collect()
}

/// One drawn line: label, shape index (colour/symbol) and (log2 bytes, ns).
struct Series {
    label: String,
    shape: usize,
    run: usize,
    points: Vec<(f64, f64)>,
}

fn series(runs: &[Run]) -> Vec<Series> {
    let mut out = Vec::new();
    for (ri, run) in runs.iter().enumerate() {
        for (si, (function, stride)) in SHAPES.iter().enumerate() {
            let points: Vec<(f64, f64)> = latencies_by_size(run, function)
                .into_iter()
                .map(|(b, ns)| ((b as f64).log2(), ns))
                .collect();
            if points.is_empty() {
                continue;
            }
            let what = match *function {
                lat_mem_rd::RAND_FN => "random, every line (lmbench's)".to_string(),
                lat_mem_rd::PAGE_FN => "random, 1/page (TLB)".to_string(),
                lat_mem_rd::INPAGE_FN => "random lines in page".to_string(),
                _ => format!("stride {stride}"),
            };
            let label = if runs.len() > 1 {
                format!("run {} ({}): {what}", ri + 1, run.host())
            } else {
                what
            };
            out.push(Series {
                label,
                shape: si,
                run: ri,
                points,
            });
        }
    }
    out
}

const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(255, 127, 14),
    RGBColor(127, 127, 127),
    RGBColor(23, 190, 207),
];

fn bounds(all: &[Series]) -> (f64, f64, f64, f64) {
    let pts = all.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    (x0, x1, (y0 * 0.8).max(1e-3), y1 * 1.25)
}

/// Renders the SVG document.
pub fn svg(runs: &[Run]) -> Result<String> {
    let all = series(runs);
    if all.is_empty() {
        bail!("no lat_mem_rd results in the run(s): run `lmbench run lat_mem_rd` first");
    }
    let (x0, x1, y0, y1) = bounds(&all);
    let title = format!(
        "lat_mem_rd: memory read latency, {} ({})",
        runs[0].host(),
        runs[0].machine.get("cpu_model").unwrap_or("-")
    );
    let mut doc = String::new();
    {
        let root = SVGBackend::with_string(&mut doc, (1100, 650)).into_drawing_area();
        let e = |e| anyhow!("drawing the plot: {e:?}");
        root.fill(&WHITE).map_err(e)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&title, ("sans-serif", 20))
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1 + 0.3, (y0..y1).log_scale())
            .map_err(e)?;
        let xfmt = |x: &f64| human_size(2f64.powf(x.round()) as u64);
        let yfmt = |y: &f64| match *y {
            y if y >= 10.0 => format!("{y:.0}"),
            y if y >= 1.0 => format!("{y:.1}"),
            y => format!("{y:.2}"),
        };
        chart
            .configure_mesh()
            .x_desc("working set (bytes, log2 scale)")
            .y_desc("ns per load, minimum (log scale)")
            .x_labels((x1 - x0) as usize + 1)
            .x_label_formatter(&xfmt)
            .y_label_formatter(&yfmt)
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(e)?;
        let grey = RGBColor(120, 120, 120);
        for (label, bytes) in cache_marks(&runs[0]) {
            let x = (bytes as f64).log2();
            if x < x0 || x > x1 + 0.3 {
                continue;
            }
            chart
                .draw_series(DashedLineSeries::new(
                    [(x, y0), (x, y1)],
                    6,
                    4,
                    grey.stroke_width(1),
                ))
                .map_err(e)?;
            chart
                .draw_series(std::iter::once(Text::new(
                    format!("OS {label}"),
                    (x + 0.05, y1 / 1.15),
                    ("sans-serif", 14).into_font().color(&grey),
                )))
                .map_err(e)?;
        }
        for s in &all {
            let color = COLORS[s.shape % COLORS.len()];
            let style = color.stroke_width(if s.run == 0 { 2 } else { 1 });
            chart
                .draw_series(LineSeries::new(s.points.iter().copied(), style))
                .map_err(e)?
                .label(&s.label)
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], style));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(e)?;
        root.present().map_err(e)?;
    }
    Ok(doc)
}

const SYMBOLS: [char; 8] = ['.', 'o', '*', '+', 'x', 'R', 'P', 'r'];

/// Renders the curves of one run as a character chart.
pub fn text(run: &Run, width: usize, height: usize) -> Result<String> {
    let all = series(std::slice::from_ref(run));
    if all.is_empty() {
        bail!("no lat_mem_rd results in the run: run `lmbench run lat_mem_rd` first");
    }
    let (x0, x1, y0, y1) = bounds(&all);
    let (ly0, ly1) = (y0.ln(), y1.ln());
    let col = |x: f64| (((x - x0) / (x1 - x0)) * (width - 1) as f64).round() as usize;
    let row = |y: f64| {
        let f = (y.ln() - ly0) / (ly1 - ly0);
        (height - 1) - ((f * (height - 1) as f64).round() as usize).min(height - 1)
    };
    let mut grid = vec![vec![' '; width]; height];
    let marks = cache_marks(run);
    for (_, bytes) in &marks {
        let x = (*bytes as f64).log2();
        if (x0..=x1).contains(&x) {
            let c = col(x);
            for r in grid.iter_mut() {
                r[c] = ':';
            }
        }
    }
    for s in &all {
        for &(x, y) in &s.points {
            grid[row(y)][col(x)] = SYMBOLS[s.shape];
        }
    }
    let mut out = format!(
        "lat_mem_rd on {}: ns per load (log scale) by working set (log2 scale)\n",
        run.host()
    );
    for (r, line) in grid.iter().enumerate() {
        // y label on the first, middle and last rows.
        let label = if r == 0 || r == height - 1 || r == height / 2 {
            let f = 1.0 - r as f64 / (height - 1) as f64;
            format!("{:>8.2}", (ly0 + f * (ly1 - ly0)).exp())
        } else {
            String::new()
        };
        out.push_str(&format!(
            "{label:>8} |{}\n",
            line.iter().collect::<String>()
        ));
    }
    out.push_str(&format!("{:>8} +{}\n", "ns", "-".repeat(width)));
    // Size labels every 4 doublings.
    let mut axis = vec![' '; width + 12];
    let mut x = x0.ceil();
    while x <= x1 {
        let lbl = human_size(2f64.powf(x) as u64);
        let c = col(x) + 10;
        for (i, ch) in lbl.chars().enumerate() {
            if c + i < axis.len() {
                axis[c + i] = ch;
            }
        }
        x += 4.0;
    }
    out.push_str(axis.iter().collect::<String>().trim_end());
    out.push('\n');
    let legend: Vec<String> = all
        .iter()
        .map(|s| format!("{} {}", SYMBOLS[s.shape], s.label))
        .collect();
    out.push_str(&format!("  {}\n", legend.join("   ")));
    if !marks.is_empty() {
        let m: Vec<String> = marks.iter().map(|(l, _)| l.clone()).collect();
        out.push_str(&format!("  : OS cache sizes ({})\n", m.join(", ")));
    }
    Ok(out)
}

/// The default SVG path: `<target>/lmbench/lat_mem_rd.svg`.
fn default_out() -> PathBuf {
    crate::workspace::target_dir()
        .join("lmbench")
        .join("lat_mem_rd.svg")
}

/// Plots `runs` (the live run when the caller has no saved ones).
pub fn plot(runs: &[Run], opts: &Args) -> Result<()> {
    if runs.is_empty() {
        bail!("nothing to plot: no runs");
    }
    if opts.text {
        for run in runs {
            print!("{}", text(run, 72, 22)?);
            for n in mem_notes(run) {
                println!("  {n}");
            }
        }
        return Ok(());
    }
    let doc = svg(runs)?;
    let path = opts.out.clone().unwrap_or_else(default_out);
    write_atomic(&path, doc.as_bytes())?;
    println!("wrote {}", path.display());
    for n in mem_notes(&runs[0]) {
        println!("  {n}");
    }
    Ok(())
}

/// RUNs as `summary` takes them (`latest`, machine/label, a directory);
/// none means the latest results.
pub fn run(opts: Args) -> Result<()> {
    let runs = if opts.runs.is_empty() {
        vec![crate::store::live()?]
    } else {
        crate::store::resolve_all(&opts.runs)?
    };
    plot(&runs, &opts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::MetricStats;
    use lmbench_support::catalog::lat_mem_rd;
    use lmbench_support::machine::Facts;

    fn fake_run() -> Run {
        let mut machine = Facts::default();
        machine.set("host", Some("h".into()));
        machine.set("cache_l1d", Some((48 << 10).to_string()));
        machine.set("cache_l2", Some((2 << 20).to_string()));
        let mut metrics = std::collections::BTreeMap::new();
        for (f, _) in SHAPES {
            for (size, m) in lat_mem_rd::metrics_by_size(f) {
                let ns = if size <= 48 << 10 {
                    1.5
                } else if size <= 2 << 20 {
                    5.0
                } else {
                    80.0
                };
                metrics.insert(m.id.to_string(), MetricStats::single(ns));
            }
        }
        Run {
            machine,
            metrics,
            origin: crate::run::Origin::Live,
            meta: crate::store::current_meta(1),
            imported: None,
        }
    }

    #[test]
    fn svg_has_every_curve_and_the_cache_marks() {
        let doc = svg(&[fake_run()]).unwrap();
        assert!(doc.starts_with("<svg"));
        for label in [
            "stride 16",
            "stride 1024",
            "random, 1/page",
            "OS L1d 48K",
            "OS L2 2M",
        ] {
            assert!(doc.contains(label), "missing {label}");
        }
    }

    #[test]
    fn text_plot_marks_levels_and_legend() {
        let t = text(&fake_run(), 60, 12).unwrap();
        assert!(t.contains(": OS cache sizes (L1d 48K, L2 2M)"));
        assert!(t.contains("* stride 128"));
        assert_eq!(t.lines().filter(|l| l.contains('|')).count(), 12);
    }

    #[test]
    fn empty_runs_are_an_error() {
        let run = Run {
            machine: Facts::default(),
            metrics: Default::default(),
            origin: crate::run::Origin::Live,
            meta: crate::store::current_meta(1),
            imported: None,
        };
        assert!(svg(std::slice::from_ref(&run)).is_err());
        assert!(text(&run, 60, 12).is_err());
    }
}
