//! Which profiler runs, and why, in one line the user sees.
//!
//! perf where it is installed and may see the kernel (most of what lmbench
//! measures is kernel time), else pprof (user-space stacks of the bench
//! process only). `LMBENCH_PROFILER=perf|pprof` chooses. The decision is a
//! pure function of [`Facts`], so it is tested without perf.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The environment variable that chooses the profiler.
pub const ENV: &str = "LMBENCH_PROFILER";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `perf record` of the bench and its peers, kernel stacks included.
    Perf,
    /// pprof's in-process SIGPROF sampler: user-space stacks only.
    Pprof,
}

impl Kind {
    /// The file stem of the profile's outputs (`perf.folded`, `pprof.svg`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Perf => "perf",
            Kind::Pprof => "pprof",
        }
    }
}

/// What the choice depends on, gathered by [`Facts::probe`].
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// perf's path, if it is on PATH.
    pub perf: Option<PathBuf>,
    /// Whether a trial `perf record` worked (`Err` holds its complaint);
    /// `None` if not tried.
    pub perf_runs: Option<Result<(), String>>,
    /// Effective uid 0: perf_event_paranoid does not apply.
    pub root: bool,
    /// /proc/sys/kernel/perf_event_paranoid.
    pub paranoid: Option<i32>,
    /// /proc/sys/kernel/kptr_restrict.
    pub kptr_restrict: Option<i32>,
}

/// The profiler to run and the one line saying why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub kind: Kind,
    pub why: String,
}

impl Choice {
    /// The notice printed before profiling.
    pub fn notice(&self) -> String {
        let what = match self.kind {
            Kind::Perf => "perf (kernel-inclusive, the bench and its peer processes)",
            Kind::Pprof => "pprof (in-process, user-space stacks of the bench process only)",
        };
        format!("lmbench: profiler: {what}: {}", self.why)
    }
}

/// Decides from the value of `LMBENCH_PROFILER` (if set) and the facts.
/// An unknown value, or perf asked for but missing, is an error.
pub fn choose(env: Option<&str>, f: &Facts) -> Result<Choice, String> {
    let kernel_symbols = match (f.kptr_restrict, f.root) {
        (Some(2), _) | (Some(1), false) => format!(
            "; kernel symbols are hidden (kptr_restrict={}): kernel frames will be addresses",
            f.kptr_restrict.unwrap_or_default()
        ),
        _ => String::new(),
    };
    match env.map(str::trim) {
        Some("pprof") => {
            return Ok(Choice {
                kind: Kind::Pprof,
                why: format!("chosen by {ENV}=pprof"),
            })
        }
        Some("perf") => {
            return match &f.perf {
                Some(p) => Ok(Choice {
                    kind: Kind::Perf,
                    why: format!("chosen by {ENV}=perf ({}){kernel_symbols}", p.display()),
                }),
                None => Err(format!("{ENV}=perf but no `perf` on PATH")),
            };
        }
        Some("") | None => {}
        Some(other) => return Err(format!("{ENV}={other:?}: expected `perf` or `pprof`")),
    }
    let pprof = |why: String| {
        Ok(Choice {
            kind: Kind::Pprof,
            why: format!("{why} ({ENV}=perf to try perf anyway)"),
        })
    };
    let Some(perf) = &f.perf else {
        return Ok(Choice {
            kind: Kind::Pprof,
            why: "no `perf` on PATH (install linux-perf or linux-tools for kernel stacks)"
                .to_string(),
        });
    };
    if let (false, Some(p)) = (f.root, f.paranoid) {
        if p > 1 {
            return pprof(format!(
                "perf_event_paranoid={p} hides kernel samples from non-root users (needs <= 1, or root)"
            ));
        }
    }
    if let Some(Err(e)) = &f.perf_runs {
        return pprof(format!("a trial `perf record` failed: {e}"));
    }
    let who = if f.root {
        "root".to_string()
    } else {
        format!("perf_event_paranoid={}", f.paranoid.unwrap_or(-1))
    };
    Ok(Choice {
        kind: Kind::Perf,
        why: format!("{} found, {who}{kernel_symbols}", perf.display()),
    })
}

/// `name` in the directories of `path` (a PATH value), if executable there.
pub fn find_on_path(name: &str, path: &OsStr) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p)
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

fn read_int(path: &str) -> Option<i32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

