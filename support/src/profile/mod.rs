//! Profiling a slow path: where a metric's time goes, kernel included.
//!
//! - [`select`]: which profiler runs (perf or pprof) and the one-line notice.
//! - [`flame`]: folded stacks, flamegraph and differential SVGs (inferno),
//!   the top frames as text.
//! - [`perf`] (Linux): `perf record` arguments, its control FIFOs, folding
//!   its data.
//! - [`profiler`] (feature `harness`, Linux): the Criterion `Profiler`
//!   plugged into `harness::config()`.
//!
//! Criterion calls a profiler only under `--profile-time`, which takes no
//! measurements: profiling never touches a reported figure.

pub mod flame;
#[cfg(target_os = "linux")]
pub mod perf;
#[cfg(all(feature = "harness", target_os = "linux"))]
pub mod profiler;
pub mod select;

/// The profiler `harness::config()` installs: perf or pprof on Linux,
/// none elsewhere.
#[cfg(feature = "harness")]
pub fn criterion_profiler() -> impl criterion::profiler::Profiler {
    #[cfg(target_os = "linux")]
    return profiler::Auto::default();
    #[cfg(not(target_os = "linux"))]
    return criterion::profiler::ExternalProfiler;
}
