//! Linux machine facts that explain a difference between two runs beyond
//! the hardware: mitigations, boot command line, THP, cpufreq and cpuidle,
//! hypervisor, DAMON, distribution, topology, load. Each is read from /proc or
//! /sys; a file that is absent or unreadable becomes `None`, never an error.

use crate::machine::Facts;

#[cfg(target_os = "linux")]
pub fn facts(f: &mut Facts) {
    use crate::machine::read_fact;

    // Every mitigation verbatim: a kernel update changes these first.
    let vuln = "/sys/devices/system/cpu/vulnerabilities";
    if let Ok(dir) = std::fs::read_dir(vuln) {
        let mut names: Vec<String> = dir
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for n in names {
            f.set(&format!("vuln.{n}"), read_fact(format!("{vuln}/{n}")));
        }
    }
    f.set("cmdline", read_fact("/proc/cmdline"));
    f.set(
        "thp_defrag",
        read_fact("/sys/kernel/mm/transparent_hugepage/defrag"),
    );
    // THP for shmem and tmpfs, and the multi-size THP settings per size
    // (anonymous and shmem, Linux 6.8+ and 6.11+): what a fault maps in
    // anonymous memory and on tmpfs.
    let thp = "/sys/kernel/mm/transparent_hugepage";
    f.set("thp_shmem", read_fact(format!("{thp}/shmem_enabled")));
    for (size, dir) in mthp_sizes(std::path::Path::new(thp)) {
        f.set(&format!("mthp_anon.{size}"), read_fact(dir.join("enabled")));
        f.set(
            &format!("mthp_shmem.{size}"),
            read_fact(dir.join("shmem_enabled")),
        );
    }
    // How much fault-around maps around a file fault (debugfs: absent
    // where it is not mounted).
    f.set(
        "fault_around_bytes",
        read_fact("/sys/kernel/debug/fault_around_bytes"),
    );
    f.set("aslr", read_fact("/proc/sys/kernel/randomize_va_space"));
    f.set(
        "clocksource_available",
        read_fact("/sys/devices/system/clocksource/clocksource0/available_clocksource"),
    );

    let cpu = "/sys/devices/system/cpu";
    f.set(
        "cpufreq_driver",
        read_fact(format!("{cpu}/cpu0/cpufreq/scaling_driver")),
    );
    f.set(
        "cpufreq_governor",
        read_fact(format!("{cpu}/cpu0/cpufreq/scaling_governor")),
    );
    // Boost is `cpufreq/boost` (acpi-cpufreq, amd-pstate) or the inverse
    // `intel_pstate/no_turbo`.
    f.set(
        "cpufreq_boost",
        read_fact(format!("{cpu}/cpufreq/boost")).or_else(|| {
            read_fact(format!("{cpu}/intel_pstate/no_turbo"))
                .map(|v| if v == "1" { "0" } else { "1" }.to_string())
        }),
    );
    f.set(
        "cpuidle_driver",
        read_fact(format!("{cpu}/cpuidle/current_driver")),
    );
    f.set(
        "cpuidle_governor",
        read_fact(format!("{cpu}/cpuidle/current_governor"))
            .or_else(|| read_fact(format!("{cpu}/cpuidle/current_governor_ro"))),
    );
    f.set("smt", read_fact(format!("{cpu}/smt/control")));
    f.set("topology", topology(cpu));
    f.set("numa_nodes", numa_nodes());
    f.set("hypervisor", hypervisor());
    f.set("free_page_reporting", free_page_reporting());
    f.set(
        "damon",
        damon(
            std::path::Path::new("/sys/kernel/mm/damon/admin"),
            "/sys/module",
        ),
    );
    f.set("dmi_vendor", read_fact("/sys/class/dmi/id/sys_vendor"));
    f.set("dmi_product", read_fact("/sys/class/dmi/id/product_name"));
    f.set("bios_version", read_fact("/sys/class/dmi/id/bios_version"));

    let os_release = read_fact("/etc/os-release").or_else(|| read_fact("/usr/lib/os-release"));
    f.set(
        "distro",
        os_release
            .as_deref()
            .and_then(|t| os_release_field(t, "PRETTY_NAME")),
    );
    f.set("os_release_file", os_release);
    f.set("loadavg", read_fact("/proc/loadavg"));
}

#[cfg(not(target_os = "linux"))]
pub fn facts(_f: &mut Facts) {}

/// One `KEY=value` of /etc/os-release, quotes removed.
pub fn os_release_field(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.trim() == key).then(|| v.trim().trim_matches('"').to_string())
    })
}

