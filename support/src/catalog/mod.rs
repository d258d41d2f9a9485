//! THE registry of lmbench-rs: every metric (id, unit, what its timed region
//! contains) and every summary table (title, columns, which metrics feed each
//! column). Benches take their ids from here and the CLI reads its tables from
//! here, so renaming a metric is a compile error, never an empty column.
//!
//! Layout: one module per lmbench program (`lat_syscall`, ...) holding that
//! program's [`Metric`]s and its [`Program`], and one module per summary
//! table (`tables::processes`, ...) holding its [`Table`].
//!
//! Adding a metric to a program touches these files and no others:
//! 1. `support/src/catalog/<program>.rs`: one `pub static` [`Metric`] (id
//!    `<program>/<function>[/<parameter>]`, unit, one sentence on what one
//!    timed iteration contains), and its line in that module's
//!    `PROGRAM.metrics`;
//! 2. `benches/<program>.rs`: the bench that measures it, through
//!    `Group::bench(&cat::THE_METRIC, ...)`;
//! 3. only if the summary shows it: one [`Column`] in
//!    `support/src/catalog/tables/<table>.rs` that reads it, after the
//!    columns lmbench's own tables have (the importer of lmbench's results
//!    files, `src/import/results.rs`, still places figures in
//!    those by position; `tests/import_formats.rs` fails if they shift).
//!
//! `tests/catalog_matches_benches.rs` fails while 1 or 2 is missing (a
//! metric without a bench, or a bench without a metric); `lmbench list`,
//! `lmbench run`, `summary`, `save` and `compare` need nothing more.
//! A new program is more: its module here (`pub mod` and [`PROGRAMS`]),
//! its bench file ending in `lmbench_support::bench_main!(...)`, and its
//! `[[bench]]` in the root Cargo.toml.

pub mod bw_file_rd;
pub mod bw_mem;
pub mod bw_mmap_rd;
pub mod bw_pipe;
pub mod bw_tcp;
pub mod bw_unix;
pub mod floor;
pub mod lat_clock;
pub mod lat_connect;
pub mod lat_ctx;
pub mod lat_fs;
pub mod lat_mem_rd;
pub mod lat_mmap;
pub mod lat_ops;
pub mod lat_pagefault;
pub mod lat_pipe;
pub mod lat_poll;
pub mod lat_proc;
pub mod lat_rpc;
pub mod lat_select;
pub mod lat_sig;
pub mod lat_spawn;
pub mod lat_syscall;
pub mod lat_tcp;
pub mod lat_udp;
pub mod lat_unix;
pub mod lat_uring;
pub mod lat_vm;
pub mod lat_wake;
pub mod line;
pub mod mhz;
pub mod par_mem;
pub mod scaling;
pub mod tlb;

pub mod floor_pairs;
mod table;
pub mod tables;

pub use table::{no_notes, Column, Inputs, Lookup, Source, Table};

use std::fmt;

/// The unit a metric is reported in, as lmbench reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Microseconds per operation (most latencies).
    Micros,
    /// Nanoseconds per operation (memory latencies, basic operations).
    Nanos,
    /// Bandwidth in MB/s, MB = 10^6 bytes.
    MBps,
    /// A clock rate in MHz.
    Mhz,
    /// A plain count or ratio (tlb pages, cache line bytes, mem par).
    Count,
}

impl Unit {
    /// Short unit label for listings and headers.
    pub fn label(self) -> &'static str {
        match self {
            Unit::Micros => "us",
            Unit::Nanos => "ns",
            Unit::MBps => "MB/s",
            Unit::Mhz => "MHz",
            Unit::Count => "count",
        }
    }

    /// Converts Criterion's nanoseconds per iteration into this unit.
    /// `bytes_per_iter` is needed for bandwidths only.
    pub fn from_ns_per_iter(self, ns: f64, bytes_per_iter: Option<f64>) -> Option<f64> {
        match self {
            Unit::Micros => Some(ns / 1e3),
            Unit::Nanos => Some(ns),
            // bytes per ns is GB/s (10^9); times 1000 is MB/s (10^6).
            Unit::MBps => bytes_per_iter.filter(|_| ns > 0.0).map(|b| b / ns * 1e3),
            // A metric whose "iteration" is itself the figure (e.g. a count
            // computed by the bench): reported as is.
            Unit::Mhz | Unit::Count => Some(ns),
        }
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Which statistic of the samples is the headline figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Headline {
    /// lmbench's default: the median of the intervals.
    Median,
    /// lmbench's exceptions (memory latency, par_ops): the minimum.
    Min,
}

/// One measured quantity: a Criterion benchmark `group/function[/parameter]`.
#[derive(Debug, PartialEq)]
pub struct Metric {
    /// Criterion id: segments of `[a-z0-9_]+`, joined by `/`.
    pub id: &'static str,
    pub unit: Unit,
    pub headline: Headline,
    /// One sentence: what a single timed iteration contains.
    pub timed: &'static str,
}

impl Metric {
    /// A latency metric reported as the median, the common case.
    pub const fn median(id: &'static str, unit: Unit, timed: &'static str) -> Metric {
        Metric {
            id,
            unit,
            headline: Headline::Median,
            timed,
        }
    }

    /// The lmbench program (Criterion group) this metric belongs to.
    pub fn program(&self) -> &'static str {
        self.id.split('/').next().unwrap_or(self.id)
    }

    /// The id without its group: Criterion's function id, and the parameter
    /// if there is one.
    pub fn function_and_parameter(&self) -> (&'static str, Option<&'static str>) {
        let mut parts = self.id.splitn(3, '/');
        let _group = parts.next();
        let function = parts.next().unwrap_or("");
        (function, parts.next())
    }

    /// Looks a metric up by its id.
    pub fn by_id(id: &str) -> Option<&'static Metric> {
        all_metrics().find(|m| m.id == id)
    }
}

