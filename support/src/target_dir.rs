//! Where cargo builds and Criterion writes: the one rule for cargo's target
//! directory and Criterion's output directory ("home"), shared by the
//! benches (which must find what Criterion in the same process writes) and
//! the CLI (which reads it and builds the benches). Callers differ only in
//! the target directory they fall back on.

use std::path::PathBuf;

/// Cargo's target directory: `$CARGO_TARGET_DIR` when set and not empty
/// (cargo refuses an empty one, so no bench it runs sees one), else
/// `fallback()`.
pub fn target_dir(fallback: impl FnOnce() -> PathBuf) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(t) if !t.is_empty() => PathBuf::from(t),
        _ => fallback(),
    }
}

/// Criterion's home, in the order Criterion itself looks:
/// `$CRITERION_HOME` when set, else `criterion/` of the [`target_dir`]
/// (`fallback_target()` when `$CARGO_TARGET_DIR` is not set).
pub fn criterion_home(fallback_target: impl FnOnce() -> PathBuf) -> PathBuf {
    match std::env::var_os("CRITERION_HOME") {
        Some(h) => PathBuf::from(h),
        None => target_dir(fallback_target).join("criterion"),
    }
}
