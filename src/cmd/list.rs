//! `lmbench list`: every metric with its unit, the columns it feeds, and
//! what its timed region contains.

use std::collections::HashMap;

use lmbench_support::catalog::{Metric, PROGRAMS, TABLES};

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

// `lmbench list` takes no arguments.
#[derive(clap::Args)]
pub struct Args {}

pub fn run(_: Args) -> anyhow::Result<()> {
    let cols = columns_by_metric();
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

/// The memory-latency table's columns read sweep points chosen from this
/// machine's cache sizes: name them.
fn mem_lat_points() {
    use lmbench_support::catalog::lat_mem_rd::{point, RAND_FN, TABLE_FN};
    use lmbench_support::catalog::tables::level_points;
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
