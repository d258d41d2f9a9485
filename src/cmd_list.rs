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

pub fn run() -> anyhow::Result<()> {
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
    Ok(())
}
