//! `lmbench kernels --kernel A --kernel B [FILTER]`: two or more kernels
//! compared in one sitting. Each is booted in a QEMU guest that runs the
//! suite's prebuilt bench executables; the sides take turns, round by
//! round, in balanced order (A B, then B A: ABBA), so whatever the host
//! does over the sitting falls on every side alike. Each side is saved as
//! an ordinary run whose machine facts are its guest's.
//!
//! Under `--accel icount` (QEMU's emulator counting instructions, where
//! KVM does not work) a figure is a path length: a "µs" is a thousand
//! guest instructions, and the metrics that time the memory hierarchy
//! (bandwidths, memory latencies, cache line, TLB, clock) are left out:
//! an emulator has no caches to time.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use lmbench_support::catalog::{Metric, Program, Unit, PROGRAMS};

use crate::saving::{RunSaver, Target};
use lmbench::flags;
use lmbench::session::SaveRounds;

mod bisect;
mod boot;
mod exes;
mod guest;
mod image;
mod initramfs;
mod plan;
mod results;
mod sitting;
mod timeline;

use guest::Accel;

/// What a sitting's guests run: programs, each with the metrics of it
/// they measure.
type Work = Vec<(&'static Program, Vec<&'static Metric>)>;
pub use guest::Interrupted;

// The command's doc line is on its `Cmd` variant (src/cmd/mod.rs).
#[derive(clap::Args)]
pub struct Args {
    /// A side: a kernel image (bzImage, vmlinuz), a kernel build tree, or
    /// a Debian kernel package's version (6.12.118+deb12-amd64, fetched
    /// with apt-get into target/lmbench/kernels/, never installed);
    /// `K:ARGS` adds kernel arguments to this side only. Twice or more.
    #[arg(long = "kernel", value_name = "K[:ARGS]", required = true, value_parser = flags::parsed::<String>())]
    pub kernels: Vec<String>,
    /// Kernel arguments for every side (before a side's own).
    #[arg(long, value_name = "ARGS", default_value = "", value_parser = flags::parsed::<String>())]
    pub append: String,
    /// Keep user-space address randomisation in the guests. Without it
    /// every side boots with `norandmaps`: a process's layout (which
    /// page tables fork copies, where a mapping falls against a page
    /// table's span) is then the kernel's own and the same in every boot,
    /// instead of a draw that moves fork, mmap and page-fault figures by
    /// 5-25% from boot to boot and needs hundreds of rounds to average.
    #[arg(long)]
    pub aslr: bool,
    /// Only metrics whose id matches this regular expression.
    pub filter: Option<flags::MetricFilter>,
    /// A change of known size on one side, to prove the method: side
    /// SIDE (a, b, ...) runs its benches under `lmbench-rig CHANGE` in
    /// the guest (`b=seccomp 50`: every system call pays a 50-instruction
    /// seccomp filter; `b=thp never`), and the guest first sizes the
    /// change with the rig's bare loop (`lmbench-rig size CHANGE`).
    #[arg(long = "rig", value_name = "SIDE=CHANGE", value_parser = flags::with(parse_rig))]
    pub rigs: Vec<(usize, String)>,
    /// Bisect on this metric: the --kernel list is ordered, good first,
    /// bad last (point releases of one series, say); name the first
    /// kernel where the metric moved by --threshold, measuring the ends
    /// and then only the midpoints needed, each beside the good end in a
    /// sitting of its own.
    #[arg(long, value_name = "METRIC", conflicts_with_all = ["filter", "save", "budget", "rigs"])]
    pub bisect: Option<flags::MetricId>,
    /// kvm (real time), icount (instructions: QEMU's emulator counting
    /// them, where KVM does not work) or auto (KVM if a test boot reaches
    /// the guest's init in time, else icount). Plain emulation without
    /// instruction counting (tcg) is refused: its time moves with the host.
    #[arg(long, value_enum, default_value_t = Accel::Auto)]
    pub accel: Accel,
    /// The guest's vCPUs.
    #[arg(long, default_value_t = 1, value_parser = flags::with(|s| flags::whole(s, 1, 64)))]
    pub cpus: u32,
    /// The guest's memory (binary k/m/g: 2g); it holds the bench
    /// executables as well.
    #[arg(long, default_value = "2g", value_parser = flags::with(parse_memory))]
    pub memory: u64,
    /// Boots per side in the sitting, in balanced order (2: A B B A).
    #[arg(long, default_value_t = 2, value_parser = flags::with(|s| flags::whole(s, 1, 1000)))]
    pub rounds: u32,
    /// After those rounds (2 or more), go on in pairs of rounds for this
    /// long in all (30m, 1h), re-measuring only the metrics in doubt
    /// between the first two sides (undecided, or behind lmbench's own
    /// columns and too coarse to see --threshold) that the time left can
    /// settle; boots of fewer metrics are shorter, and buy more rounds.
    #[arg(long, value_name = "DURATION")]
    pub budget: Option<lmbench::flags::Budget>,
    /// The change that matters, percent (what "decided" means for
    /// --budget, as `compare --threshold`).
    #[arg(long, default_value = "5", value_name = "PCT")]
    pub threshold: flags::Percent,
    /// The quick preset in the guest (10 samples a metric).
    #[arg(long)]
    pub quick: bool,
    /// Criterion's warm-up per metric in the guest, seconds of the
    /// guest's time (default: the preset's, by kind of metric).
    #[arg(long, value_name = "SECS", value_parser = flags::with(parse_secs))]
    pub warm_up_time: Option<f64>,
    /// Criterion's measurement per metric in the guest, seconds of the
    /// guest's time (default: the preset's, by kind of metric). Under
    /// icount a sample is a path length that hardly moves within a boot,
    /// while boots differ: shorter boots that leave time for more rounds
    /// narrow the paired test more than longer samples do.
    #[arg(long, value_name = "SECS", value_parser = flags::with(parse_secs))]
    pub measurement_time: Option<f64>,
    /// Save each side as results/<machine>/<LABEL>-a, <LABEL>-b, ...
    /// (after every round, so a stopped sitting keeps its finished rounds).
    #[arg(long, value_name = "LABEL")]
    pub save: Option<flags::Label>,
    /// With --save: the machine name (default: the host name).
    #[arg(long, requires = "save")]
    pub machine: Option<flags::MachineName>,
    /// With --save: replace existing labels.
    #[arg(long, requires = "save")]
    pub force: bool,
}

