//! Criterion glue shared by every bench: one config, per-class group
//! presets, and the timed-loop helpers. lmbench's `benchmp` in Rust: the
//! body receives the iteration count and runs the loop itself
//! (`iter_custom`), setup stays outside, and a failed operation panics with
//! the metric's id (the one sanctioned panic site of the suite).
//!
//! Here: the group a bench registers its metrics in ([`Group`]), the
//! one-thread check, the busy record, and failing with the metric's id.
//! Beside it: `presets` (the configuration, and samples and times per
//! class and preset), `peer_loops` (the timed loops of benches whose
//! other end is a peer or a socket), `figure` (metrics a bench computes
//! rather than times) and `saved` (whether Criterion kept what a
//! benchmark measured).

use std::fmt::Display;
use std::time::{Duration, Instant};

use criterion::measurement::{Measurement, WallTime};
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput};

use crate::activity;
use crate::catalog::{Metric, Program};
use crate::clock;

mod figure;
mod peer_loops;
mod presets;
mod saved;

pub use figure::{bench_figures, ratio_total, Figure, Returned};
pub use peer_loops::*;
pub use presets::*;

/// One Criterion group for one lmbench program. Benchmarks are added by
/// catalog metric, so an id is spelled only in the catalog.
/// Its measurement is wall time unless the group's figures are not times
/// ([`bench_figures`]).
pub struct Group<'a, M: Measurement = WallTime> {
    inner: BenchmarkGroup<'a, M>,
    program: &'static Program,
    preset: Preset,
}

impl<'a, M: Measurement> Group<'a, M>
where
    M::Value: Returned,
{
    pub fn new(c: &'a mut Criterion<M>, program: &'static Program, class: Class) -> Group<'a, M> {
        let preset = Preset::from_env();
        let mut inner = c.benchmark_group(program.name);
        let (mode, samples, warm_up, measurement) = preset.class(class);
        inner
            .sampling_mode(mode)
            .nresamples(preset.nresamples(NRESAMPLES));
        if !on_command_line(SAMPLE_SIZE_FLAG) {
            inner.sample_size(samples);
        }
        if !on_command_line(WARM_UP_FLAG) {
            inner.warm_up_time(warm_up);
        }
        if !on_command_line(MEASUREMENT_FLAG) {
            inner.measurement_time(measurement);
        }
        Group {
            inner,
            program,
            preset,
        }
    }

    /// The group's Criterion settings, for presets a bench needs beyond
    /// its class (sample size, warm-up and measurement time). The quick
    /// preset scales what a bench sets here; other settings pass through
    /// to Criterion's group unchanged.
    pub fn criterion(&mut self) -> Tuner<'_, 'a, M> {
        Tuner {
            group: &mut self.inner,
            preset: self.preset,
        }
    }

    /// Declares the bytes one iteration moves: Criterion then reports MB/s
    /// with MB = 10^6, as lmbench does.
    pub fn bytes_per_iter(&mut self, bytes: u64) -> &mut Self {
        self.inner.throughput(Throughput::BytesDecimal(bytes));
        self
    }

    /// Benchmarks `metric` with a body that runs `iters` operations and
    /// returns the time they took (setup and checks outside the timing).
    /// Around the calls (outside their timing) it records what else the
    /// machine did and the core clock (`crate::clock`), into
    /// `<criterion home>/<id>/lmbench-activity.json`. Under wall time the
    /// body returns a `Duration`; under [`Figure`] the figure itself.
    pub fn bench(&mut self, metric: &'static Metric, body: impl FnMut(u64) -> M::Value) {
        self.assert_registered(metric);
        if std::env::var_os(FAIL_METRIC_ENV).is_some_and(|v| v == metric.id) {
            failed(
                metric,
                format_args!("failed on purpose ({FAIL_METRIC_ENV})"),
            );
        }
        let mut body = body;
        let mut window: Option<activity::Window> = None;
        let mut threads = ThreadCheck::from_env(metric);
        let mut saved = saved::Watch::start(&criterion_home(), metric);
        let mut clocks: Vec<clock::CallClock> = Vec::new();
        let mut watched = |iters: u64| {
            let w = window.get_or_insert_with(activity::Window::start);
            threads.check();
            let call = w.call_start();
            let before = clock::cycle_ns();
            let took = body(iters);
            let after = clock::cycle_ns();
            w.call_end(call);
            threads.check();
            saved.returned(took.is_zero());
            clocks.push([took.key(), before, after]);
            took
        };
        let (function, parameter) = metric.function_and_parameter();
        match parameter {
            Some(p) => self
                .inner
                .bench_function(BenchmarkId::new(function, p), |b| {
                    b.iter_custom(&mut watched)
                }),
            None => self
                .inner
                .bench_function(function, |b| b.iter_custom(&mut watched)),
        };
        if let Some(w) = window {
            if records_results() {
                let mut a = w.finish();
                a.clock = clocks;
                record_activity(metric, &a);
                // A measurement Criterion discarded is a failure, never a
                // metric silently missing from the run.
                if let Some(why) = saved.lost() {
                    failed(metric, why);
                }
            }
        }
    }

    /// Declares that `metric` is deliberately not measured in this run, and
    /// why (a size this machine cannot hold, Criterion's test mode...). The
    /// line goes to stderr, where the catalog-vs-benches test reads it: a
    /// skip is said, never silent.
    pub fn skip(&mut self, metric: &'static Metric, why: impl Display) {
        self.assert_registered(metric);
        eprintln!("{SKIPPED}{}: {why}", metric.id);
    }

    fn assert_registered(&self, metric: &Metric) {
        let ours = self
            .program
            .metrics
            .iter()
            .any(|m| std::ptr::eq(*m, metric));
        assert!(
            ours,
            "{} is not registered in catalog program {}",
            metric.id, self.program.name
        );
    }

    pub fn finish(self) {
        self.inner.finish();
    }
}

