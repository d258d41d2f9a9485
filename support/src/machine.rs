//! Machine facts: what explains a difference between two runs (kernel,
//! CPU, caches, clocksource, THP...). Every fact is a string keyed by a
//! stable name; a fact the machine does not expose is recorded as absent
//! (`None`), never an error.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The fact naming the remote peer a run's remote metrics were measured
/// against (set by the run that measured them, read by the report).
pub const REMOTE_PEER: &str = "remote_peer";

/// Machine facts by key. Keys are stable: saved runs and comparisons use them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Facts(pub BTreeMap<String, Option<String>>);

impl Facts {
    /// Reads the facts of the machine this runs on.
    pub fn collect() -> Facts {
        let mut f = Facts::default();
        let u = uname();
        f.set("host", u.as_ref().map(|u| short_host(&u.nodename)));
        f.set("os", u.as_ref().map(|u| u.sysname.clone()));
        f.set("os_release", u.as_ref().map(|u| u.release.clone()));
        f.set("kernel_version", u.as_ref().map(|u| u.version.clone()));
        f.set("arch", u.as_ref().map(|u| u.machine.clone()));
        f.set(
            "ncpu",
            std::thread::available_parallelism()
                .ok()
                .map(|n| n.to_string()),
        );
        explain_facts(&mut f);
        linux_facts(&mut f);
        // The file system under test (LMBENCH_FSDIR): lat_fs, lat_mmap...
        for (key, value) in crate::fs::fsdir_facts() {
            f.set(key, value);
        }
        // What one page fault maps there and in anonymous memory (large
        // folios, fault-around, mTHP): lat_pagefault's figures follow it.
        for (key, value) in crate::folio::facts() {
            f.set(key, value);
        }
        f
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.as_deref())
    }

    pub fn set(&mut self, key: &str, value: Option<String>) {
        self.0
            .insert(key.to_string(), value.map(|v| v.trim().to_string()));
    }

    /// The OS column of lmbench's tables: kernel name and release.
    pub fn os_label(&self) -> String {
        match (self.get("os"), self.get("os_release")) {
            (Some(os), Some(rel)) => format!("{os} {rel}"),
            (Some(os), None) => os.to_string(),
            _ => "-".to_string(),
        }
    }

    /// A cache size in bytes by level name ("l1d", "l2", "l3"), if known.
    pub fn cache_bytes(&self, level: &str) -> Option<u64> {
        self.get(&format!("cache_{level}"))
            .and_then(|s| s.parse().ok())
    }
}

/// The host name up to the first dot, as lmbench prints it.
fn short_host(nodename: &str) -> String {
    nodename.split('.').next().unwrap_or(nodename).to_string()
}

struct Uname {
    sysname: String,
    nodename: String,
    release: String,
    version: String,
    machine: String,
}

fn uname() -> Option<Uname> {
    let u = nix::sys::utsname::uname().ok()?;
    let s = |field: &std::ffi::OsStr| field.to_string_lossy().into_owned();
    Some(Uname {
        sysname: s(u.sysname()),
        nodename: s(u.nodename()),
        release: s(u.release()),
        version: s(u.version()),
        machine: s(u.machine()),
    })
}

/// Reads a small text file, trimmed; None if absent or unreadable.
pub fn read_fact(path: impl AsRef<Path>) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

/// Parses sysfs cache sizes such as "48K", "2048K", "300M" into bytes.
pub fn parse_sysfs_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mult) = match s.chars().last()? {
        'K' => (&s[..s.len() - 1], 1u64 << 10),
        'M' => (&s[..s.len() - 1], 1 << 20),
        'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().ok().map(|n| n * mult)
}

#[cfg(target_os = "linux")]
fn linux_facts(f: &mut Facts) {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        cpuinfo.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == name).then(|| v.trim().to_string())
        })
    };
    f.set(
        "cpu_model",
        field("model name").or_else(|| field("Processor")),
    );
    f.set("cpu_mhz", field("cpu MHz"));
    f.set("microcode", field("microcode"));
    f.set(
        "cpu_max_mhz",
        read_fact("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
            .and_then(|khz| khz.parse::<u64>().ok())
            .map(|khz| (khz / 1000).to_string()),
    );

    // Caches of cpu0: index*/{level,type,size,coherency_line_size}.
    for level in ["l1d", "l1i", "l2", "l3"] {
        f.set(&format!("cache_{level}"), None);
    }
    f.set("cache_line", None);
    if let Ok(dir) = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache") {
        for entry in dir.flatten() {
            let p = entry.path();
            if !p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("index"))
            {
                continue;
            }
            let (Some(level), Some(kind), Some(size)) = (
                read_fact(p.join("level")),
                read_fact(p.join("type")),
                read_fact(p.join("size")).and_then(|s| parse_sysfs_size(&s)),
            ) else {
                continue;
            };
            let key = match (level.as_str(), kind.as_str()) {
                ("1", "Data") => "l1d",
                ("1", "Instruction") => "l1i",
                ("2", _) => "l2",
                ("3", _) => "l3",
                _ => continue,
            };
            f.set(&format!("cache_{key}"), Some(size.to_string()));
            if key == "l1d" {
                f.set("cache_line", read_fact(p.join("coherency_line_size")));
            }
        }
    }

    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    f.set(
        "mem_total_kb",
        meminfo
            .lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1).map(str::to_string)),
    );
    f.set(
        "clocksource",
        read_fact("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
    );
    f.set(
        "thp",
        read_fact("/sys/kernel/mm/transparent_hugepage/enabled"),
    );
}

#[cfg(not(target_os = "linux"))]
fn linux_facts(_f: &mut Facts) {}

/// The facts beyond hardware that explain a difference between two runs:
/// toolchain, kernel settings, mitigations, firmware, load.
fn explain_facts(f: &mut Facts) {
    f.set("rustc", Some(env!("LMBENCH_RUSTC_VERSION").to_string()));
    f.set(
        "build_profile",
        Some(env!("LMBENCH_BUILD_PROFILE").to_string()),
    );
    f.set("libc", libc_version());
    crate::machine_linux::facts(f);
}

/// The C library's version, where it reports one.
fn libc_version() -> Option<String> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: gnu_get_libc_version returns a static NUL-terminated string.
        let v = unsafe { std::ffi::CStr::from_ptr(libc::gnu_get_libc_version()) };
        Some(format!("glibc {}", v.to_string_lossy()))
    }
    #[cfg(all(target_os = "linux", target_env = "musl"))]
    {
        Some("musl".to_string())
    }
    #[cfg(not(all(target_os = "linux", any(target_env = "gnu", target_env = "musl"))))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_sysfs_size("48K"), Some(48 * 1024));
        assert_eq!(parse_sysfs_size("300M"), Some(300 << 20));
        assert_eq!(parse_sysfs_size("512"), Some(512));
        assert_eq!(parse_sysfs_size("x"), None);
    }

    #[test]
    fn collects_host_and_os() {
        let f = Facts::collect();
        assert!(f.get("host").is_some());
        assert!(!f.os_label().is_empty());
    }
}
