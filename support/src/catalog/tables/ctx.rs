use crate::catalog::lat_ctx::SHAPES;
use crate::catalog::{Column, Lookup, Metric, Source, Table, Unit};

/// lmbench's context-switch figure from the raw metrics: one ring trip
/// divided by the P hand-offs it holds, minus the per-hand-off overhead
/// measured in one process (pipe write + read + working-set sum).
pub fn switch(run: &dyn Lookup, trip: &Metric, p: usize, overhead: &Metric) -> Option<f64> {
    Some(run.value(trip)? / p as f64 - run.value(overhead)?)
}

// `Source::Computed` takes a plain fn and the metrics it reads: one pair
// per (shape, placement).
macro_rules! shape {
    ($fname:ident, $inputs:ident, $i:literal, $col:tt) => {
        fn $fname(run: &dyn Lookup) -> Option<f64> {
            let s = &SHAPES[$i];
            switch(run, s.$col, s.0, s.4)
        }
        pub(super) static $inputs: [&Metric; 2] = [SHAPES[$i].$col, SHAPES[$i].4];
    };
}
shape!(u0, U0, 0, 2);
shape!(u1, U1, 1, 2);
shape!(u2, U2, 2, 2);
shape!(u3, U3, 3, 2);
shape!(u4, U4, 4, 2);
shape!(u5, U5, 5, 2);
shape!(u6, U6, 6, 2);
shape!(p0, P0, 0, 3);
shape!(p1, P1, 1, 3);
shape!(p2, P2, 2, 3);
shape!(p3, P3, 3, 3);
shape!(p4, P4, 4, 3);
shape!(p5, P5, 5, 3);
shape!(p6, P6, 6, 3);

/// The 2p/0K one-CPU figure, repeated in the one-CPU communication table.
pub fn ctx_2p_0k_pinned(run: &dyn Lookup) -> Option<f64> {
    p0(run)
}

/// The 2p/0K unpinned figure, repeated in the communication table.
pub fn ctx_2p_0k(run: &dyn Lookup) -> Option<f64> {
    u0(run)
}

pub static CTX: Table = Table {
    key: "ctx",
    title: "Context switching - times in microseconds - smaller is better",
    unit: Unit::Micros,
    columns: &[
        Column::new("2p/0K", "ctxsw", 6, Source::Computed(&U0, u0)),
        Column::new("2p/16K", "ctxsw", 6, Source::Computed(&U1, u1)),
        Column::new("2p/64K", "ctxsw", 6, Source::Computed(&U2, u2)),
        Column::new("8p/16K", "ctxsw", 6, Source::Computed(&U3, u3)),
        Column::new("8p/64K", "ctxsw", 6, Source::Computed(&U4, u4)),
        Column::new("16p/16K", "ctxsw", 7, Source::Computed(&U5, u5)),
        Column::new("16p/64K", "ctxsw", 7, Source::Computed(&U6, u6)),
    ],
};

/// Not an lmbench table: the same rings with every member pinned to one
/// CPU, so each hand-off is a true switch on that CPU rather than a
/// wake-up on another (lmbench does not pin).
pub static CTX_PINNED: Table = Table {
    key: "ctx_pinned",
    title:
        "Context switching, all ring members on one CPU (not in lmbench) - times in microseconds",
    unit: Unit::Micros,
    columns: &[
        Column::new("2p/0K", "ctxsw", 6, Source::Computed(&P0, p0)),
        Column::new("2p/16K", "ctxsw", 6, Source::Computed(&P1, p1)),
        Column::new("2p/64K", "ctxsw", 6, Source::Computed(&P2, p2)),
        Column::new("8p/16K", "ctxsw", 6, Source::Computed(&P3, p3)),
        Column::new("8p/64K", "ctxsw", 6, Source::Computed(&P4, p4)),
        Column::new("16p/16K", "ctxsw", 7, Source::Computed(&P5, p5)),
        Column::new("16p/64K", "ctxsw", 7, Source::Computed(&P6, p6)),
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    struct Run;
    impl Lookup for Run {
        fn value(&self, m: &Metric) -> Option<f64> {
            match m.id {
                "lat_ctx/unpinned/8p_16k" => Some(40.0),
                "lat_ctx/overhead/16k" => Some(1.5),
                _ => None,
            }
        }
        fn fact(&self, _: &str) -> Option<String> {
            None
        }
    }

    #[test]
    fn switch_divides_by_p_and_subtracts_overhead() {
        assert_eq!(CTX.columns[3].source.eval(&Run), Some(40.0 / 8.0 - 1.5));
        assert_eq!(CTX.columns[0].source.eval(&Run), None);
        assert_eq!(SHAPES[3].2.id, "lat_ctx/unpinned/8p_16k");
    }
}
