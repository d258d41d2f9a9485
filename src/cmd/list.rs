//! `lmbench list`: every metric with its unit, the columns it feeds, and
//! what its timed region contains.

use lmbench_support::catalog::{Metric, PROGRAMS, TABLES};

fn columns_of(metric: &Metric) -> Vec<String> {
    let mut cols = Vec::new();
    for t in TABLES {
        for c in t.columns {
            if c.source.metrics().iter().any(|m| m.id == metric.id) {
                let h = format!("{} {}", c.header[0], c.header[1]);
                cols.push(format!("{}: {}", t.key, h.trim()));
            }
        }
    }
    cols
}

// `lmbench list` takes no arguments.
#[derive(clap::Args)]
pub struct Args {}

pub fn run(_: Args) -> anyhow::Result<()> {
    for p in PROGRAMS {
        println!("{}: {}", p.name, p.about);
        for m in p.metrics {
            let cols = columns_of(m);
            let feeds = if cols.is_empty() {
                "(no summary column)".to_string()
            } else {
                cols.join(", ")
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
    println!("mem_lat columns on this machine (stride 128, points inside each cache level):");
    for (i, p) in level_points(&here).iter().enumerate() {
        match p {
            Some((point, (level, src))) => println!(
                "  L{} $  lat_mem_rd/s128/{}  ({src} L{} = {})",
                i + 1,
                size::name(*point),
                i + 1,
                size::human(*level)
            ),
            None => println!(
                "  L{} $  chosen from the measured curve (the OS gives no size)",
                i + 1
            ),
        }
    }
    println!("  Main mem  lat_mem_rd/s128/1g    Rand mem  lat_mem_rd/thrash/1g");
    println!(
        "mem_rand (not in lmbench): lat_mem_rd/inpage/<middle of each level>, Main mem lat_mem_rd/inpage/1g, TLB/page walk lat_mem_rd/page/1g"
    );
    println!(
        "sysparams: tlb pages from tlb/pages/N vs tlb/lines/N, mem par from par_mem/chains/K, Mhz from mhz/add and mhz/xor"
    );
}