/// The arguments every side boots with: `norandmaps` first unless the
/// user keeps ASLR, then `--append`'s (a user's own `norandmaps` is not
/// doubled).
fn guest_append(aslr: bool, append: &str) -> String {
    let has = append.split_whitespace().any(|w| w == "norandmaps");
    if aslr || has {
        append.trim().to_string()
    } else {
        format!("norandmaps {}", append.trim())
            .trim_end()
            .to_string()
    }
}

/// A time in seconds for Criterion: finite, above zero, at most an hour.
fn parse_secs(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 3600.0 => Ok(v),
        _ => Err(format!("{s}: give seconds above 0 and at most 3600 (0.2)")),
    }
}

/// `b=seccomp 50`: side b's index and the change in `lmbench-rig`'s
/// words. Only the changes a bare guest can make: nftables needs the
/// `ip` and `nft` commands, which the guest does not have.
fn parse_rig(s: &str) -> std::result::Result<(usize, String), String> {
    let (side, change) = s
        .split_once('=')
        .ok_or_else(|| format!("{s}: give SIDE=CHANGE, as b='seccomp 50'"))?;
    let side = match side.trim().as_bytes() {
        [c @ b'a'..=b'z'] => (c - b'a') as usize,
        _ => return Err(format!("{s}: SIDE is a letter, a for the first --kernel")),
    };
    let words: Vec<&str> = change.split_whitespace().collect();
    match words.as_slice() {
        ["seccomp", n] if n.parse::<u32>().is_ok_and(|n| (1..=4096).contains(&n)) => {}
        ["thp", "always" | "madvise" | "never"] => {}
        ["nft", ..] => {
            return Err(format!(
                "{s}: nft needs the ip and nft commands, which the guest does not have"
            ))
        }
        _ => {
            return Err(format!(
                "{s}: CHANGE is `seccomp N` (N 1 to 4096) or `thp always|madvise|never`"
            ))
        }
    }
    Ok((side, words.join(" ")))
}