impl Group<'_, WallTime> {
    /// Benchmarks `metric` as `iters` runs of `op` timed by [`timed_loop`],
    /// which panics with the metric's id on the first failed run. The
    /// metric is named once, so the id a failure reports is always the one
    /// being measured.
    #[inline]
    pub fn bench_loop<T, E: Display>(
        &mut self,
        metric: &'static Metric,
        mut op: impl FnMut() -> Result<T, E>,
    ) {
        self.bench(metric, |iters| timed_loop(metric, iters, &mut op));
    }
}

/// Criterion's flags for the times and the sample count: given on a
/// bench's command line they win over the class's and the bench's own
/// settings (a group's setting would otherwise override them), so `cargo
/// bench -- --measurement-time 60` lengthens every metric and
/// `--sample-size 10` shortens it, as Criterion users expect.
const WARM_UP_FLAG: &str = "--warm-up-time";
const MEASUREMENT_FLAG: &str = "--measurement-time";
const SAMPLE_SIZE_FLAG: &str = "--sample-size";

fn on_command_line(flag: &str) -> bool {
    std::env::args().any(|a| a == flag || a.starts_with(&format!("{flag}=")))
}

/// A group's settings as a bench adjusts them ([`Group::criterion`]): the
/// quick preset turns a bench's sample count into [`QUICK_SAMPLES`] and its
/// times into a tenth (at least 20 ms); anything else reaches Criterion's
/// group through `Deref`.
pub struct Tuner<'g, 'a, M: Measurement = WallTime> {
    group: &'g mut BenchmarkGroup<'a, M>,
    preset: Preset,
}

impl<M: Measurement> Tuner<'_, '_, M> {
    pub fn sample_size(&mut self, n: usize) -> &mut Self {
        if !on_command_line(SAMPLE_SIZE_FLAG) {
            self.group.sample_size(self.preset.samples(n));
        }
        self
    }

    pub fn warm_up_time(&mut self, d: Duration) -> &mut Self {
        if !on_command_line(WARM_UP_FLAG) {
            self.group.warm_up_time(self.preset.scaled(d));
        }
        self
    }

