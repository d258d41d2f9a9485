//! Advisory locks (flock(2)) that keep two lmbench processes from
//! interleaving their work: one `lmbench run` (or `profile`) per checkout,
//! since two would share the CPU and write the same Criterion files; and
//! one writer per machine directory of saved runs (the directory itself is
//! locked, so nothing is added to what users commit), so two `save`s of one
//! label cannot both pass the "label is free" check. A lock dies with its
//! process (the kernel drops it on close), so a killed run never leaves a
//! stale lock behind. A lock file holds its holder's pid, for the message.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};

/// A held lock; released when dropped (or when the process dies).
#[derive(Debug)]
pub struct Lock {
    _file: Flock<File>,
    pub path: PathBuf,
}

/// Why a lock was not taken.
pub enum Busy {
    /// Held by another process: its pid, if it wrote one.
    Held(Option<u32>),
}

impl Lock {
    /// Takes the lock at `path` if it is free now: a lock file (created if
    /// missing, our pid written in it) or an existing directory, locked as
    /// itself so nothing is added to it (a results directory is committed).
    pub fn try_acquire(path: &Path) -> Result<std::result::Result<Lock, Busy>> {
        let is_dir = path.is_dir();
        let file = if is_dir {
            File::open(path)
        } else {
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(path)
        }
        .with_context(|| format!("cannot open lock {}", path.display()))?;
        let mut file = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(locked) => locked,
            Err((mut file, Errno::EWOULDBLOCK)) => {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                return Ok(Err(Busy::Held(text.trim().parse().ok())));
            }
            Err((_, e)) => {
                return Err(e).with_context(|| format!("cannot lock {}", path.display()));
            }
        };
        // Ours now: say who holds it.
        if !is_dir {
            let _ = file.set_len(0);
            let _ = file.rewind();
            let _ = write!(file, "{}", std::process::id());
        }
        Ok(Ok(Lock {
            _file: file,
            path: path.to_path_buf(),
        }))
    }

    /// Takes the lock, waiting up to `patience` for its holder to finish;
    /// after that the error says who holds it (`what`: the holder's work).
    pub fn acquire(path: &Path, patience: Duration, what: &str) -> Result<Lock> {
        let deadline = Instant::now() + patience;
        loop {
            match Lock::try_acquire(path)? {
                Ok(lock) => return Ok(lock),
                Err(Busy::Held(pid)) if Instant::now() >= deadline => {
                    bail!("{} (lock {})", held_by(what, pid), path.display())
                }
                Err(Busy::Held(_)) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    }
}

/// "another lmbench run (pid 123) is running".
pub fn held_by(what: &str, pid: Option<u32>) -> String {
    match pid {
        Some(p) => format!("{what} (pid {p}) is running"),
        None => format!("{what} is running"),
    }
}

/// The suite's working directory, `<target>/lmbench/`: the run lock, the
/// run's log, the kernels' cache and console (not a saved run: those
/// are `store::run_dir`, under results/).
pub fn work_dir() -> PathBuf {
    crate::workspace::target_dir().join("lmbench")
}

/// The lock of `lmbench run` and `profile` in this checkout, beside their
/// log in `<target>/lmbench/`.
pub fn run_lock_path(log_dir: &Path) -> PathBuf {
    log_dir.join("run.lock")
}

/// Refuses to go on while a run holds this checkout's run lock (for
/// `lmbench save`: the live results are still being written); else holds
/// the lock shared, so saves go on side by side but no run starts until
/// they are done.
pub fn refuse_during_run() -> Result<Option<Flock<File>>> {
    let path = run_lock_path(&work_dir());
    if !path.exists() {
        return Ok(None);
    }
    let file = File::open(&path).with_context(|| format!("cannot open lock {}", path.display()))?;
    let mut file = match Flock::lock(file, FlockArg::LockSharedNonblock) {
        Ok(locked) => return Ok(Some(locked)),
        Err((file, _)) => file,
    };
    let mut text = String::new();
    let _ = file.read_to_string(&mut text);
    let pid = text.trim().parse().ok();
    bail!(
        "{} in this checkout (lock {}): save when it has finished, or use `lmbench run --save LABEL`",
        held_by("`lmbench run` or `lmbench profile`", pid),
        path.display()
    )
}

/// Takes this checkout's run lock, or refuses at once with one line
/// saying which process holds it.
pub fn lock_run(log_dir: &Path) -> Result<Lock> {
    std::fs::create_dir_all(log_dir).with_context(|| format!("creating {}", log_dir.display()))?;
    let path = run_lock_path(log_dir);
    match Lock::try_acquire(&path)? {
        Ok(lock) => Ok(lock),
        Err(Busy::Held(pid)) => bail!(
            "{} in this checkout (lock {}): wait for it to finish; two runs at once would share the CPU and mix their results",
            held_by("another `lmbench run` or `lmbench profile`", pid),
            path.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_until_the_first_drops() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock_run(dir.path()).unwrap();
        let err = lock_run(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains(&format!("(pid {})", std::process::id())),
            "{err}"
        );
        assert!(err.contains("run.lock"), "{err}");
        let err = Lock::acquire(&first.path, Duration::from_millis(50), "a save")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("a save (pid "), "{err}");
        drop(first);
        lock_run(dir.path()).unwrap();
        // A directory is locked as itself: nothing is created in it.
        let d = dir.path().join("vm");
        std::fs::create_dir(&d).unwrap();
        let held = Lock::acquire(&d, Duration::ZERO, "a save").unwrap();
        let err = Lock::acquire(&d, Duration::from_millis(30), "a save").unwrap_err();
        assert!(err.to_string().starts_with("a save is running"), "{err}");
        drop(held);
        Lock::acquire(&d, Duration::ZERO, "a save").unwrap();
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0);
    }
}
