//! Criterion glue shared by every bench: one config, per-class group
//! presets, and the timed-loop helpers. lmbench's `benchmp` in Rust: the
//! body receives the iteration count and runs the loop itself
//! (`iter_custom`), setup stays outside, and a failed operation panics with
//! the metric's id (the one sanctioned panic site of the suite).

use std::fmt::Display;
use std::time::{Duration, Instant};

use criterion::measurement::{Measurement, WallTime};
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, PlottingBackend, SamplingMode, Throughput,
};

use crate::activity;
use crate::catalog::{Metric, Program};
use crate::clock;

mod figure;
mod saved;

pub use figure::{bench_figures, ratio_total, Figure, Returned};

/// The Criterion configuration every bench file uses.
///
/// Criterion's plots cost several CPU-seconds per benchmark (more than many
/// measurements), so they are off unless `LMBENCH_PLOTS=1`; the estimates,
/// samples and `lmbench summary`/`plot` do not need them.
pub fn config() -> Criterion {
    // A bench outlives neither `cargo bench` nor `lmbench run`.
    crate::child::die_with_parent_self();
    crate::leaks::check_at_exit();
    // Plotters is pure Rust and always there. The profiler runs only
    // under `--profile-time` (see crate::profile).
    let c = Criterion::default()
        .plotting_backend(PlottingBackend::Plotters)
        .with_profiler(crate::profile::criterion_profiler());
    if std::env::var_os("LMBENCH_PLOTS").is_some_and(|v| v == "1") {
        c
    } else {
        c.without_plots()
    }
}

/// How a group samples, by the cost of one operation.
#[derive(Debug, Clone, Copy)]
pub enum Class {
    /// Sub-microsecond to microseconds: automatic sampling mode, 100
    /// samples, 0.3 s warm-up, 1.5 s (Criterion's defaults are 3 s and
    /// 5 s: a few hundred milliseconds warm any of these loops, and 1.5 s
    /// still fills 100 samples of many iterations each). The times are
    /// what keeps a default run of the whole suite under 15 minutes.
    Fast,
    /// Milliseconds (fork, exec, file create): flat sampling, 20 samples,
    /// 0.5 s warm-up, 5 s, so each sample holds many operations.
    Slow,
    /// Bandwidth transfers (milliseconds per iteration, many MB each): flat
    /// sampling, 10 samples, 0.3 s warm-up, 2 s; a bench still declares
    /// its bytes per iteration with [`Group::bytes_per_iter`].
    Bandwidth,
}

/// The sampling preset of a run: `LMBENCH_PRESET=quick` (what `lmbench run
/// --quick` sets) or the default. Criterion's own `--quick` keeps two
/// samples, too few to compare; ours keeps [`QUICK_SAMPLES`] of every
/// metric and shortens the time per metric, class by class, so a suite's
/// length grows with its metric count, not with its tuning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    Default,
    Quick,
}

/// Samples per metric in the quick preset (Criterion's minimum).
pub const QUICK_SAMPLES: usize = 10;

/// The quick preset's share of a bench's own warm-up and measurement
/// times (set through [`Group::criterion`]): a tenth, never under
/// [`QUICK_FLOOR`]. With ten samples instead of 50-100, a sample keeps
/// about the length it has in the default run.
const QUICK_SCALE: f64 = 0.1;
const QUICK_FLOOR: Duration = Duration::from_millis(20);

/// Bootstrap resamples of Criterion's analysis. Criterion runs without its
/// thread pool (no second thread in a timed process), so its default of
/// 100,000 costs about a second of CPU per metric; only its interval of
/// the mean reads them (compare works on the raw samples).
const NRESAMPLES: usize = 20_000;
const QUICK_NRESAMPLES: usize = 5_000;

impl Preset {
    /// The preset `LMBENCH_PRESET` names (unset or empty: the default).
    /// Anything else is bad input: one line and exit status 2.
    pub fn from_env() -> Preset {
        match std::env::var("LMBENCH_PRESET").as_deref() {
            Err(_) | Ok("") | Ok("default") => Preset::Default,
            Ok("quick") => Preset::Quick,
            Ok(other) => {
                eprintln!("LMBENCH_PRESET={other:?}: use `quick` or `default`");
                std::process::exit(2)
            }
        }
    }

    fn scaled(self, d: Duration) -> Duration {
        match self {
            Preset::Default => d,
            Preset::Quick => d.mul_f64(QUICK_SCALE).max(QUICK_FLOOR),
        }
    }