/// "S sockets, C cores, T threads" from each cpu's topology directory.
#[cfg(target_os = "linux")]
fn topology(cpu: &str) -> Option<String> {
    use crate::machine::read_fact;
    use std::collections::BTreeSet;
    let mut packages = BTreeSet::new();
    let mut cores = BTreeSet::new();
    let mut threads = 0;
    for e in std::fs::read_dir(cpu).ok()?.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name
            .strip_prefix("cpu")
            .is_none_or(|n| n.parse::<u32>().is_err())
        {
            continue;
        }
        let t = e.path().join("topology");
        let (Some(pkg), Some(core)) = (
            read_fact(t.join("physical_package_id")),
            read_fact(t.join("core_id")),
        ) else {
            continue;
        };
        threads += 1;
        cores.insert((pkg.clone(), core));
        packages.insert(pkg);
    }
    (threads > 0).then(|| {
        format!(
            "{} sockets, {} cores, {threads} threads",
            packages.len(),
            cores.len()
        )
    })
}

#[cfg(target_os = "linux")]
fn numa_nodes() -> Option<String> {
    let n = std::fs::read_dir("/sys/devices/system/node")
        .ok()?
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.strip_prefix("node")
                .is_some_and(|i| i.parse::<u32>().is_ok())
        })
        .count();
    (n > 0).then(|| n.to_string())
}

/// Whether this guest hands free memory back to its host: "order N"
/// where a virtio balloon negotiated free page reporting (feature bit 5;
/// blocks of 2^N pages and up are reported once free), "off" where a
/// balloon did not, `None` without a balloon. Memory a program allocates
/// is then often memory the host must back again: on a 2-vCPU Intel Xeon
/// KVM guest (reporting on) a fresh 2 GB heap read 16-26% slower than
/// long-cached file pages with the same loop, for minutes on end.
#[cfg(target_os = "linux")]
fn free_page_reporting() -> Option<String> {
    use crate::machine::read_fact;
    let balloons = std::fs::read_dir("/sys/bus/virtio/drivers/virtio_balloon").ok()?;
    let mut found = false;
    for dev in balloons.flatten() {
        let Some(features) = read_fact(dev.path().join("features")) else {
            continue;
        };
        found = true;
        if features.as_bytes().get(5) == Some(&b'1') {
            let order = read_fact("/sys/module/page_reporting/parameters/page_reporting_order");
            return Some(order.map_or("on".to_string(), |o| format!("order {o}")));
        }
    }
    found.then(|| "off".to_string())
}

/// The kernel's own memory housekeeping by DAMON, which moves figures a
/// run cannot see: a scheme that pages out cold page-cache pages (as on a
/// 2-vCPU AMD EPYC guest: `paddr pageout` of unmapped file pages idle a
/// minute) drops a file written minutes earlier (there a 64 MB file had
/// 57.4 MB cached four minutes after it was written), so a reread or a
/// fault on it reads what DAMON left: lmbench3's lat_pagefault read
/// 0.37-0.40 us there on a 128 MB file two hours old against 0.26-0.33 on
/// one just written. The suite's benches write their files just before
/// they time them. One entry per running kdamond's scheme (operations, action,
/// the idle age and access bound it acts on, its filters), plus the
/// damon_reclaim / damon_lru_sort modules when enabled; "off" when DAMON
/// is built in and nothing runs; `None` without DAMON.
#[cfg(target_os = "linux")]
fn damon(admin: &std::path::Path, modules: &str) -> Option<String> {
    use crate::machine::read_fact;
    let mut found = false;
    let mut out = Vec::new();
    for m in ["damon_reclaim", "damon_lru_sort"] {
        if let Some(on) = read_fact(format!("{modules}/{m}/parameters/enabled")) {
            found = true;
            if on == "Y" {
                out.push(m.to_string());
            }
        }
    }
    let kdamonds = admin.join("kdamonds");
    if let Some(n) = read_fact(kdamonds.join("nr_kdamonds")) {
        found = true;
        for k in 0..n.parse::<usize>().unwrap_or(0) {
            let kd = kdamonds.join(k.to_string());
            if read_fact(kd.join("state")).as_deref() != Some("on") {
                continue;
            }
            let contexts = kd.join("contexts");
            let nc = read_fact(contexts.join("nr_contexts")).and_then(|v| v.parse().ok());
            for c in 0..nc.unwrap_or(0usize) {
                let ctx = contexts.join(c.to_string());
                out.extend(damon_schemes(&ctx));
            }
        }
    }
    found.then(|| {
        if out.is_empty() {
            "off".to_string()
        } else {
            out.join("; ")
        }
    })
}

