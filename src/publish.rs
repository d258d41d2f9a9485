//! Publishing a run directory: a saved run's whole directory put in place
//! so that a reader, a crash or a second writer only ever sees the old run
//! or the new one, complete. (One file written whole is
//! `lmbench_support::atomic_file`.)
//!
//! The run is written into `.tmp-<label>-<pid>` beside its destination,
//! each file and the directory synced, then moved into place by one
//! rename(2): onto a free name, or (`--force`) exchanged with the old run
//! by renameat2(RENAME_EXCHANGE) on Linux, after which the old run sits at
//! the temporary name and is deleted. A process killed at any point leaves
//! at most a hidden `.tmp-*`/`.old-*` directory, which readers skip and the
//! next save of that machine removes once its pid is gone.
//!
//! `LMBENCH_CRASH_AT=N[:KILL|:INT]` (a test hook) makes this process kill itself
//! with SIGKILL (or SIGINT) at the Nth crash point of a save: tests walk N
//! through every point (tests/survival.rs).

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use anyhow::{Context, Result};

/// Prefixes of the hidden directories a save works in.
const TMP: &str = ".tmp-";
const OLD: &str = ".old-";

/// The temporary directory a save by this process writes `label` into.
pub fn tmp_dir(machine_dir: &Path, label: &str) -> std::path::PathBuf {
    machine_dir.join(format!("{TMP}{label}-{}", std::process::id()))
}

/// A point where a save may be interrupted; see the module doc.
pub fn crash_point() {
    static TARGET: std::sync::OnceLock<Option<(u32, libc::c_int)>> = std::sync::OnceLock::new();
    static SEEN: AtomicU32 = AtomicU32::new(0);
    let target = TARGET.get_or_init(|| {
        let v = std::env::var("LMBENCH_CRASH_AT").ok()?;
        let (n, sig) = match v.split_once(':') {
            Some((n, "INT")) => (n, libc::SIGINT),
            Some((n, _)) => (n, libc::SIGKILL),
            None => (v.as_str(), libc::SIGKILL),
        };
        Some((n.parse().ok()?, sig))
    });
    if let Some((n, sig)) = *target {
        if SEEN.fetch_add(1, Ordering::Relaxed) + 1 == n {
            if let Ok(sig) = nix::sys::signal::Signal::try_from(sig) {
                let _ = nix::sys::signal::raise(sig);
            }
        }
    }
}

/// Writes `bytes` to a new file at `path` and syncs it, with crash points
/// between creating, half-writing, writing and syncing.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let what = || format!("cannot write {}", path.display());
    let mut f = fs::File::create(path).with_context(what)?;
    crash_point();
    let half = bytes.len() / 2;
    f.write_all(&bytes[..half]).with_context(what)?;
    crash_point();
    f.write_all(&bytes[half..]).with_context(what)?;
    crash_point();
    f.sync_all().with_context(what)?;
    crash_point();
    Ok(())
}

/// fsync(2) of a directory: its entries (a new file, a rename) survive a
/// power cut. Best effort: some file systems refuse to sync a directory.
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Moves the complete directory `tmp` to `dest`: onto a free name, or with
/// `replace` in place of the existing `dest`. On error `tmp` is removed
/// and `dest` is as it was.
pub fn publish(tmp: &Path, dest: &Path, replace: bool) -> Result<()> {
    sync_dir(tmp);
    crash_point();
    let r = if replace && dest.exists() {
        exchange(tmp, dest)
    } else {
        fs::rename(tmp, dest).with_context(|| format!("cannot create {}", dest.display()))
    };
    if let Err(e) = r {
        let _ = fs::remove_dir_all(tmp);
        return Err(e);
    }
    crash_point();
    if let Some(parent) = dest.parent() {
        sync_dir(parent);
    }
    // After an exchange `tmp` holds the old run; else it is gone already.
    let _ = fs::remove_dir_all(tmp);
    crash_point();
    Ok(())
}