    pub fn measurement_time(&mut self, d: Duration) -> &mut Self {
        if !on_command_line(MEASUREMENT_FLAG) {
            self.group.measurement_time(self.preset.scaled(d));
        }
        self
    }

    pub fn sampling_mode(&mut self, mode: SamplingMode) -> &mut Self {
        self.group.sampling_mode(mode);
        self
    }

    pub fn nresamples(&mut self, n: usize) -> &mut Self {
        self.group.nresamples(self.preset.nresamples(n));
        self
    }
}

impl<'a, M: Measurement> std::ops::Deref for Tuner<'_, 'a, M> {
    type Target = BenchmarkGroup<'a, M>;
    fn deref(&self) -> &Self::Target {
        self.group
    }
}

impl<M: Measurement> std::ops::DerefMut for Tuner<'_, '_, M> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.group
    }
}

/// The environment variable that makes [`Group::bench`] count this
/// process's threads right before and right after every timed call, and
/// fail the metric if there is more than one (a second thread switches the
/// kernel's fd table to its shared path, an atomic get/put per fd lookup,
/// which triples a select on 100 fds). Each metric so checked prints
/// [`ONE_THREAD_LINE`]`<id>` to stderr once.
pub const CHECK_THREADS_ENV: &str = "LMBENCH_CHECK_THREADS";

/// The prefix of the stderr line of a metric timed with one thread.
pub const ONE_THREAD_LINE: &str = "lmbench: one thread while timed: ";

/// The threads of this process (`/proc/self/task` entries), where the
/// system says (Linux); `None` elsewhere.
pub fn thread_count() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        std::fs::read_dir("/proc/self/task").ok().map(|d| d.count())
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// [`CHECK_THREADS_ENV`]'s check for one metric.
struct ThreadCheck {
    metric: &'static Metric,
    on: bool,
    said: bool,
}

impl ThreadCheck {
    fn from_env(metric: &'static Metric) -> ThreadCheck {
        let on = std::env::var_os(CHECK_THREADS_ENV).is_some_and(|v| v == "1");
        ThreadCheck {
            metric,
            on,
            said: false,
        }
    }

    /// Outside the timing, between the timed calls of a metric: the
    /// process state the timed body ran (or will run) in.
    fn check(&mut self) {
        if !self.on {
            return;
        }
        match thread_count() {
            Some(1) if !self.said => {
                eprintln!("{ONE_THREAD_LINE}{}", self.metric.id);
                self.said = true;
            }
            Some(1) => {}
            Some(n) => failed(
                self.metric,
                format_args!("{n} threads in the timed process (one expected)"),
            ),
            None => {}
        }
    }
}

/// The prefix of the stdout line a bench prints after a benchmark measured
/// while other work ran (`lmbench run` echoes it).
pub const BUSY_LINE: &str = "busy: ";

/// True when this process writes results: a measurement, not Criterion's
/// test mode, `--list`, a `--profile-time` run (which measure nothing) or
/// a `--load-baseline` or `--discard-baseline` run (Criterion writes no
/// `new/` for them).
fn records_results() -> bool {
    !test_mode()
        && !std::env::args().any(|a| {
            a == "--profile-time"
                || a == "--list"
                || a == "--discard-baseline"
                || a.starts_with("--load-baseline")
        })
}

/// Where Criterion writes this bench's results
/// ([`crate::target_dir::criterion_home`]), the target directory being,
/// without `$CARGO_TARGET_DIR`, the one this bench binary was built into
/// (`<target>/<profile>/deps/<bench>-<hash>`).
pub fn criterion_home() -> std::path::PathBuf {
    crate::target_dir::criterion_home(|| {
        std::env::current_exe()
            .ok()
            .and_then(|exe| exe.ancestors().nth(3).map(std::path::Path::to_path_buf))
            .unwrap_or_else(|| "target".into())
    })
}

