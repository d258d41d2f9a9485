//! `lmbench list [METRIC]`: every metric with its unit, the columns it
//! feeds, and what its timed region contains; or the metrics matching
//! METRIC, each described whole.

use std::collections::HashMap;

use lmbench_support::catalog::floor_pairs::{floor_of, floored_by};
use lmbench_support::catalog::{Headline, Metric, Program, PROGRAMS, TABLES};

/// Every column each metric feeds ("table: column"), by metric id: every
/// input a column lists, the points a computed one may pick included.
fn columns_by_metric() -> HashMap<&'static str, Vec<String>> {
    let mut cols: HashMap<&str, Vec<String>> = HashMap::new();
    for t in TABLES {
        for (i, c) in t.columns.iter().enumerate() {
            let name = format!("{}: {}", t.key, t.column_name(i));
            for m in c.source.metrics() {
                cols.entry(m.id).or_default().push(name.clone());
            }
        }
    }
    cols
}

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// Only the metrics whose id matches this regular expression, each
    /// with its program, unit, columns, timed region and floor (`lmbench
    /// list '^lat_proc/fork$'`).
    pub metric: Option<lmbench::flags::MetricFilter>,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let cols = columns_by_metric();
    if let Some(pattern) = args.metric {
        return describe_matching(&pattern, &cols);
    }
    for p in PROGRAMS {
        println!("{}: {}", p.name, p.about);
        for m in p.metrics {
            let feeds = match cols.get(m.id) {
                Some(c) => c.join(", "),
                None => "(no summary column)".to_string(),
            };
            println!("  {:<32} {:<5} {}", m.id, m.unit.label(), feeds);
            println!("  {:<32}       timed: {}", "", m.timed);
        }
    }
    mem_lat_points();
    Ok(())
}

/// `lmbench list PATTERN`: each matching metric, a paragraph each.
fn describe_matching(
    re: &lmbench::flags::MetricFilter,
    cols: &HashMap<&str, Vec<String>>,
) -> anyhow::Result<()> {
    let mut found = 0;
    for p in PROGRAMS {
        for m in p.metrics.iter().filter(|m| re.is_match(m.id)) {
            if found > 0 {
                println!();
            }
            found += 1;
            describe(p, m, cols);
        }
    }
    if found == 0 {
        anyhow::bail!(
            "no metric matches {:?}: `lmbench list` prints them all",
            re.as_str()
        );
    }
    Ok(())
}

/// One metric: what it measures and how, and where its figure goes.
fn describe(program: &Program, m: &Metric, cols: &HashMap<&str, Vec<String>>) {
    println!("{}", m.id);
    println!("  program   {}: {}", program.name, program.about);
    println!("  unit      {}", m.unit.label());
    println!(
        "  figure    {} of the run's samples",
        match m.headline {
            Headline::Median => "the median",
            Headline::Min => "the minimum",
        }
    );
    match cols.get(m.id) {
        Some(c) => println!("  columns   {}", c.join(", ")),
        None => println!("  columns   none (no summary column reads it)"),
    }
    println!("  timed     {}", m.timed);
    match floor_of(m) {
        Some(f) => println!(
            "  floor     {} (a bare loop of the same operation, measured beside it)",
            f.id
        ),
        None => {
            let of: Vec<&str> = floored_by(m).map(|x| x.id).collect();
            if of.is_empty() {
                println!("  floor     none");
            } else {
                println!("  floor of  {}", of.join(", "));
            }
        }
    }
}

/// The memory-latency table's columns read sweep points chosen from this
/// machine's cache sizes: name them.
fn mem_lat_points() {
    use lmbench_support::analysis::cache_levels::level_points;
    use lmbench_support::catalog::lat_mem_rd::{point, RAND_FN, TABLE_FN};
    use lmbench_support::catalog::Lookup;
    use lmbench_support::size;
    struct Here(lmbench_support::machine::Facts);
    impl Lookup for Here {
        fn value(&self, _: &Metric) -> Option<f64> {
            None
        }
        fn fact(&self, key: &str) -> Option<String> {
            self.0.get(key).map(str::to_string)
        }
    }
    let here = Here(lmbench_support::machine::Facts::collect());
    let id = |function, size| point(function, size).map_or("-", |m| m.id);
    println!("mem_lat columns on this machine (stride 128, points inside each cache level):");
    for (i, p) in level_points(&here).iter().enumerate() {
        match p {
            Some((at, (level, src))) => println!(
                "  L{} $  {}  ({src} L{} = {})",
                i + 1,
                id(TABLE_FN, *at),
                i + 1,
                size::human(*level)
            ),
            None => println!(
                "  L{} $  chosen from the measured curve (the OS gives no size)",
                i + 1
            ),
        }
    }
    let (top, capped, _) = lmbench_support::chase::machine_top_size();
    println!(
        "  Main mem  {}    Rand mem  {}    (this machine's top size{})",
        id(TABLE_FN, top),
        id(RAND_FN, top),
        if capped {
            ", capped under 4x the last-level cache"
        } else {
            ""
        }
    );
}