    fn samples(self, n: usize) -> usize {
        match self {
            Preset::Default => n,
            Preset::Quick => QUICK_SAMPLES,
        }
    }

    fn nresamples(self, n: usize) -> usize {
        match self {
            Preset::Default => n,
            Preset::Quick => n.min(QUICK_NRESAMPLES),
        }
    }

    /// (sampling mode, samples, warm-up, measurement) of a class.
    fn class(self, class: Class) -> (SamplingMode, usize, Duration, Duration) {
        let ms = Duration::from_millis;
        match (self, class) {
            (Preset::Default, Class::Fast) => (SamplingMode::Auto, 100, ms(300), ms(1500)),
            (Preset::Default, Class::Slow) => (SamplingMode::Flat, 20, ms(500), ms(5000)),
            (Preset::Default, Class::Bandwidth) => (SamplingMode::Flat, 10, ms(300), ms(2000)),
            (Preset::Quick, Class::Fast) => (SamplingMode::Auto, QUICK_SAMPLES, ms(100), ms(300)),
            (Preset::Quick, Class::Slow) => (SamplingMode::Flat, QUICK_SAMPLES, ms(300), ms(1500)),
            (Preset::Quick, Class::Bandwidth) => {
                (SamplingMode::Flat, QUICK_SAMPLES, ms(100), ms(500))
            }
        }
    }
}

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

/// The whole of a socket round-trip bench (lat_unix, lat_udp, lat_tcp):
/// our end of `pair` talks to `lmbench-peer echo`, which owns the other;
/// each iteration writes `len` bytes (a sequence number's low bytes) and
/// reads the checked echo. A silent peer fails the bench within seconds
/// through the deadline timer armed once per timed call (`stall::Stall`,
/// as lat_pipe), not SO_RCVTIMEO: a receive timeout makes every blocking
/// receive arm and cancel a kernel timer, about 0.35 us of a 9 us pinned
/// AF_UNIX round trip here, a cost lmbench's loop does not have. A dead
/// peer gives EOF (or ECONNREFUSED for UDP).
pub fn socket_echo(
    c: &mut Criterion,
    program: &'static Program,
    metric: &'static Metric,
    pair: std::io::Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)>,
    peer_bin: &str,
    len: usize,
) {
    use crate::ipc;
    use std::os::fd::AsRawFd;

    let (ours, theirs) = check(metric, "socket pair", pair);
    let peer = check(
        metric,
        "start the echo peer",
        ipc::spawn_with_fds(peer_bin, &["echo"], &[theirs.as_raw_fd()]),
    );
    drop(theirs);
    let fd = std::os::fd::AsFd::as_fd(&ours);
    let deadline = check(metric, "deadline timer", crate::stall::Stall::new());
    let first = ipc::echo_loop(fd, fd, len, 1, Some(&deadline));
    check(metric, "untimed round trip", first);

    let mut g = Group::new(c, program, Class::Fast);
    g.bench(metric, |iters| {
        check(
            metric,
            "round trip",
            ipc::echo_loop(fd, fd, len, iters, Some(&deadline)),
        )
    });
    g.finish();
    drop(ours);
    drop(peer);
}

/// Runs `bench` with this process, and the peers it starts, bound to one
/// CPU (`child::OneCpu`), then unbinds; where that is impossible `metrics`
/// (what `bench` measures) are declared skipped. For the one-CPU rows of the local latencies: on a VM,
/// waking a peer on the other vCPU is a placement lottery (58-77 us for a
/// pipe round trip here against 4-10 us on one CPU).
pub fn on_one_cpu(
    c: &mut Criterion,
    program: &'static Program,
    metrics: &[&'static Metric],
    bench: impl FnOnce(&mut Criterion),
) {
    match crate::child::OneCpu::pin() {
        Ok(pin) => {
            bench(c);
            drop(pin);
        }
        Err(e) => {
            let mut g = Group::new(c, program, Class::Fast);
            for metric in metrics {
                g.skip(metric, format_args!("cannot bind to one CPU: {e}"));
            }
            g.finish();
        }
    }
}

/// The whole of a stream-bandwidth bench over a local pair (bw_pipe,
/// bw_unix): `lmbench-peer bw_write fd1 64K` owns the write end of `pair`
/// as its stdout and writes forever; timed, per iteration, reading
/// `bw::MOVE` bytes in reads of up to `bw::XFER` into a buffer offset 128
/// bytes from page alignment (as lmbench). A short read is fine; end of
/// stream or an error fails the bench with the metric id.
pub fn stream_read_bw(
    c: &mut Criterion,
    program: &'static Program,
    metric: &'static Metric,
    pair: std::io::Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)>,
    peer_bin: &str,
) {
    use crate::bw::{self, kernels::Buf};
    use std::os::fd::AsRawFd;

    let (rd, wr) = check(metric, "pipe or socketpair", pair);
    let chunk = bw::XFER.to_string();
    let writer = bw::spawn_writer(peer_bin, &["fd1", &chunk], Some(wr));
    let _writer = check(metric, "start writer", writer);
    let mut buf = check(metric, "buffer", Buf::new(bw::XFER + 4096, 0));
    let buf = &mut buf.as_bytes_mut()[128..128 + bw::XFER];
    let fd = rd.as_raw_fd();
    // Checked once before timing: the writer is up and delivers.
    check(metric, "untimed transfer", timed_transfer(fd, buf));

    let mut g = Group::new(c, program, Class::Bandwidth);
    g.bytes_per_iter(bw::MOVE as u64);
    g.bench(metric, |iters| timed_reads(metric, fd, buf, iters));
    g.finish();
}

