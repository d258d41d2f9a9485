use crate::catalog::lat_ctx::{Legacy, NOT_POSITIVE_NS, SHAPES};
use crate::catalog::{Column, Lookup, Metric, Source, Table, Unit};

/// lmbench's context-switch figure of one ring shape, in microseconds.
///
/// A current run holds it directly: the median of paired samples, each a
/// ring block minus its own overhead block per hand-off
/// (`catalog::lat_ctx`). Where that switch is not above its noise (the
/// median, or the low end of its 95% interval, at or below zero) it is
/// `None`, printed `-` with a note ([`switch_notes`]), as lmbench prints
/// nothing for a non-positive result.
///
/// An older saved run holds the raw ring trip and the overhead measured
/// apart under the [`Legacy`] ids: its switch is trip / P minus overhead
/// (unpinned, positive only).
pub fn switch(
    run: &dyn Lookup,
    ring: &Metric,
    p: usize,
    old: &Legacy,
    pinned: bool,
) -> Option<f64> {
    if let Some(v) = run.value(ring) {
        return noise(run, ring, v).is_none().then_some(v);
    }
    let trip = if pinned {
        &old.pinned_trip
    } else {
        &old.unpinned_trip
    };
    Some(run.value(trip)? / p as f64 - run.value(old.overhead)?).filter(|&s| s > 0.0)
}

/// Why a paired switch figure `v` of `ring` is not above its noise, if
/// it is not: its median (and interval, when the run has samples).
fn noise(run: &dyn Lookup, ring: &Metric, v: f64) -> Option<String> {
    // Differences at or below NOT_POSITIVE_NS are stored as it (runs
    // saved before it was 1 ns stored 0.001 ns: below it too).
    let zero = 1.5 * NOT_POSITIVE_NS / 1e3;
    let us = |x: f64| {
        if x <= zero {
            "<=0".to_string()
        } else {
            format!("{x:.3}")
        }
    };
    match run.median_interval(ring) {
        Some((lo, hi)) if v <= zero || lo <= zero => Some(format!(
            "median {} us, 95% interval {}..{} us",
            us(v),
            us(lo),
            us(hi)
        )),
        None if v <= zero => Some(format!("median {} us", us(v))),
        _ => None,
    }
}

/// The notes under [`CTX`]: see [`switch_notes`].
pub fn ctx_notes(run: &dyn Lookup) -> Vec<String> {
    switch_notes(false, run)
}

/// The notes under [`CTX_PINNED`]: see [`switch_notes`].
pub fn ctx_pinned_notes(run: &dyn Lookup) -> Vec<String> {
    switch_notes(true, run)
}

/// One line per shape (of the pinned rings, or the unpinned) whose paired
/// switch `run` measured but did not find above its noise.
pub fn switch_notes(pinned: bool, run: &dyn Lookup) -> Vec<String> {
    SHAPES
        .iter()
        .filter_map(|s| {
            let ring = if pinned { s.3 } else { s.2 };
            let why = noise(run, ring, run.value(ring)?)?;
            Some(format!(
                "{}p/{}K: - : switch not above its noise ({why}); lmbench prints nothing for a non-positive result",
                s.0, s.1
            ))
        })
        .collect()
}