/// An lmbench program: one bench file, one Criterion group.
#[derive(Debug)]
pub struct Program {
    pub name: &'static str,
    /// What the program measures, for `lmbench list`.
    pub about: &'static str,
    pub metrics: &'static [&'static Metric],
}

impl Program {
    /// The metrics of one function word (a sweep: every size of one mode).
    pub fn function<'a>(&self, function: &'a str) -> impl Iterator<Item = &'static Metric> + 'a {
        let metrics: &'static [&'static Metric] = self.metrics;
        metrics
            .iter()
            .copied()
            .filter(move |m| m.function_and_parameter().0 == function)
    }
}

/// Every program of the suite, in the order `lmbench run` runs them.
pub static PROGRAMS: &[&Program] = &[
    &lat_syscall::PROGRAM,
    &lat_sig::PROGRAM,
    &lat_proc::PROGRAM,
    &lat_select::PROGRAM,
    &lat_ctx::PROGRAM,
    &lat_pipe::PROGRAM,
    &lat_unix::PROGRAM,
    // A run measures each floor right after its metric (src/cmd/run/
    // plan.rs); here runs only a floor a FILTER names without its metric.
    &floor::PROGRAM,
    &lat_udp::PROGRAM,
    &lat_tcp::PROGRAM,
    &lat_rpc::PROGRAM,
    &lat_connect::PROGRAM,
    &lat_fs::PROGRAM,
    &lat_mmap::PROGRAM,
    &lat_pagefault::PROGRAM,
    &bw_pipe::PROGRAM,
    &bw_unix::PROGRAM,
    &bw_tcp::PROGRAM,
    &bw_file_rd::PROGRAM,
    &bw_mmap_rd::PROGRAM,
    &bw_mem::PROGRAM,
    &mhz::PROGRAM,
    &lat_ops::PROGRAM,
    &lat_mem_rd::PROGRAM,
    &tlb::PROGRAM,
    &par_mem::PROGRAM,
    &line::PROGRAM,
    &lat_clock::PROGRAM,
    &lat_poll::PROGRAM,
    &lat_vm::PROGRAM,
    &lat_wake::PROGRAM,
    &lat_spawn::PROGRAM,
    &lat_uring::PROGRAM,
    &scaling::PROGRAM,
];

/// Every metric of every program.
pub fn all_metrics() -> impl Iterator<Item = &'static Metric> {
    PROGRAMS.iter().flat_map(|p| p.metrics.iter().copied())
}

pub use tables::TABLES;

/// A run made of fixed (id, value) pairs, for the catalog's unit tests.
#[cfg(test)]
pub(crate) struct FakeRun(pub &'static [(&'static str, f64)]);

#[cfg(test)]
impl Lookup for FakeRun {
    fn value(&self, m: &Metric) -> Option<f64> {
        self.0.iter().find(|(id, _)| *id == m.id).map(|(_, v)| *v)
    }
    fn fact(&self, _: &str) -> Option<String> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_follow_the_grammar() {
        for m in all_metrics() {
            let segs: Vec<&str> = m.id.split('/').collect();
            assert!(
                (2..=3).contains(&segs.len()),
                "{}: want group/function[/parameter]",
                m.id
            );
            for s in segs {
                assert!(
                    !s.is_empty() && s.len() < 64,
                    "{}: bad segment length",
                    m.id
                );
                assert!(
                    s.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                    "{}: segment {s:?} must match [a-z0-9_]+",
                    m.id
                );
            }
            assert!(!m.timed.is_empty(), "{}: describe the timed region", m.id);
        }
    }

    #[test]
    fn ids_are_unique_and_belong_to_their_program() {
        let mut seen = HashSet::new();
        for p in PROGRAMS {
            for m in p.metrics {
                assert!(seen.insert(m.id), "duplicate id {}", m.id);
                assert_eq!(m.program(), p.name, "{} is listed under {}", m.id, p.name);
            }
        }
    }

