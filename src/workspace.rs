//! Where the lmbench-rs workspace is: the directory `cargo bench` runs in.

use std::path::{Path, PathBuf};

/// The workspace root: the nearest ancestor of the current directory whose
/// Cargo.toml declares the `lmbench` package, else the source tree this
/// binary was built from.
pub fn root() -> PathBuf {
    if let Ok(cwd) = std::env::current_dir() {
        for dir in cwd.ancestors() {
            if is_root(dir) {
                return dir.to_path_buf();
            }
        }
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Cargo's target directory for this workspace: `$CARGO_TARGET_DIR`, else
/// `target/` of the workspace root. Criterion's results, the run log and
/// lock, and the plots live under it.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(t) if !t.is_empty() => PathBuf::from(t),
        _ => root().join("target"),
    }
}

fn is_root(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("Cargo.toml"))
        .map(|t| t.contains("[workspace]") && t.contains("name = \"lmbench\""))
        .unwrap_or(false)
}