fn parse_memory(s: &str) -> std::result::Result<u64, String> {
    let bytes = lmbench_support::size::parse(s).map_err(|e| e.to_string())?;
    let mib = bytes >> 20;
    if mib < 256 {
        return Err(format!("{s}: a guest needs at least 256m"));
    }
    Ok(mib)
}

/// Where kernels, the console log and the guests' results live.
fn kernels_dir() -> PathBuf {
    lmbench::lock::work_dir().join("kernels")
}

/// The console of every boot of the last sitting.
pub fn log_path() -> PathBuf {
    kernels_dir().join("console.log")
}

/// The metrics a sitting measures: FILTER's, in catalog order by program,
/// without the floors (a floor is the host's reference, not a kernel's
/// figure), and under icount only the latencies in microseconds; the
/// rest, with the reason, in the second list.
fn chosen(filter: Option<&regex::Regex>, accel: Accel) -> (Work, Vec<&'static str>) {
    let mut out = Vec::new();
    let mut left_out = Vec::new();
    for p in PROGRAMS {
        if std::ptr::eq(*p, &lmbench_support::catalog::floor::PROGRAM) {
            continue;
        }
        let mut ms = Vec::new();
        for m in p.metrics.iter().copied() {
            if filter.is_some_and(|re| !re.is_match(m.id)) {
                continue;
            }
            if accel == Accel::Icount && m.unit != Unit::Micros {
                left_out.push(m.id);
                continue;
            }
            ms.push(m);
        }
        if !ms.is_empty() {
            out.push((*p, ms));
        }
    }
    (out, left_out)
}

