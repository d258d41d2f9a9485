//! Where the lmbench-rs workspace is: the directory `cargo bench` runs in.

use std::path::{Path, PathBuf};

/// The variable that names the workspace, for a binary installed away from
/// its checkout and run from elsewhere.
pub const ENV: &str = "LMBENCH_WORKSPACE";

/// The workspace root: `$LMBENCH_WORKSPACE`, else the nearest ancestor of
/// the current directory whose Cargo.toml declares the `lmbench` package,
/// else the source tree this binary was built from (so `cargo install
/// --path .` gives a tool that finds its checkout while it stays there).
pub fn root() -> PathBuf {
    if let Some(dir) = from_env() {
        return dir;
    }
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
    lmbench_support::target_dir::target_dir(default_target_dir)
}

/// The target directory without `$CARGO_TARGET_DIR`: `target/` of the
/// workspace root.
pub fn default_target_dir() -> PathBuf {
    root().join("target")
}

/// `$LMBENCH_WORKSPACE`, when set and not empty.
fn from_env() -> Option<PathBuf> {
    std::env::var_os(ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Refuses a `$LMBENCH_WORKSPACE` that is not an lmbench-rs checkout, before
/// any command uses it.
pub fn check_env() -> anyhow::Result<()> {
    match from_env() {
        Some(dir) if !is_root(&dir) => anyhow::bail!(
            "{ENV}={}: not an lmbench-rs checkout (no Cargo.toml of the lmbench workspace there); point it at the checkout or unset it",
            dir.display()
        ),
        _ => Ok(()),
    }
}

fn is_root(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("Cargo.toml"))
        .map(|t| t.contains("[workspace]") && t.contains("name = \"lmbench\""))
        .unwrap_or(false)
}