/// Writes a benchmark's activity record (atomically, so a reader never
/// sees half of it). A failure to write is a warning, not a failed
/// measurement.
fn record_activity(metric: &Metric, a: &activity::Activity) {
    let path = criterion_home()
        .join(metric.id)
        .join(activity::ACTIVITY_FILE);
    let written = serde_json::to_vec_pretty(a)
        .map_err(std::io::Error::other)
        .and_then(|bytes| crate::atomic_file::write_atomic(&path, &bytes));
    if let Err(e) = written {
        eprintln!("{}: cannot write {}: {e}", metric.id, path.display());
    }
    if a.is_busy(activity::BUSY_CPUS) {
        println!("{BUSY_LINE}{}: {}", metric.id, a.describe());
    }
}

/// The prefix of [`Group::skip`]'s stderr line.
pub const SKIPPED: &str = "lmbench: skipped ";

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
        match op() {
            // The result is kept opaque so the work that made it (a sum
            // over a buffer) cannot be optimised away.
            Ok(v) => {
                std::hint::black_box(v);
            }
            Err(e) => failed(metric, e),
        }
    }
    start.elapsed()
}

/// The prefix of the stderr line [`failed`] writes before it panics:
/// `lmbench run` reads the metric and the one-line reason from it.
pub use crate::bench_lines::FAILED_LINE;

/// Fails the benchmark loudly: a short loop that returns a fast wrong
/// number is the worst bug this suite can have.
#[cold]
#[inline(never)]
pub fn failed(metric: &Metric, err: impl Display) -> ! {
    let why = err.to_string();
    eprintln!("{FAILED_LINE}{}: {}", metric.id, why.replace('\n', "; "));
    panic!("{}: {why}", metric.id)
}

/// The environment variable that makes the benchmark of one metric (its
/// id) fail on purpose as it starts: how the tests show that a failed
/// program costs a run only its own metrics.
pub const FAIL_METRIC_ENV: &str = "LMBENCH_FAIL_METRIC";

/// Unwraps a setup or check result, failing the benchmark with the metric
/// id and what was being done.
pub fn check<T, E: Display>(metric: &Metric, what: &str, r: Result<T, E>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => failed(metric, format_args!("{what}: {e}")),
    }
}

/// The scratch root of a bench that works on files (`LMBENCH_FSDIR`, else
/// the temp directory), checked and swept of stale scratch directories
/// before any measurement. A bad one is bad input, not a failed
/// measurement: one line naming it, exit status 2.
pub fn scratch_root_or_exit(program: &Program) -> std::path::PathBuf {
    match crate::fs::prepare_scratch_root() {
        Ok(root) => root,
        Err(e) => {
            eprintln!("{}: {e}", program.name);
            std::process::exit(2)
        }
    }
}

/// True when Criterion runs each benchmark once as a test (`cargo test
/// --benches`, or `cargo bench -- --test`): Cargo passes `--bench` only to
/// a real benchmark run. Benches use it to skip giant setups in CI.
/// `cargo test --benches -- --list` is test mode too (no `--bench`): a
/// bench lists what it would test and declares the rest with `Group::skip`.
pub fn test_mode() -> bool {
    let mut bench = false;
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "--test" => return true,
            "--bench" => bench = true,
            _ => {}
        }
    }
    !bench
}

/// Criterion, for [`bench_main!`](crate::bench_main)'s expansion (a bench
/// file names no Criterion macro itself).
#[doc(hidden)]
pub use criterion as criterion_crate;

/// The tail of every bench file: one Criterion group named `benches` over
/// the given bench functions, and `main`. The configuration is
/// [`config`] unless given: `bench_main!(config = sweep_config(); tlb)`.
#[macro_export]
macro_rules! bench_main {
    (config = $config:expr; $($target:path),+ $(,)?) => {
        $crate::harness::criterion_crate::criterion_group! {
            name = benches;
            config = $config;
            targets = $($target),+
        }
        $crate::harness::criterion_crate::criterion_main!(benches);
    };
    ($($target:path),+ $(,)?) => {
        $crate::bench_main!(config = $crate::harness::config(); $($target),+);
    };
}
