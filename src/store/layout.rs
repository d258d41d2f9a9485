//! Names and the layout of `results/`: where saved runs live, what a
//! machine or label may be called, a run's directory and its profiles,
//! and the checks before anything is written there.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use crate::run::{Origin, Run};
use crate::workspace;

/// Where saved runs live.
pub fn results_root() -> PathBuf {
    match std::env::var_os("LMBENCH_RESULTS") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => workspace::root().join("results"),
    }
}

/// Machine names and labels become directory names: `[A-Za-z0-9._-]`, at
/// most 64 characters, starting with a letter or digit.
pub fn check_name(what: &str, s: &str) -> Result<()> {
    let ok = !s.is_empty()
        && s.len() <= 64
        && s.as_bytes()[0].is_ascii_alphanumeric()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if !ok {
        bail!("bad {what} {s:?}: use 1-64 of [A-Za-z0-9._-], starting with a letter or digit");
    }
    Ok(())
}

/// `s` (a host name) as a machine directory name that [`check_name`]
/// takes: other characters become '_', at most 64 are kept, and one not
/// starting with a letter or digit gets an `x` in front.
pub fn to_name(s: &str) -> String {
    let mut name: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        name.insert(0, 'x');
        name.truncate(64);
    }
    name
}

/// The directory run `label` of `machine` is saved in under `root`.
pub fn run_dir(root: &Path, machine: &str, label: &str) -> PathBuf {
    root.join(machine).join(label)
}

/// Refuses a results directory that exists but is not a directory.
pub fn check_root(root: &Path) -> Result<()> {
    if root.exists() && !root.is_dir() {
        bail!("results directory {} is not a directory", root.display());
    }
    Ok(())
}

/// Refuses to write over the saved run at `dest` unless `force`.
pub fn check_free(dest: &Path, force: bool) -> Result<()> {
    if dest.exists() && !force {
        bail!(
            "{} already exists: choose another label or pass --force to replace it",
            dest.display()
        );
    }
    Ok(())
}

/// The file name a metric's folded stacks are saved under.
pub fn profile_file_name(metric_id: &str) -> String {
    format!("{}.folded", metric_id.replace('/', "__"))
}

/// The saved folded stacks of `metric_id` in a saved run, if it has them
/// (for `lmbench profile --vs RUN`).
pub fn saved_profile(run: &Run, metric_id: &str) -> Option<PathBuf> {
    let Origin::Saved { dir, .. } = &run.origin else {
        return None;
    };
    let p = dir.join("profiles").join(profile_file_name(metric_id));
    p.is_file().then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_restricted() {
        for ok in ["vm", "before-6.8", "a_1", "X.Y"] {
            assert!(check_name("label", ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            ".",
            "..",
            "a/b",
            "-x",
            "a b",
            ".hidden",
            &"x".repeat(65),
        ] {
            assert!(check_name("label", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn hosts_become_directory_names() {
        assert_eq!(to_name("pmax-G 0"), "pmax-G_0");
        assert_eq!(to_name("ds20"), "ds20");
        assert_eq!(to_name(".hidden"), "x.hidden");
        assert!(check_name("machine", &to_name(&"é".repeat(80))).is_ok());
    }

    #[test]
    fn profile_names_flatten_ids() {
        assert_eq!(
            profile_file_name("lat_fs/create/10k"),
            "lat_fs__create__10k.folded"
        );
    }
}