/// Swaps `tmp` (the new run) and `dest` (the old) in one step where the
/// kernel can; else moves the old aside first (a moment without `dest`).
fn exchange(tmp: &Path, dest: &Path) -> Result<()> {
    // nix has renameat2 for glibc only.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use nix::errno::Errno;
        use nix::fcntl::{renameat2, RenameFlags, AT_FDCWD};
        match renameat2(AT_FDCWD, tmp, AT_FDCWD, dest, RenameFlags::RENAME_EXCHANGE) {
            Ok(()) => return Ok(()),
            // A file system or kernel without RENAME_EXCHANGE.
            Err(Errno::EINVAL | Errno::ENOSYS) => {}
            Err(e) => {
                return Err(e).with_context(|| format!("cannot replace {}", dest.display()));
            }
        }
    }
    let name = dest
        .file_name()
        .map_or("run".into(), |n| n.to_string_lossy());
    let old = dest.with_file_name(format!("{OLD}{name}-{}", std::process::id()));
    fs::rename(dest, &old).with_context(|| format!("cannot replace {}", dest.display()))?;
    crash_point();
    if let Err(e) = fs::rename(tmp, dest) {
        let _ = fs::rename(&old, dest);
        return Err(e).with_context(|| format!("cannot replace {}", dest.display()));
    }
    // `publish` removes `tmp`, which no longer exists; the old run goes here.
    let _ = fs::remove_dir_all(&old);
    Ok(())
}

/// Removes the hidden work directories of saves whose process is gone
/// (killed mid-save). Returns how many were removed.
pub fn sweep_stale(machine_dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(machine_dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(TMP).or_else(|| name.strip_prefix(OLD)) else {
            continue;
        };
        let Some(pid) = rest
            .rsplit_once('-')
            .and_then(|(_, p)| p.parse::<libc::pid_t>().ok())
            .filter(|&p| p > 0)
        else {
            continue;
        };
        // Signal 0 only checks that the pid exists.
        let alive = matches!(
            nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None),
            Ok(()) | Err(nix::errno::Errno::EPERM)
        );
        if !alive && fs::remove_dir_all(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publish_replaces_in_one_step_and_leaves_nothing() {
        let root = tempfile::tempdir().unwrap();
        let dest = root.path().join("label");
        fs::create_dir(&dest).unwrap();
        fs::write(dest.join("run.json"), "old").unwrap();
        let tmp = tmp_dir(root.path(), "label");
        fs::create_dir(&tmp).unwrap();
        write_file(&tmp.join("run.json"), b"new").unwrap();
        publish(&tmp, &dest, true).unwrap();
        assert_eq!(fs::read_to_string(dest.join("run.json")).unwrap(), "new");
        let names: Vec<_> = fs::read_dir(root.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1, "only the run is left");
        // Without `replace`, an existing run is kept and the new one dropped.
        fs::create_dir(&tmp).unwrap();
        fs::create_dir(tmp.join("x")).unwrap();
        assert!(publish(&tmp, &dest, false).is_err());
        assert!(!tmp.exists());
        assert_eq!(fs::read_to_string(dest.join("run.json")).unwrap(), "new");
    }

    #[test]
    fn stale_work_dirs_of_dead_savers_are_swept() {
        let root = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let me = std::process::id();
        for name in [
            format!(".tmp-a-b-{dead}"),
            format!(".old-a-{dead}"),
            format!(".tmp-a-{me}"),
            "label".to_string(),
            ".tmp-x".to_string(),
        ] {
            fs::create_dir(root.path().join(name)).unwrap();
        }
        assert_eq!(sweep_stale(root.path()), 2);
        let mut left: Vec<_> = fs::read_dir(root.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                ".tmp-a-".to_string() + &me.to_string(),
                ".tmp-x".into(),
                "label".into()
            ]
        );
    }
}
