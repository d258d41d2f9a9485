//! The leak check of every bench process: the descriptors it has open and
//! the child processes it has when its first group starts are the same
//! when it exits. Peers, scratch files, sockets and pipes are held by
//! guards that close, kill and reap on drop; this proves the guards were
//! dropped on every path, for every group.
//!
//! On in Criterion's test mode (`cargo test --benches`, so `.ci/run` checks
//! every group each time) and with `LMBENCH_CHECK_LEAKS=1`. A leak ends the
//! process with status 1 and one line naming each descriptor (and what it
//! points to) and each child left over. Linux only (it reads /proc).

use std::collections::BTreeMap;

/// What a process holds: open fds (number → what it points to) and
/// children (pids).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Held {
    pub fds: BTreeMap<i32, String>,
    pub children: Vec<u32>,
}

impl Held {
    /// This process's fds and children now (empty where /proc is absent).
    pub fn now() -> Held {
        let mut fds = BTreeMap::new();
        if let Ok(dir) = std::fs::read_dir("/proc/self/fd") {
            for e in dir.flatten() {
                let Ok(fd) = e.file_name().to_string_lossy().parse::<i32>() else {
                    continue;
                };
                let target = std::fs::read_link(e.path())
                    .map(|p| p.display().to_string())
                    .unwrap_or_default();
                fds.insert(fd, target);
            }
        }
        // The directory stream of the listing itself is open while we read.
        fds.retain(|_, t| !(t.starts_with("/proc/") && t.ends_with("/fd")));
        let mut children = Vec::new();
        if let Ok(tasks) = std::fs::read_dir("/proc/self/task") {
            for t in tasks.flatten() {
                let list = std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
                children.extend(
                    list.split_whitespace()
                        .filter_map(|p| p.parse::<u32>().ok()),
                );
            }
        }
        children.sort_unstable();
        Held { fds, children }
    }

    /// What `later` holds that `self` did not, as one line; `None` if
    /// nothing. An fd number reused for another file counts as a leak too.
    pub fn leaked_since(&self, later: &Held) -> Option<String> {
        let fds: Vec<String> = later
            .fds
            .iter()
            .filter(|(fd, t)| self.fds.get(fd) != Some(t))
            .map(|(fd, t)| format!("{fd} -> {t}"))
            .collect();
        let children: Vec<String> = later
            .children
            .iter()
            .filter(|c| !self.children.contains(c))
            .map(|c| c.to_string())
            .collect();
        if fds.is_empty() && children.is_empty() {
            return None;
        }
        Some(format!(
            "fds left open: [{}]; children left: [{}]",
            fds.join(", "),
            children.join(", ")
        ))
    }
}

static START: std::sync::OnceLock<Held> = std::sync::OnceLock::new();

/// Records what this process holds now and, at its exit, fails it if it
/// holds more (see the module doc). Called by `harness::config()` before
/// the first group; later calls do nothing.
pub fn check_at_exit() {
    #[cfg(target_os = "linux")]
    {
        let on =
            std::env::var_os("LMBENCH_CHECK_LEAKS").is_some_and(|v| v == "1") || test_mode_args();
        if !on || START.get().is_some() {
            return;
        }
        let _ = START.set(Held::now());
        extern "C" fn at_exit() {
            let Some(start) = START.get() else { return };
            if let Some(leak) = start.leaked_since(&Held::now()) {
                let exe = std::env::args().next().unwrap_or_default();
                eprintln!("lmbench: leak check failed in {exe}: {leak}");
                // SAFETY: _exit ends the process at once; nothing after it runs.
                unsafe { libc::_exit(1) };
            }
        }
        // SAFETY: registers a plain extern "C" function with no arguments.
        unsafe { libc::atexit(at_exit) };
    }
}

/// Criterion's test mode, read from the arguments as `harness::test_mode`
/// does (kept here so this module needs no Criterion).
fn test_mode_args() -> bool {
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_new_fd_and_a_new_child_are_leaks_until_closed_and_reaped() {
        // A file of this test's own: other tests of this binary, running
        // in parallel threads, open /proc files of their own.
        let own = tempfile::NamedTempFile::new().unwrap();
        let name = own
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let before = Held::now();
        let f = std::fs::File::open(own.path()).unwrap();
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let during = Held::now();
        let leak = before.leaked_since(&during).expect("a leak");
        assert!(leak.contains(&name), "{leak}");
        assert!(leak.contains(&child.id().to_string()), "{leak}");
        drop(f);
        child.kill().unwrap();
        child.wait().unwrap();
        // Other tests of this binary run in parallel threads and may hold
        // fds of their own now: only ours must be gone.
        let after = Held::now();
        let still = before.leaked_since(&after).unwrap_or_default();
        assert!(!still.contains(&name), "{still}");
        assert!(!after.children.contains(&child.id()), "{still}");
    }
}