    #[test]
    fn every_column_reads_registered_metrics() {
        // Registered, or kept to render runs saved before a method changed.
        let ids: HashSet<&str> = all_metrics()
            .chain(lat_ctx::legacy_metrics())
            .map(|m| m.id)
            .collect();
        for t in TABLES {
            for c in t.columns {
                for m in c.source.metrics() {
                    assert!(
                        ids.contains(m.id),
                        "{}: column {:?} reads unregistered {}",
                        t.key,
                        c.header,
                        m.id
                    );
                }
                assert!(
                    c.width >= c.header[1].len(),
                    "{}: header wider than column {:?}",
                    t.key,
                    c.header
                );
            }
            // A top header may span into the next column if that one's top is empty.
            for (i, c) in t.columns.iter().enumerate() {
                let room = match t.columns.get(i + 1) {
                    Some(next) if next.header[0].is_empty() => c.width + 1 + next.width,
                    _ => c.width,
                };
                assert!(
                    c.header[0].len() <= room,
                    "{}: header {:?} wider than its room",
                    t.key,
                    c.header
                );
            }
        }
    }

    /// A run that records every metric a column reads: with every metric
    /// at 1 (or none) and the facts of a machine with three cache levels
    /// (or none).
    struct Recorder {
        values: bool,
        facts: bool,
        read: std::cell::RefCell<HashSet<&'static str>>,
    }

    impl Lookup for Recorder {
        fn value(&self, m: &Metric) -> Option<f64> {
            self.read.borrow_mut().insert(m.id);
            self.values.then_some(1.0)
        }
        fn fact(&self, key: &str) -> Option<String> {
            let v = match key {
                "cache_l1d" => 48 << 10,
                "cache_l2" => 2 << 20,
                "cache_l3" => 32 << 20,
                "cpu_mhz" => 3000,
                "ncpu" => 2,
                _ => return None,
            };
            self.facts.then(|| v.to_string())
        }
    }

    #[test]
    fn columns_read_only_the_metrics_they_list() {
        for t in TABLES {
            for (i, c) in t.columns.iter().enumerate() {
                if matches!(c.source, Source::Fact(_)) {
                    continue;
                }
                let listed: HashSet<&str> = c.source.metrics().iter().map(|m| m.id).collect();
                for (values, facts) in [(true, true), (true, false), (false, true), (false, false)]
                {
                    let run = Recorder {
                        values,
                        facts,
                        read: Default::default(),
                    };
                    c.source.eval(&run);
                    c.source.measured(&run);
                    let unlisted: Vec<_> = run.read.borrow().difference(&listed).copied().collect();
                    assert!(
                        unlisted.is_empty(),
                        "{}: column {:?} reads {unlisted:?} without listing them",
                        t.key,
                        t.column_name(i)
                    );
                }
            }
        }
    }

    #[test]
    fn function_and_parameter_split() {
        let m = Metric::median("lat_fs/create/10k", Unit::Micros, "x");
        assert_eq!(m.function_and_parameter(), ("create", Some("10k")));
        assert_eq!(m.program(), "lat_fs");
        let m = Metric::median("lat_syscall/null", Unit::Micros, "x");
        assert_eq!(m.function_and_parameter(), ("null", None));
    }

    #[test]
    fn sources_evaluate() {
        struct Run;
        impl Lookup for Run {
            fn value(&self, m: &Metric) -> Option<f64> {
                match m.id {
                    "a/x" => Some(1.0),
                    "a/y" => Some(3.0),
                    _ => None,
                }
            }
            fn fact(&self, _: &str) -> Option<String> {
                None
            }
        }
        static X: Metric = Metric::median("a/x", Unit::Micros, "x");
        static Y: Metric = Metric::median("a/y", Unit::Micros, "y");
        static Z: Metric = Metric::median("a/z", Unit::Micros, "z");
        static XY: [&Metric; 2] = [&X, &Y];
        static XZ: [&Metric; 2] = [&X, &Z];
        assert_eq!(Source::Mean(&XY).eval(&Run), Some(2.0));
        assert_eq!(Source::Minus(&Y, &X).eval(&Run), Some(2.0));
        assert_eq!(Source::Mean(&XZ).eval(&Run), None);
    }

    #[test]
    fn bandwidth_uses_decimal_megabytes() {
        // 10^6 bytes in 10^6 ns (1 ms) is 1000 MB/s.
        assert_eq!(Unit::MBps.from_ns_per_iter(1e6, Some(1e6)), Some(1000.0));
        assert_eq!(Unit::MBps.from_ns_per_iter(1e6, None), None);
        assert_eq!(Unit::Micros.from_ns_per_iter(1500.0, None), Some(1.5));
    }
}