pub fn run(opts: Args) -> Result<()> {
    refuse_what_cannot_run(&opts)?;
    let filter = match &opts.bisect {
        Some(m) => Some(regex::Regex::new(&format!("^{}$", regex::escape(m.0.id)))?),
        None => opts.filter.as_ref().map(|f| f.regex().clone()),
    };
    let cache = kernels_dir().join("cache");
    let mut sides: Vec<image::Side> = opts
        .kernels
        .iter()
        .map(|k| image::resolve(k, &cache))
        .collect::<Result<_>>()?;
    for (side, change) in &opts.rigs {
        sides[*side].rig = Some(change.clone());
    }
    if image::which("qemu-system-x86_64").is_none() {
        bail!("qemu-system-x86_64 not found: apt-get install qemu-system-x86 (Debian, Ubuntu)");
    }
    let mut savers: Vec<RunSaver> = match &opts.save {
        None => Vec::new(),
        Some(label) => (0..sides.len())
            .map(|i| {
                RunSaver::to(Target {
                    label: format!("{}-{}", label.as_str(), plan::letter(i)),
                    machine: opts.machine.clone().map(Into::into),
                    force: opts.force,
                })
            })
            .collect(),
    };
    // Every label is checked before the first boot.
    for saver in &mut savers {
        saver.check()?;
    }
    std::fs::create_dir_all(kernels_dir())
        .with_context(|| format!("creating {}", kernels_dir().display()))?;
    let _lock = lmbench::lock::lock_run(&lmbench::lock::work_dir())?;
    guest::catch_interrupts()?;

    // Everything the guests may run is built before the first boot.
    let all: Vec<&'static Program> = chosen(filter.as_ref(), Accel::Kvm)
        .0
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    if all.is_empty() {
        bail!("FILTER matches no metric: `lmbench list` shows them");
    }
    let built = exes::build(&all)?;

    let mut log = std::fs::File::create(log_path())
        .with_context(|| format!("creating {}", log_path().display()))?;
    let started = Instant::now();
    let accel = sitting::choose_accel(opts.accel, &sides[0], &built, &opts, &mut log)?;
    let (programs, left_out) = chosen(filter.as_ref(), accel);
    if !left_out.is_empty() {
        eprintln!(
            "left out under icount ({} metrics: {}): they time the memory hierarchy \
             (bandwidth, memory latency, cache line, TLB, clock rate) or the CPU, which an \
             emulator counting instructions does not model",
            left_out.len(),
            abbreviate(&left_out)
        );
    }
    if programs.is_empty() {
        bail!("no metric of FILTER can be measured under {}", accel.name());
    }
    let append = guest_append(opts.aslr, &opts.append);
    if !opts.aslr {
        eprintln!(
            "guests boot with norandmaps: every process's layout is the same in every boot \
             (--aslr keeps the randomisation, at the cost of a wider spread between boots)"
        );
    }
    let plan = plan::Plan {
        sides: &sides,
        append: &append,
        machine: guest::Machine {
            accel,
            cpus: opts.cpus,
            memory_mib: opts.memory,
        },
        programs,
        built: &built,
        preset: if opts.quick { "quick" } else { "default" },
        bench_args: [
            ("--warm-up-time", opts.warm_up_time),
            ("--measurement-time", opts.measurement_time),
        ]
        .into_iter()
        .filter_map(|(flag, v)| v.map(|v| format!("{flag} {v}")))
        .collect::<Vec<_>>()
        .join(" "),
        rounds: opts.rounds,
        budget: opts.budget.map(lmbench::flags::Budget::get),
        threshold: opts.threshold.get(),
    };
    if let Some(m) = &opts.bisect {
        return bisect::run(&plan, m.0.id, &mut log);
    }
    let runs = sitting::run(&plan, &mut savers, &mut log, started)?;
    print!("{}", crate::report::render(&runs)?);
    print_comparisons(&runs, &sides, opts.threshold.get());
    Ok(())
}

/// Refuses, before any work, what cannot run: one kernel, a budget
/// without the two rounds that say what is in doubt, plain emulation, a
/// rig on a side that does not exist.
fn refuse_what_cannot_run(opts: &Args) -> Result<()> {
    if opts.kernels.len() < 2 {
        bail!("kernels compares two or more: give --kernel twice (the same one twice for an A/A)");
    }
    if opts.budget.is_some() && opts.rounds < 2 {
        bail!(
            "--budget needs --rounds 2 or more: the paired test says what is in doubt only \
             after two rounds"
        );
    }
    if opts.accel == Accel::Tcg {
        bail!(
            "--accel tcg: emulated time without instruction counting runs 2-3x slower than \
             the host and moves with it, so it is no figure; use --accel icount (instructions) \
             or kvm"
        );
    }
    for (side, _) in &opts.rigs {
        if *side >= opts.kernels.len() {
            bail!(
                "--rig {}=...: there are {} sides (a to {})",
                plan::letter(*side),
                opts.kernels.len(),
                plan::letter(opts.kernels.len() - 1)
            );
        }
    }
    Ok(())
}

/// Every side's comparison with the first (side a), as compare prints it.
fn print_comparisons(runs: &[crate::run::Run], sides: &[image::Side], threshold: f64) {
    for (i, new) in runs.iter().enumerate().skip(1) {
        let old = &runs[0];
        let busy = lmbench_support::activity::BUSY_CPUS;
        let c = crate::verdict::compare(
            old,
            new,
            &crate::verdict::Options {
                busy_cpus: busy,
                ..crate::verdict::Options::at(threshold)
            },
        );
        println!(
            "\n{} against {}:",
            plan::side_name(&sides[i], i),
            plan::side_name(&sides[0], 0)
        );
        print!("{}", crate::report::compare::render(old, new, &c, busy));
    }
}

