//! Figures that are not times (a ratio, a count), measured at full
//! precision. Under Criterion's wall-time measurement a timed call returns
//! a `Duration`, whole nanoseconds for the whole sample: a ratio returned
//! as "nanoseconds" is rounded, and a ratio below one with one iteration
//! per sample (faults per page under large folios: 1/16 with ext4's
//! 64 KB folios, 1/512 with 2 MB ones) rounds to zero, which Criterion
//! discards. [`Figure`] is a Criterion measurement whose values are `f64`:
//! the call returns the figure times the iterations, Criterion stores it
//! as it is, and every reader of Criterion's files sees the true value per
//! iteration, in the metric's catalog unit. Criterion still plans the
//! iterations from the wall time of the calls (its warm-up times the
//! calls themselves), so a figure's sampling follows what it costs to
//! measure.

use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{Criterion, Throughput};

use super::{Class, Group};
use crate::catalog::Program;

/// What a timed call returns, as [`Group::bench`] records it beside the
/// samples.
pub trait Returned {
    /// A zero sample, which Criterion discards with the whole benchmark.
    fn is_zero(&self) -> bool;
    /// The value as Criterion stores it in the sample (nanoseconds for a
    /// time): the key that matches a call's records to its sample.
    fn key(&self) -> f64;
}

impl Returned for Duration {
    fn is_zero(&self) -> bool {
        Duration::is_zero(self)
    }
    fn key(&self) -> f64 {
        self.as_nanos() as f64
    }
}

impl Returned for f64 {
    fn is_zero(&self) -> bool {
        *self == 0.0
    }
    fn key(&self) -> f64 {
        *self
    }
}

/// Criterion's measurement for a figure that is not a time: the timed call
/// returns it ([`Group::bench`] under `iter_custom`); it is never started
/// or stopped as a clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct Figure;

impl Measurement for Figure {
    type Intermediate = ();
    type Value = f64;

    fn start(&self) -> Self::Intermediate {}
    fn end(&self, _: Self::Intermediate) -> Self::Value {
        // Only `iter_custom` is used with this measurement; a routine that
        // Criterion timed itself would have no figure to give.
        f64::NAN
    }
    fn add(&self, v1: &f64, v2: &f64) -> f64 {
        v1 + v2
    }
    fn zero(&self) -> f64 {
        0.0
    }
    fn to_f64(&self, value: &f64) -> f64 {
        *value
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &FigureFormatter
    }
}

/// Figures print as they are, with no time unit and no rescaling.
struct FigureFormatter;

impl ValueFormatter for FigureFormatter {
    fn scale_values(&self, _typical: f64, _values: &mut [f64]) -> &'static str {
        "per iter"
    }
    fn scale_throughputs(
        &self,
        _typical: f64,
        _throughput: &Throughput,
        _values: &mut [f64],
    ) -> &'static str {
        "per iter"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "per iter"
    }
}

/// Runs `benches` on a group of `program` whose figures are not times
/// ([`Figure`]), on the same Criterion (its filter, baseline, output
/// directory and the ids already used), then gives `c` back its wall
/// time. Call it when no wall-time [`Group`] of `c` is open.
pub fn bench_figures(
    c: &mut Criterion,
    program: &'static Program,
    class: Class,
    benches: impl FnOnce(&mut Group<'_, Figure>),
) {
    let mut figures = std::mem::take(c).with_measurement(Figure);
    let mut g = Group::new(&mut figures, program, class);
    benches(&mut g);
    g.finish();
    *c = figures.with_measurement(WallTime);
}

/// What a timed call of a ratio returns: `count` per `over` (faults per
/// touched page), times `iters`, in `f64`, so no ratio is rounded through
/// whole nanoseconds. `over` is never zero (a pass touches pages).
pub fn ratio_total(count: u64, over: u64, iters: u64) -> f64 {
    count as f64 / over.max(1) as f64 * iters as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use criterion::SamplingMode;

    /// (faults, pages touched) giving the ratios the kernels that exist
    /// give: one fault a page, four (a fault a page plus retries),
    /// fault-around's 16 pages a fault, 2 MB folios' 512.
    const RATIOS: [(u64, u64, f64); 4] = [
        (32_768, 32_768, 1.0),
        (131_072, 32_768, 4.0),
        (32_768, 524_288, 1.0 / 16.0),
        (1_024, 524_288, 1.0 / 512.0),
    ];

    #[test]
    fn ratios_keep_their_value_at_every_iteration_count() {
        for (count, over, ratio) in RATIOS {
            for iters in [1u64, 2, 3, 7, 10, 100, 999, 4_096, 10_000] {
                let total = ratio_total(count, over, iters);
                assert!(!Returned::is_zero(&total), "{ratio} x {iters} is zero");
                let back = Figure.to_f64(&total) / iters as f64;
                assert!(
                    (back - ratio).abs() <= ratio * 1e-12,
                    "{ratio} x {iters} reads {back}"
                );
            }
        }
    }

    /// Wall time rounds the same figures to zero: what this measurement is
    /// for.
    #[test]
    fn wall_time_would_round_a_ratio_below_one_to_zero() {
        let as_time = Duration::from_secs_f64(ratio_total(32_768, 524_288, 1) / 1e9);
        assert!(Returned::is_zero(&as_time));
    }

    /// Through Criterion itself: flat sampling of one iteration per sample
    /// (a call that takes longer than the measurement time's share), as
    /// lat_pagefault's faults_per_page is sampled, stores every ratio
    /// exactly in its sample file.
    #[test]
    fn criterion_stores_each_ratio_exactly() {
        let home = tempfile::tempdir().expect("temp dir");
        let mut c = Criterion::default()
            .output_directory(home.path())
            .without_plots()
            .with_measurement(Figure);
        let mut g = c.benchmark_group("figure");
        g.sampling_mode(SamplingMode::Flat)
            .sample_size(10)
            .warm_up_time(Duration::from_millis(1))
            .measurement_time(Duration::from_millis(1));
        for (i, (count, over, _)) in RATIOS.iter().enumerate() {
            g.bench_function(format!("r{i}"), |b| {
                b.iter_custom(|iters| {
                    std::thread::sleep(Duration::from_millis(1));
                    ratio_total(*count, *over, iters)
                })
            });
        }
        g.finish();
        for (i, (_, _, ratio)) in RATIOS.iter().enumerate() {
            let path = home.path().join(format!("figure/r{i}/new/sample.json"));
            let text = std::fs::read_to_string(&path).expect("Criterion wrote its samples");
            let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            let iters = v["iters"].as_array().expect("iters");
            let times = v["times"].as_array().expect("times");
            assert_eq!(iters.len(), 10);
            for (n, t) in iters.iter().zip(times) {
                let (n, t) = (n.as_f64().expect("n"), t.as_f64().expect("t"));
                assert!((t / n - ratio).abs() <= ratio * 1e-12, "r{i}: {t} / {n}");
            }
        }
    }

    #[test]
    fn a_figure_is_its_own_key_and_formats_without_a_time_unit() {
        assert_eq!(Returned::key(&0.0625), 0.0625);
        assert_eq!(Returned::key(&Duration::from_nanos(7)), 7.0);
        let mut v = [0.0625, 0.07];
        assert_eq!(FigureFormatter.scale_values(0.0625, &mut v), "per iter");
        assert_eq!(v, [0.0625, 0.07]);
    }
}
