//! The Criterion configuration and the presets: how many samples, how
//! long a warm-up and a measurement each class of metric gets, in the
//! default and the quick preset (`LMBENCH_PRESET`).

use std::time::Duration;

use criterion::{Criterion, PlottingBackend, SamplingMode};

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
pub(super) const QUICK_SCALE: f64 = 0.1;
pub(super) const QUICK_FLOOR: Duration = Duration::from_millis(20);

/// Bootstrap resamples of Criterion's analysis. Criterion runs without its
/// thread pool (no second thread in a timed process), so its default of
/// 100,000 costs about a second of CPU per metric; only its interval of
/// the mean reads them (compare works on the raw samples).
pub(super) const NRESAMPLES: usize = 20_000;
pub(super) const QUICK_NRESAMPLES: usize = 5_000;

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

    pub(super) fn scaled(self, d: Duration) -> Duration {
        match self {
            Preset::Default => d,
            Preset::Quick => d.mul_f64(QUICK_SCALE).max(QUICK_FLOOR),
        }
    }

    pub(super) fn samples(self, n: usize) -> usize {
        match self {
            Preset::Default => n,
            Preset::Quick => QUICK_SAMPLES,
        }
    }

    pub(super) fn nresamples(self, n: usize) -> usize {
        match self {
            Preset::Default => n,
            Preset::Quick => n.min(QUICK_NRESAMPLES),
        }
    }

    /// (sampling mode, samples, warm-up, measurement) of a class.
    pub(super) fn class(self, class: Class) -> (SamplingMode, usize, Duration, Duration) {
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