// `Source::Computed` takes a plain fn and the metrics it reads: one pair
// of fns per (shape, placement).
macro_rules! shape {
    ($fname:ident, $inputs:ident, $i:literal, $col:tt, $pinned:literal, $trip:ident) => {
        fn $fname(run: &dyn Lookup) -> Option<f64> {
            let s = &SHAPES[$i];
            switch(run, s.$col, s.0, s.4, $pinned)
        }
        // The switch, and the raw trip and overhead an older run holds
        // instead.
        pub(super) fn $inputs() -> Vec<&'static Metric> {
            let s = &SHAPES[$i];
            vec![s.$col, &s.4.$trip, s.4.overhead]
        }
    };
}
shape!(u0, u0_inputs, 0, 2, false, unpinned_trip);
shape!(u1, u1_inputs, 1, 2, false, unpinned_trip);
shape!(u2, u2_inputs, 2, 2, false, unpinned_trip);
shape!(u3, u3_inputs, 3, 2, false, unpinned_trip);
shape!(u4, u4_inputs, 4, 2, false, unpinned_trip);
shape!(u5, u5_inputs, 5, 2, false, unpinned_trip);
shape!(u6, u6_inputs, 6, 2, false, unpinned_trip);
shape!(p0, p0_inputs, 0, 3, true, pinned_trip);
shape!(p1, p1_inputs, 1, 3, true, pinned_trip);
shape!(p2, p2_inputs, 2, 3, true, pinned_trip);
shape!(p3, p3_inputs, 3, 3, true, pinned_trip);
shape!(p4, p4_inputs, 4, 3, true, pinned_trip);
shape!(p5, p5_inputs, 5, 3, true, pinned_trip);
shape!(p6, p6_inputs, 6, 3, true, pinned_trip);

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
    notes: ctx_notes,
    columns: &[
        Column::new("2p/0K", "ctxsw", 6, Source::Computed(u0_inputs, u0)),
        Column::new("2p/16K", "ctxsw", 6, Source::Computed(u1_inputs, u1)),
        Column::new("2p/64K", "ctxsw", 6, Source::Computed(u2_inputs, u2)),
        Column::new("8p/16K", "ctxsw", 6, Source::Computed(u3_inputs, u3)),
        Column::new("8p/64K", "ctxsw", 6, Source::Computed(u4_inputs, u4)),
        Column::new("16p/16K", "ctxsw", 7, Source::Computed(u5_inputs, u5)),
        Column::new("16p/64K", "ctxsw", 7, Source::Computed(u6_inputs, u6)),
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
    notes: ctx_pinned_notes,
    columns: &[
        Column::new("2p/0K", "ctxsw", 6, Source::Computed(p0_inputs, p0)),
        Column::new("2p/16K", "ctxsw", 6, Source::Computed(p1_inputs, p1)),
        Column::new("2p/64K", "ctxsw", 6, Source::Computed(p2_inputs, p2)),
        Column::new("8p/16K", "ctxsw", 6, Source::Computed(p3_inputs, p3)),
        Column::new("8p/64K", "ctxsw", 6, Source::Computed(p4_inputs, p4)),
        Column::new("16p/16K", "ctxsw", 7, Source::Computed(p5_inputs, p5)),
        Column::new("16p/64K", "ctxsw", 7, Source::Computed(p6_inputs, p6)),
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    /// A metric id, its median and its median's interval (us).
    type Figure = (&'static str, f64, Option<(f64, f64)>);

    /// A run of fixed medians and median intervals.
    struct Run<'a>(&'a [Figure]);
    impl Lookup for Run<'_> {
        fn value(&self, m: &Metric) -> Option<f64> {
            self.0.iter().find(|r| r.0 == m.id).map(|r| r.1)
        }
        fn fact(&self, _: &str) -> Option<String> {
            None
        }
        fn median_interval(&self, m: &Metric) -> Option<(f64, f64)> {
            self.0.iter().find(|r| r.0 == m.id)?.2
        }
    }

    #[test]
    fn a_run_saved_before_pairing_divides_by_p_and_subtracts_overhead() {
        let old = Run(&[
            ("lat_ctx/unpinned/8p_16k", 40.0, None),
            ("lat_ctx/overhead/16k", 1.5, None),
            ("lat_ctx/pinned/8p_16k", 10.0, None),
        ]);
        assert_eq!(CTX.columns[3].source.eval(&old), Some(40.0 / 8.0 - 1.5));
        // 10 / 8 - 1.5 < 0: nothing, as lmbench.
        assert_eq!(CTX_PINNED.columns[3].source.eval(&old), None);
        assert_eq!(CTX.columns[0].source.eval(&old), None);
        assert!(ctx_pinned_notes(&old).is_empty());
        assert_eq!(SHAPES[3].4.unpinned_trip.id, "lat_ctx/unpinned/8p_16k");
        assert_eq!(SHAPES[3].2.id, "lat_ctx/switch_unpinned/8p_16k");
    }

    #[test]
    fn a_paired_switch_is_shown_when_its_interval_clears_zero() {
        let run = Run(&[("lat_ctx/switch_pinned/2p_64k", 1.9, Some((1.7, 2.2)))]);
        assert_eq!(CTX_PINNED.columns[2].source.eval(&run), Some(1.9));
        assert_eq!(ctx_2p_0k_pinned(&run), None);
        assert!(ctx_pinned_notes(&run).is_empty());
    }

    #[test]
    fn a_paired_switch_in_its_noise_is_a_dash_with_a_note() {
        let zero = NOT_POSITIVE_NS / 1e3;
        let run = Run(&[
            // Interval reaches zero: the median alone is not enough.
            ("lat_ctx/switch_pinned/2p_16k", 0.4, Some((zero, 0.9))),
            // Median at zero (most samples were not positive).
            ("lat_ctx/switch_pinned/16p_64k", zero, Some((zero, 0.2))),
            // No samples (e.g. a fixture): the median decides.
            ("lat_ctx/switch_unpinned/2p_0k", zero, None),
            ("lat_ctx/switch_unpinned/2p_16k", 3.0, None),
            // A run saved when the marker was 0.001 ns.
            ("lat_ctx/switch_unpinned/8p_16k", 1e-6, Some((1e-6, 1e-6))),
            // The marker rounded up once in a sample: still no switch.
            ("lat_ctx/switch_unpinned/8p_64k", 1.4e-3, None),
        ]);
        assert_eq!(CTX_PINNED.columns[1].source.eval(&run), None);
        assert_eq!(CTX_PINNED.columns[6].source.eval(&run), None);
        assert_eq!(CTX.columns[0].source.eval(&run), None);
        assert_eq!(CTX.columns[1].source.eval(&run), Some(3.0));
        assert_eq!(CTX.columns[3].source.eval(&run), None);
        assert_eq!(CTX.columns[4].source.eval(&run), None);
        assert_eq!(
            ctx_pinned_notes(&run),
            vec![
                "2p/16K: - : switch not above its noise (median 0.400 us, 95% interval <=0..0.900 us); lmbench prints nothing for a non-positive result",
                "16p/64K: - : switch not above its noise (median <=0 us, 95% interval <=0..0.200 us); lmbench prints nothing for a non-positive result",
            ]
        );
        assert_eq!(
            ctx_notes(&run),
            vec![
                "2p/0K: - : switch not above its noise (median <=0 us); lmbench prints nothing for a non-positive result",
                "8p/16K: - : switch not above its noise (median <=0 us, 95% interval <=0..<=0 us); lmbench prints nothing for a non-positive result",
                "8p/64K: - : switch not above its noise (median <=0 us); lmbench prints nothing for a non-positive result",
            ]
        );
    }
}