/// Each scheme of one DAMON context: "paddr pageout: idle >= 60 s,
/// accesses <= 1 of 10 per 5 s, filters anon:reject unmapped:allow".
#[cfg(target_os = "linux")]
fn damon_schemes(ctx: &std::path::Path) -> Vec<String> {
    use crate::machine::read_fact;
    let num = |p: std::path::PathBuf| read_fact(p).and_then(|v| v.parse::<u64>().ok());
    let ops = read_fact(ctx.join("operations")).unwrap_or_else(|| "?".into());
    let intervals = ctx.join("monitoring_attrs/intervals");
    let aggr_us = num(intervals.join("aggr_us")).unwrap_or(0);
    let sample_us = num(intervals.join("sample_us")).unwrap_or(0);
    let schemes = ctx.join("schemes");
    let n = num(schemes.join("nr_schemes")).unwrap_or(0);
    (0..n)
        .map(|i| {
            let s = schemes.join(i.to_string());
            let action = read_fact(s.join("action")).unwrap_or_else(|| "?".into());
            let pattern = s.join("access_pattern");
            let mut parts = Vec::new();
            if let Some(age) = num(pattern.join("age/min")).filter(|a| *a > 0) {
                let secs = age * aggr_us / 1_000_000;
                parts.push(format!("idle >= {secs} s"));
            }
            if let (Some(max), true) = (num(pattern.join("nr_accesses/max")), sample_us > 0) {
                let per = aggr_us / sample_us;
                if max < per {
                    let window = aggr_us as f64 / 1e6;
                    parts.push(format!("accesses <= {max} of {per} per {window} s"));
                }
            }
            let mut filters = Vec::new();
            for dir in ["filters", "core_filters", "ops_filters"] {
                let fd = s.join(dir);
                for f in 0..num(fd.join("nr_filters")).unwrap_or(0) {
                    let f = fd.join(f.to_string());
                    let kind = read_fact(f.join("type")).unwrap_or_else(|| "?".into());
                    // `allow` (6.14 and later); before it, a matching
                    // filter always rejected.
                    let allow = read_fact(f.join("allow")).as_deref() == Some("Y");
                    let not = read_fact(f.join("matching")).as_deref() == Some("N");
                    let verb = if allow { "allow" } else { "reject" };
                    filters.push(format!("{}{kind}:{verb}", if not { "!" } else { "" }));
                }
            }
            if !filters.is_empty() {
                parts.push(format!("filters {}", filters.join(" ")));
            }
            format!("{ops} {action}: {}", parts.join(", "))
        })
        .collect()
}

/// "none", or the hypervisor's name: the CPU's `hypervisor` flag, then its
/// CPUID vendor signature on x86, else /sys/hypervisor/type.
#[cfg(target_os = "linux")]
fn hypervisor() -> Option<String> {
    use crate::machine::read_fact;
    if let Some(t) = read_fact("/sys/hypervisor/type") {
        return Some(t);
    }
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let flags = cpuinfo.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == "flags").then_some(v)
    })?;
    if !flags.split_whitespace().any(|f| f == "hypervisor") {
        return Some("none".to_string());
    }
    Some(cpuid_hypervisor().unwrap_or_else(|| "yes".to_string()))
}

/// The hypervisor vendor signature of CPUID leaf 0x40000000 ("KVMKVMKVM",
/// "Microsoft Hv", "VMwareVMware"...), when the CPU has the hypervisor flag.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn cpuid_hypervisor() -> Option<String> {
    // CPUID exists on every x86_64 CPU (a safe call since Rust 1.94, the
    // declared minimum); leaf 0x40000000 is reserved for hypervisors and
    // returns zeros or garbage on bare metal, so it is read only under the
    // hypervisor flag.
    let r = std::arch::x86_64::__cpuid(0x4000_0000);
    let bytes: Vec<u8> = [r.ebx, r.ecx, r.edx]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .filter(|b| *b != 0)
        .collect();
    let s = String::from_utf8_lossy(&bytes).trim().to_string();
    (!s.is_empty() && s.chars().all(|c| c.is_ascii_graphic() || c == ' ')).then_some(s)
}

#[cfg(all(target_os = "linux", not(target_arch = "x86_64")))]
fn cpuid_hypervisor() -> Option<String> {
    None
}