impl Facts {
    /// Looks at this machine: perf on PATH, our uid, the two sysctls, and
    /// (only if perf is there) whether a one-shot `perf record` works
    /// (perf may be installed but refused by seccomp, or be a wrapper that
    /// has no build for the running kernel).
    pub fn probe() -> Facts {
        let perf = if cfg!(target_os = "linux") {
            std::env::var_os("PATH").and_then(|p| find_on_path("perf", &p))
        } else {
            None
        };
        let perf_runs = perf.as_deref().map(trial_record);
        Facts {
            perf,
            perf_runs,
            root: nix::unistd::geteuid().is_root(),
            paranoid: read_int("/proc/sys/kernel/perf_event_paranoid"),
            kptr_restrict: read_int("/proc/sys/kernel/kptr_restrict"),
        }
    }
}

fn trial_record(perf: &Path) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| format!("temp dir: {e}"))?;
    let out = std::process::Command::new(perf)
        .args(["record", "-q", "-o"])
        .arg(dir.path().join("trial.data"))
        .args(["--", "true"])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("running {}: {e}", perf.display()))?;
    if out.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    Err(format!("{} ({line})", out.status))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> Facts {
        Facts {
            perf: Some(PathBuf::from("/usr/bin/perf")),
            perf_runs: Some(Ok(())),
            root: true,
            paranoid: Some(2),
            kptr_restrict: Some(0),
        }
    }

    #[test]
    fn perf_for_root_even_with_paranoid_2() {
        let c = choose(None, &facts()).unwrap();
        assert_eq!(c.kind, Kind::Perf);
        assert!(
            c.notice().contains("perf (kernel-inclusive"),
            "{}",
            c.notice()
        );
    }

    #[test]
    fn pprof_without_perf_says_why() {
        let f = Facts {
            perf: None,
            perf_runs: None,
            ..facts()
        };
        let c = choose(None, &f).unwrap();
        assert_eq!(c.kind, Kind::Pprof);
        assert!(c.why.contains("no `perf` on PATH"), "{}", c.why);
    }

    #[test]
    fn pprof_for_non_root_when_paranoid() {
        let f = Facts {
            root: false,
            ..facts()
        };
        let c = choose(None, &f).unwrap();
        assert_eq!(c.kind, Kind::Pprof);
        assert!(c.why.contains("perf_event_paranoid=2"), "{}", c.why);
        let f = Facts {
            root: false,
            paranoid: Some(1),
            ..facts()
        };
        assert_eq!(choose(None, &f).unwrap().kind, Kind::Perf);
    }

    #[test]
    fn pprof_when_trial_record_fails() {
        let f = Facts {
            perf_runs: Some(Err("exit status: 255 (no permission)".into())),
            ..facts()
        };
        let c = choose(None, &f).unwrap();
        assert_eq!(c.kind, Kind::Pprof);
        assert!(c.why.contains("trial"), "{}", c.why);
    }

    #[test]
    fn env_overrides() {
        assert_eq!(choose(Some("pprof"), &facts()).unwrap().kind, Kind::Pprof);
        let no_perf = Facts {
            perf: None,
            ..facts()
        };
        assert_eq!(choose(Some("pprof"), &no_perf).unwrap().kind, Kind::Pprof);
        assert!(choose(Some("perf"), &no_perf)
            .unwrap_err()
            .contains("no `perf`"));
        let broken = Facts {
            perf_runs: Some(Err("x".into())),
            ..facts()
        };
        assert_eq!(choose(Some("perf"), &broken).unwrap().kind, Kind::Perf);
        assert!(choose(Some("gprof"), &facts())
            .unwrap_err()
            .contains("expected `perf` or `pprof`"));
        assert_eq!(choose(Some(""), &facts()).unwrap().kind, Kind::Perf);
    }

    #[test]
    fn hidden_kernel_symbols_are_mentioned() {
        let f = Facts {
            kptr_restrict: Some(2),
            ..facts()
        };
        let c = choose(None, &f).unwrap();
        assert_eq!(c.kind, Kind::Perf);
        assert!(c.why.contains("kptr_restrict=2"), "{}", c.why);
    }

    #[test]
    fn finds_executables_on_a_path() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("perf");
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        let path = std::env::join_paths([dir.path()]).unwrap();
        assert_eq!(find_on_path("perf", &path), None, "not executable yet");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
            assert_eq!(find_on_path("perf", &path), Some(exe));
        }
        assert_eq!(find_on_path("perf", OsStr::new("")), None);
    }
}
