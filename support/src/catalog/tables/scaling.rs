//! The scaling tables: how the scaling program's operations fare at N
//! copies (N = the CPUs the bench could use, machine fact `ncpu`), as
//! processes and as threads. Efficiency 1.0 is perfect scaling: N copies
//! together do N times the work of one in the same time.
use crate::catalog::scaling::{Series, SERIES};
use crate::catalog::{no_notes, Column, Lookup, Metric, Source, Table, Unit};

/// N of a run: the machine fact `ncpu`.
fn n(run: &dyn Lookup) -> Option<f64> {
    run.fact("ncpu")?
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|&n| n >= 1.0)
}

fn is_bandwidth(s: &Series) -> bool {
    s.metrics[0].unit == Unit::MBps
}

/// Efficiency at N of one series: time at 1 / time at N (each iteration
/// is every copy doing the operation once); for a bandwidth, MB/s at N /
/// (N x MB/s at 1).
pub fn efficiency(run: &dyn Lookup, s: &Series) -> Option<f64> {
    let one = run.value(s.metrics[0])?;
    let at_n = run.value(s.metrics[1])?;
    let e = if is_bandwidth(s) {
        at_n / (n(run)? * one)
    } else {
        one / at_n
    };
    e.is_finite().then_some(e)
}

/// Aggregate throughput at N copies: millions of operations per second
/// (N / microseconds per iteration), or MB/s for a bandwidth.
pub fn aggregate(run: &dyn Lookup, s: &Series) -> Option<f64> {
    let at_n = run.value(s.metrics[1])?;
    let v = if is_bandwidth(s) {
        at_n
    } else {
        n(run)? / at_n
    };
    v.is_finite().then_some(v)
}

macro_rules! per_series {
    ($($eff:ident, $agg:ident, $inputs:ident, $i:literal;)*) => {
        $(
            fn $inputs() -> Vec<&'static Metric> {
                SERIES[$i].metrics[..2].to_vec()
            }
            fn $eff(run: &dyn Lookup) -> Option<f64> {
                efficiency(run, &SERIES[$i])
            }
            fn $agg(run: &dyn Lookup) -> Option<f64> {
                aggregate(run, &SERIES[$i])
            }
        )*
    };
}

per_series! {
    e0, a0, i0, 0; e1, a1, i1, 1; e2, a2, i2, 2; e3, a3, i3, 3; e4, a4, i4, 4; e5, a5, i5, 5;
    e6, a6, i6, 6; e7, a7, i7, 7; e8, a8, i8, 8; e9, a9, i9, 9; e10, a10, i10, 10;
    e11, a11, i11, 11;
}

macro_rules! columns {
    ($($top:literal, $proc:ident($pin:ident), $thread:ident($tin:ident);)*) => {
        &[
            Column::new("N", "", 3, Source::Fact(n)),
            $(
                Column::new($top, "proc", 5, Source::Computed($pin, $proc)),
                Column::new("", "thrd", 5, Source::Computed($tin, $thread)),
            )*
        ]
    };
}

pub static SCALING: Table = Table {
    key: "scaling",
    title: "Scaling - efficiency at N copies",
    unit: Unit::Count,
    notes: no_notes,
    columns: columns! {
        "null call", e0(i0), e1(i1);
        "pipe rtrip", e2(i2), e3(i3);
        "page fault", e4(i4), e5(i5);
        "open shared", e6(i6), e7(i7);
        "open own", e8(i8), e9(i9);
        "mem read", e10(i10), e11(i11);
    },
};

pub static SCALING_AGG: Table = Table {
    key: "scaling_agg",
    title: "Scaling - aggregate at N copies - millions of ops/s (mem read MB/s) - bigger is better",
    unit: Unit::Count,
    notes: no_notes,
    columns: columns! {
        "null call", a0(i0), a1(i1);
        "pipe rtrip", a2(i2), a3(i3);
        "page fault", a4(i4), a5(i5);
        "open shared", a6(i6), a7(i7);
        "open own", a8(i8), a9(i9);
        "mem read", a10(i10), a11(i11);
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    struct Run(&'static [(&'static str, f64)], &'static str);
    impl Lookup for Run {
        fn value(&self, m: &Metric) -> Option<f64> {
            self.0.iter().find(|(id, _)| *id == m.id).map(|(_, v)| *v)
        }
        fn fact(&self, key: &str) -> Option<String> {
            (key == "ncpu").then(|| self.1.to_string())
        }
    }

    #[test]
    fn efficiency_and_aggregate() {
        let run = Run(
            &[
                ("scaling/null_proc/c1", 0.1),
                ("scaling/null_proc/cn", 0.125),
                ("scaling/memrd_thread/c1", 10_000.0),
                ("scaling/memrd_thread/cn", 15_000.0),
            ],
            "2",
        );
        // 0.1 us alone, 0.125 us per round of 2: 80 %, 16 Mops/s.
        assert_eq!(e0(&run), Some(0.8));
        assert_eq!(a0(&run), Some(16.0));
        // 15 GB/s with 2 copies against 10 GB/s alone: 75 %.
        assert_eq!(e11(&run), Some(0.75));
        assert_eq!(a11(&run), Some(15_000.0));
        assert_eq!(e1(&run), None);
        assert_eq!(SERIES[11].op, "memrd");
        assert_eq!(SERIES[11].mode, "thread");
        assert_eq!(SERIES[0].op, "null");
        let no_n = Run(
            &[
                ("scaling/memrd_thread/c1", 1.0),
                ("scaling/memrd_thread/cn", 1.0),
            ],
            "",
        );
        assert_eq!(e11(&no_n), None);
    }
}