/// The multi-size THP directories under `thp` (`hugepages-64kB`...), as
/// (size, directory), smallest first; none before Linux 6.8.
#[cfg(target_os = "linux")]
fn mthp_sizes(thp: &std::path::Path) -> Vec<(String, std::path::PathBuf)> {
    let Ok(dir) = std::fs::read_dir(thp) else {
        return Vec::new();
    };
    let mut sizes: Vec<(u64, String, std::path::PathBuf)> = dir
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let size = name.strip_prefix("hugepages-")?.to_string();
            let kb: u64 = size.strip_suffix("kB")?.parse().ok()?;
            Some((kb, size, e.path()))
        })
        .collect();
    sizes.sort();
    sizes.into_iter().map(|(_, s, p)| (s, p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_release_fields_lose_quotes() {
        let t = "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian 12\"\nID=debian\n";
        assert_eq!(
            os_release_field(t, "PRETTY_NAME").as_deref(),
            Some("Debian 12")
        );
        assert_eq!(os_release_field(t, "ID").as_deref(), Some("debian"));
        assert_eq!(os_release_field(t, "VERSION"), None);
    }

    /// A sysfs tree of DAMON's admin interface as the AMD EPYC guest has
    /// it: one kdamond paging out unmapped file pages idle a minute.
    #[cfg(target_os = "linux")]
    #[test]
    fn damon_names_a_running_pageout_scheme() {
        let dir = tempfile::tempdir().unwrap();
        let put = |rel: &str, v: &str| {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, format!("{v}\n")).unwrap();
        };
        let admin = dir.path().join("admin");
        let none = dir.path().join("modules");
        let none = none.to_str().unwrap();
        put("admin/kdamonds/nr_kdamonds", "1");
        put("admin/kdamonds/0/state", "off");
        let c = "admin/kdamonds/0/contexts";
        put(&format!("{c}/nr_contexts"), "1");
        put(&format!("{c}/0/operations"), "paddr");
        put(
            &format!("{c}/0/monitoring_attrs/intervals/aggr_us"),
            "5000000",
        );
        put(
            &format!("{c}/0/monitoring_attrs/intervals/sample_us"),
            "500000",
        );
        let s = format!("{c}/0/schemes");
        put(&format!("{s}/nr_schemes"), "1");
        put(&format!("{s}/0/action"), "pageout");
        put(&format!("{s}/0/access_pattern/age/min"), "12");
        put(&format!("{s}/0/access_pattern/nr_accesses/max"), "1");
        put(&format!("{s}/0/filters/nr_filters"), "0");
        put(&format!("{s}/0/ops_filters/nr_filters"), "2");
        for (i, kind, allow) in [(0, "anon", "N"), (1, "unmapped", "Y")] {
            put(&format!("{s}/0/ops_filters/{i}/type"), kind);
            put(&format!("{s}/0/ops_filters/{i}/allow"), allow);
            put(&format!("{s}/0/ops_filters/{i}/matching"), "Y");
        }
        // Stopped: DAMON is there, nothing runs.
        assert_eq!(damon(&admin, none).as_deref(), Some("off"));
        put("admin/kdamonds/0/state", "on");
        assert_eq!(
            damon(&admin, none).as_deref(),
            Some(
                "paddr pageout: idle >= 60 s, accesses <= 1 of 10 per 5 s, \
                 filters anon:reject unmapped:allow"
            )
        );
        put("modules/damon_reclaim/parameters/enabled", "Y");
        let modules = dir.path().join("modules");
        let text = damon(&admin, modules.to_str().unwrap()).unwrap();
        assert!(text.starts_with("damon_reclaim; paddr pageout"), "{text}");
        // Without DAMON at all.
        let absent = dir.path().join("absent");
        assert_eq!(damon(&absent, absent.to_str().unwrap()), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn collects_without_error() {
        let f = crate::machine::Facts::collect();
        assert!(f.0.contains_key("cmdline"));
        assert!(f.get("rustc").is_some_and(|v| v.starts_with("rustc")));
        assert!(f.0.contains_key("hypervisor"));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn mthp_sizes_are_read_smallest_first() {
        let d = tempfile::tempdir().expect("temp dir");
        for n in [
            "hugepages-2048kB",
            "hugepages-64kB",
            "hugepages-16kB",
            "khugepaged",
        ] {
            std::fs::create_dir(d.path().join(n)).expect("mkdir");
        }
        let sizes: Vec<String> = mthp_sizes(d.path()).into_iter().map(|(s, _)| s).collect();
        assert_eq!(sizes, ["16kB", "64kB", "2048kB"]);
    }
}
