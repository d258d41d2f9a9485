//! Criterion glue shared by every bench: one config, per-class group
//! presets, and the timed-loop helpers. lmbench's `benchmp` in Rust: the
//! body receives the iteration count and runs the loop itself
//! (`iter_custom`), setup stays outside, and a failed operation panics with
//! the metric's id (the one sanctioned panic site of the suite).

use std::fmt::Display;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput};

use crate::catalog::{Metric, Program};

/// The Criterion configuration every bench file uses.
pub fn config() -> Criterion {
    Criterion::default()
        // Runs only under `--profile-time` (see crate::profile).
        .with_profiler(crate::profile::criterion_profiler())
}

/// How a group samples, by the cost of one operation.
#[derive(Debug, Clone, Copy)]
pub enum Class {
    /// Sub-microsecond to microseconds: Criterion's defaults (linear
    /// sampling, 100 samples, 5 s).
    Fast,
    /// Milliseconds (fork, exec, file create): flat sampling, fewer
    /// samples, a longer measurement so each sample holds many operations.
    Slow,
}

/// One Criterion group for one lmbench program. Benchmarks are added by
/// catalog metric, so an id is spelled only in the catalog.
pub struct Group<'a> {
    inner: BenchmarkGroup<'a, WallTime>,
    program: &'static Program,
}

impl<'a> Group<'a> {
    pub fn new(c: &'a mut Criterion, program: &'static Program, class: Class) -> Group<'a> {
        let mut inner = c.benchmark_group(program.name);
        match class {
            Class::Fast => {}
            Class::Slow => {
                inner
                    .sampling_mode(SamplingMode::Flat)
                    .sample_size(20)
                    .measurement_time(Duration::from_secs(8));
            }
        }
        Group { inner, program }
    }

    /// The underlying Criterion group, for presets a bench needs beyond the
    /// class (sample size, measurement time).
    pub fn criterion(&mut self) -> &mut BenchmarkGroup<'a, WallTime> {
        &mut self.inner
    }

    /// Declares the bytes one iteration moves: Criterion then reports MB/s
    /// with MB = 10^6, as lmbench does.
    pub fn bytes_per_iter(&mut self, bytes: u64) -> &mut Self {
        self.inner.throughput(Throughput::BytesDecimal(bytes));
        self
    }

    /// Benchmarks `metric` with a body that runs `iters` operations and
    /// returns the time they took (setup and checks outside the timing).
    pub fn bench(&mut self, metric: &'static Metric, body: impl FnMut(u64) -> Duration) {
        assert!(
            self.program
                .metrics
                .iter()
                .any(|m| std::ptr::eq(*m, metric)),
            "{} is not registered in catalog program {}",
            metric.id,
            self.program.name
        );
        let mut body = body;
        let (function, parameter) = metric.function_and_parameter();
        match parameter {
            Some(p) => self
                .inner
                .bench_function(BenchmarkId::new(function, p), |b| b.iter_custom(&mut body)),
            None => self
                .inner
                .bench_function(function, |b| b.iter_custom(&mut body)),
        };
    }

    pub fn finish(self) {
        self.inner.finish();
    }
}

/// Times `iters` runs of `op`, panicking with the metric id on the first
/// failure. For ops whose check is "returned Ok".
#[inline]
pub fn timed_loop<T, E: Display>(
    metric: &Metric,
    iters: u64,
    mut op: impl FnMut() -> Result<T, E>,
) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        if let Err(e) = op() {
            failed(metric, e);
        }
    }
    start.elapsed()
}

/// Fails the benchmark loudly: a short loop that returns a fast wrong
/// number is the worst bug this suite can have.
#[cold]
#[inline(never)]
pub fn failed(metric: &Metric, err: impl Display) -> ! {
    panic!("{}: {err}", metric.id)
}

/// Unwraps a setup or check result, failing the benchmark with the metric
/// id and what was being done.
pub fn check<T, E: Display>(metric: &Metric, what: &str, r: Result<T, E>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => failed(metric, format_args!("{what}: {e}")),
    }
}