/// The first few ids and how many more.
fn abbreviate(ids: &[&str]) -> String {
    let mut s: Vec<String> = ids.iter().take(4).map(|s| s.to_string()).collect();
    if ids.len() > 4 {
        s.push(format!("and {} more", ids.len() - 4));
    }
    s.join(", ")
}

/// The ids of `metrics` as one step's Criterion filter: empty when they
/// are all of the program's.
fn step_filter(p: &Program, metrics: &[&Metric]) -> String {
    if metrics.len() == p.metrics.len() {
        return String::new();
    }
    let ids: Vec<String> = metrics.iter().map(|m| m.id.to_string()).collect();
    lmbench::session::exact_filter(&ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guests_boot_without_user_space_randomisation_unless_asked() {
        assert_eq!(guest_append(false, ""), "norandmaps");
        assert_eq!(
            guest_append(false, " mitigations=off "),
            "norandmaps mitigations=off"
        );
        assert_eq!(guest_append(false, "norandmaps quiet"), "norandmaps quiet");
        assert_eq!(guest_append(true, "mitigations=off"), "mitigations=off");
        assert_eq!(guest_append(true, ""), "");
    }

    #[test]
    fn a_rig_names_a_side_and_a_change_the_guest_can_make() {
        assert_eq!(parse_rig("b=seccomp 50"), Ok((1, "seccomp 50".into())));
        assert_eq!(parse_rig("a= thp  never "), Ok((0, "thp never".into())));
        for bad in [
            "seccomp 50",
            "B=seccomp 50",
            "bb=seccomp 50",
            "b=seccomp",
            "b=seccomp 0",
            "b=seccomp 5000",
            "b=seccomp x",
            "b=thp sometimes",
            "b=sleep 1",
            "b=",
        ] {
            assert!(parse_rig(bad).is_err(), "{bad}");
        }
        assert!(parse_rig("b=nft 100").unwrap_err().contains("ip and nft"));
    }

    #[test]
    fn icount_leaves_out_the_memory_hierarchy_and_floors() {
        let (ps, out) = chosen(None, Accel::Icount);
        let ids: Vec<&str> = ps
            .iter()
            .flat_map(|(_, ms)| ms.iter().map(|m| m.id))
            .collect();
        assert!(ids.contains(&"lat_syscall/null"));
        assert!(ids.iter().all(|id| !id.starts_with("floor/")));
        assert!(out.iter().any(|id| id.starts_with("bw_mem/")));
        assert!(out.iter().any(|id| id.starts_with("lat_mem_rd/")));
        let (ps, out) = chosen(None, Accel::Kvm);
        assert!(out.is_empty());
        assert!(ps.iter().any(|(p, _)| p.name == "bw_mem"));
    }

    #[test]
    fn a_step_names_its_metrics_unless_it_runs_them_all() {
        let p = &lmbench_support::catalog::lat_syscall::PROGRAM;
        assert_eq!(step_filter(p, p.metrics), "");
        let f = step_filter(p, &p.metrics[..1]);
        assert!(
            regex::Regex::new(&f).unwrap().is_match(p.metrics[0].id),
            "{f}"
        );
        assert!(
            !regex::Regex::new(&f).unwrap().is_match(p.metrics[1].id),
            "{f}"
        );
    }

    #[test]
    fn memory_needs_a_size_and_room() {
        assert_eq!(parse_memory("2g"), Ok(2048));
        assert_eq!(parse_memory("512m"), Ok(512));
        assert!(parse_memory("1m").unwrap_err().contains("at least"));
        assert!(parse_memory("lots").is_err());
    }
}