/// One transfer of `bw::MOVE` bytes under the same deadline as the timed
/// ones, for the untimed check before timing.
pub fn timed_transfer(fd: std::os::fd::RawFd, buf: &mut [u8]) -> std::io::Result<()> {
    let stall = crate::stall::Stall::new()?;
    stall.arm(crate::bw::STALL);
    let r = crate::bw::read_total(fd, buf, crate::bw::MOVE);
    stall.disarm();
    r
}

/// The timed body of the stream bandwidth benches (bw_pipe, bw_unix,
/// bw_tcp): `iters` times, read `bw::MOVE` bytes from `fd`. Each iteration
/// has a deadline of `bw::STALL` (one timer_settime(2) per 10 MB), so a
/// writer that stops fails the bench with the metric id instead of hanging
/// it, with no thread and nothing added to the reads themselves.
pub fn timed_reads(
    metric: &Metric,
    fd: std::os::fd::RawFd,
    buf: &mut [u8],
    iters: u64,
) -> Duration {
    let stall = check(metric, "deadline timer", crate::stall::Stall::new());
    let t = Instant::now();
    for _ in 0..iters {
        stall.arm(crate::bw::STALL);
        if let Err(e) = crate::bw::read_total(fd, buf, crate::bw::MOVE) {
            stall.disarm();
            failed(metric, e);
        }
    }
    let took = t.elapsed();
    stall.disarm();
    took
}

/// Benches `metric` as `verb N arg` requests to a peer that times its own
/// N operations (lat_proc, lat_spawn): one untimed request first, so a
/// failure is reported before timing; the peer's nanoseconds are the
/// sample (the request's formatting is outside its clock).
pub fn bench_peer_op(
    g: &mut Group,
    peer: &mut crate::child::Peer,
    metric: &'static Metric,
    verb: &str,
    arg: &str,
) {
    let request = |n: u64| format!("{verb} {n} {arg}");
    check(
        metric,
        "one untimed creation",
        peer.call_timed(&request(1), 1),
    );
    bench_peer_requests(g, peer, metric, request);
}

/// Benches `metric` as requests `request(N)` to a peer that times its own
/// N operations and replies their nanoseconds: the sample.
pub fn bench_peer_requests(
    g: &mut Group,
    peer: &mut crate::child::Peer,
    metric: &'static Metric,
    request: impl Fn(u64) -> String,
) {
    g.bench(metric, |iters| {
        let ns = check(metric, "peer", peer.call_timed(&request(iters), iters));
        Duration::from_nanos(ns)
    });
}

/// Benches `metric` as `run N` requests to a peer that times its own N
/// operations (lat_wake, line), after one untimed `run 1`. A peer that
/// cannot measure here (its replies start with [`crate::peer::UNAVAILABLE`])
/// skips the metric with its reason; any other error fails it.
pub fn bench_peer_runs(g: &mut Group, peer: &mut crate::child::Peer, metric: &'static Metric) {
    // A first request is quick; a peer silent this long is stuck.
    match peer.call("run 1", Duration::from_secs(10)) {
        Ok(_) => {}
        Err(e) if e.to_string().contains(crate::peer::UNAVAILABLE) => {
            g.skip(metric, e);
            return;
        }
        Err(e) => failed(metric, format_args!("untimed request: {e}")),
    }
    bench_peer_requests(g, peer, metric, |n| format!("run {n}"));
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
