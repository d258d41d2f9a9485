//! The sitting: every side booted once a round, in balanced order (a
//! random order, then its reverse: A B B A for two sides), each side's
//! rounds pooled into one run and saved after every round.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use lmbench_support::catalog::{Metric, Program};
use lmbench_support::machine::Facts;

use super::exes::Built;
use super::guest::{self, Accel, Event, Machine};
use super::image::Side;
use super::timeline::Timeline;
use crate::run::{MetricStats, Run};
use crate::saving::RunSaver;
use lmbench::session::failures::{self, Failure};
use lmbench::session::SaveRounds;

/// What a sitting measures, and where it saves.
#[derive(Clone)]
pub struct Plan<'a> {
    pub sides: &'a [Side],
    pub append: &'a str,
    pub machine: Machine,
    pub programs: Vec<(&'static Program, Vec<&'static Metric>)>,
    pub built: &'a Built,
    pub preset: &'static str,
    /// Criterion flags for every bench in the guest (`--measurement-time
    /// 0.2`), space-separated; numbers only.
    pub bench_args: String,
    /// Rounds every side gets (each a boot per side).
    pub rounds: u32,
    /// Pairs of rounds after those, on the undecided metrics only.
    pub budget: Option<Duration>,
    pub threshold: f64,
}

/// Side `i`'s letter: a, b, c...
pub fn letter(i: usize) -> char {
    (b'a' + (i % 26) as u8) as char
}

/// "A (6.1.0-57-amd64 mitigations=off)".
pub fn side_name(side: &Side, i: usize) -> String {
    let args = if side.args.is_empty() {
        String::new()
    } else {
        format!(" {}", side.args)
    };
    let rig = side
        .rig
        .as_ref()
        .map(|r| format!(" under {r}"))
        .unwrap_or_default();
    format!(
        "{} ({}{args}{rig})",
        letter(i).to_ascii_uppercase(),
        side.spec
    )
}

/// The side's kernel command line; its rig, if any, as
/// `lmbench.rig=seccomp,50` for the guest's init to read (a parameter
/// with a dot is a module's to the kernel, and no module claims it).
fn cmdline(plan: &Plan, side: &Side) -> String {
    let rig = side
        .rig
        .as_ref()
        .map(|r| format!("lmbench.rig={}", r.replace(' ', ",")))
        .unwrap_or_default();
    [guest::BASE_CMDLINE, plan.append, &side.args, &rig]
        .iter()
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The initramfs of one list of steps, in a directory removed when the
/// sitting ends (a panic or Ctrl-C included).
struct Initramfs {
    dir: tempfile::TempDir,
    work: Vec<(&'static Program, Vec<&'static Metric>)>,
}

impl Initramfs {
    fn new(
        work: Vec<(&'static Program, Vec<&'static Metric>)>,
        built: &Built,
        preset: &str,
        bench_args: &str,
    ) -> Result<Initramfs> {
        let dir = tempfile::Builder::new()
            .prefix("guest-")
            .tempdir_in(super::kernels_dir())
            .context("creating the guest's directory")?;
        let steps: Vec<guest::Step> = work
            .iter()
            .map(|(p, ms)| guest::Step {
                name: p.name.to_string(),
                exe: built.benches[p.name].clone(),
                filter: super::step_filter(p, ms),
            })
            .collect();
        let mut exes: Vec<PathBuf> = steps.iter().map(|s| s.exe.clone()).collect();
        exes.extend(built.helpers.iter().cloned());
        exes.sort();
        exes.dedup();
        let mut files: Vec<(PathBuf, PathBuf)> = super::exes::libraries(&exes)?
            .into_iter()
            .map(|l| (l.clone(), l))
            .collect();
        // The guest's memory holds its whole file system: the benches
        // without their debug info (a fifth of the size; symbols stay, for
        // a profile in the guest) where binutils' strip is installed.
        let strip = super::image::which("strip");
        let stripped = dir.path().join("stripped");
        std::fs::create_dir(&stripped)?;
        for (k, exe) in exes.into_iter().enumerate() {
            let copy = stripped.join(k.to_string());
            let ok = strip.as_ref().is_some_and(|s| {
                std::process::Command::new(s)
                    .arg("--strip-debug")
                    .arg("-o")
                    .arg(&copy)
                    .arg(&exe)
                    .status()
                    .is_ok_and(|st| st.success())
            });
            files.push((exe.clone(), if ok { copy } else { exe }));
        }
        let cpio = dir.path().join("initramfs.cpio");
        guest::write_initramfs(
            &cpio,
            &steps,
            &files,
            &helper(built, "lmbench-peer")?,
            &helper(built, "lmbench-rig")?,
            preset,
            bench_args,
        )?;
        // The copies are in the archive now.
        let _ = std::fs::remove_dir_all(&stripped);
        Ok(Initramfs { dir, work })
    }

    fn path(&self) -> PathBuf {
        self.dir.path().join("initramfs.cpio")
    }
}

/// The helper binary `name` cargo built.
fn helper(built: &Built, name: &str) -> Result<PathBuf> {
    built
        .helpers
        .iter()
        .find(|p| p.file_name().is_some_and(|n| n == name))
        .cloned()
        .with_context(|| format!("cargo built no {name}"))
}

/// `auto`: KVM when `/dev/kvm` opens and a test boot reaches the guest's
/// init within [`guest::BOOT_LIMIT`], else icount; says which and why.
pub fn choose_accel(
    asked: Accel,
    side: &Side,
    built: &Built,
    args: &super::Args,
    log: &mut std::fs::File,
) -> Result<Accel> {
    if asked != Accel::Auto {
        eprintln!("accel: {} (as asked)", asked.name());
        return Ok(asked);
    }
    if let Err(e) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/kvm")
    {
        eprintln!("accel: icount (/dev/kvm: {e})");
        return Ok(Accel::Icount);
    }
    eprintln!("accel auto: a test boot under KVM...");
    let fs = Initramfs::new(Vec::new(), built, "quick", "")?;
    let m = Machine {
        accel: Accel::Kvm,
        cpus: args.cpus,
        memory_mib: args.memory,
    };
    let data = fs.dir.path().join("results");
    let qemu = guest::qemu_args(&m, &side.image, &fs.path(), guest::BASE_CMDLINE, &data, 1);
    let t = Instant::now();
    match guest::boot(&qemu, log, |_, _| Ok(())) {
        Ok(()) => {
            eprintln!(
                "accel: kvm (a test boot reached the guest's init and powered off in {:.1} s)",
                t.elapsed().as_secs_f64()
            );
            Ok(Accel::Kvm)
        }
        Err(e) if e.is::<guest::Interrupted>() => Err(e),
        Err(e) => {
            eprintln!("accel: icount (KVM does not work here: {e})");
            Ok(Accel::Icount)
        }
    }
}

/// One boot's outcome.
struct Boot {
    metrics: BTreeMap<String, MetricStats>,
    failed: Vec<Failure>,
    facts: Option<Facts>,
}

/// Runs the sitting, each side's rounds saved by its saver after every
/// round (none: not saved); returns each side's run (as saved, with one).
pub fn run(
    plan: &Plan,
    savers: &mut [RunSaver],
    log: &mut std::fs::File,
    started: Instant,
) -> Result<Vec<Run>> {
    let n = plan.sides.len();
    let host = Facts::collect();
    let sitting = crate::store::utc_now();
    let mut results: Vec<Vec<BTreeMap<String, MetricStats>>> = vec![Vec::new(); n];
    let mut failed: Vec<Vec<Failure>> = vec![Vec::new(); n];
    let mut facts: Vec<Option<Facts>> = vec![None; n];
    let mut rng = lmbench::session::Rng::from_clock();
    let mut order: Vec<usize> = (0..n).collect();
    let mut fs = Initramfs::new(
        plan.programs.clone(),
        plan.built,
        plan.preset,
        &plan.bench_args,
    )?;
    let mut boot_times: Vec<Duration> = Vec::new();
    let mut round = 0u32;
    loop {
        if round >= plan.rounds {
            // Pairs of rounds, so every extra round's order is balanced too.
            let Some(budget) = plan.budget.filter(|_| round.is_multiple_of(2) && n >= 2) else {
                break;
            };
            let per_boot = mean(&boot_times);
            if started.elapsed() + per_boot * (2 * n as u32) > budget {
                eprintln!("budget spent: {:.0} s", started.elapsed().as_secs_f64());
                break;
            }
            let a = pooled(&results[0], &facts[0], &failed[0], &host, plan, 0, &sitting);
            let b = pooled(&results[1], &facts[1], &failed[1], &host, plan, 1, &sitting);
            let undecided: BTreeSet<String> =
                lmbench::session::undecided(&b, Some(&a), plan.threshold)
                    .into_iter()
                    .map(|c| c.id)
                    .collect();
            let work: Vec<_> = plan
                .programs
                .iter()
                .map(|(p, ms)| {
                    let ms: Vec<&'static Metric> = ms
                        .iter()
                        .copied()
                        .filter(|m| undecided.contains(m.id))
                        .collect();
                    (*p, ms)
                })
                .filter(|(_, ms)| !ms.is_empty())
                .collect();
            if work.is_empty() {
                eprintln!(
                    "every metric is decided after {:.0} s",
                    started.elapsed().as_secs_f64()
                );
                break;
            }
            let k: usize = work.iter().map(|(_, ms)| ms.len()).sum();
            eprintln!(
                "rounds {}-{}: re-measuring the {k} undecided metrics",
                round + 1,
                round + 2
            );
            if ids(&work) != ids(&fs.work) {
                fs = Initramfs::new(work, plan.built, plan.preset, &plan.bench_args)?;
            }
        }
        if round.is_multiple_of(2) {
            rng.shuffle(&mut order);
        } else {
            order.reverse();
        }
        // Both sides of a round draw the same randomness (common random
        // numbers): what a random choice costs falls on both alike and
        // leaves the pair's difference; rounds draw anew, so the test's
        // spread still holds what the choices do.
        // (QEMU reads -seed as a signed 64-bit number: keep it positive.)
        let seed = rng.next_u64() >> 1;
        let mut this_round: Vec<(usize, Boot)> = Vec::new();
        for (k, &side) in order.iter().enumerate() {
            let left = plan.rounds.saturating_sub(round) as usize * n - k;
            let eta = lmbench::session::eta::left(
                (!boot_times.is_empty()).then(|| mean(&boot_times) * left as u32),
            );
            eprintln!(
                "round {} of {}, boot {} of {n}: {} under {}{eta}",
                round + 1,
                plan.rounds.max(round + 1),
                k + 1,
                side_name(&plan.sides[side], side),
                plan.machine.accel.name()
            );
            let t = Instant::now();
            let boot = boot_once(plan, side, &fs, seed, log)?;
            boot_times.push(t.elapsed());
            eprintln!(
                "      {} metrics in {:.0} s (total {:.0} s)",
                boot.metrics.len(),
                t.elapsed().as_secs_f64(),
                started.elapsed().as_secs_f64()
            );
            this_round.push((side, boot));
        }
        // A round counts whole: every side's boot of it, or none.
        for (side, boot) in this_round {
            if boot.facts.is_some() {
                facts[side] = boot.facts;
            }
            failed[side].extend(boot.failed);
            if !boot.metrics.is_empty() {
                results[side].push(boot.metrics);
            }
        }
        round += 1;
        for (i, saver) in savers.iter_mut().enumerate() {
            let run = pooled(&results[i], &facts[i], &failed[i], &host, plan, i, &sitting);
            saver.save(run, round as usize)?;
        }
    }
    let mut runs = Vec::new();
    for i in 0..n {
        if results[i].is_empty() {
            bail!(
                "{}: no metric was measured (its console is in {})",
                side_name(&plan.sides[i], i),
                super::log_path().display()
            );
        }
        runs.push(match savers.get(i) {
            Some(saver) => saver.saved()?,
            None => pooled(&results[i], &facts[i], &failed[i], &host, plan, i, &sitting),
        });
    }
    Ok(runs)
}

/// The metric ids of a list of steps.
fn ids(work: &[(&'static Program, Vec<&'static Metric>)]) -> Vec<&'static str> {
    work.iter()
        .flat_map(|(_, ms)| ms.iter().map(|m| m.id))
        .collect()
}

fn mean(d: &[Duration]) -> Duration {
    if d.is_empty() {
        return Duration::ZERO;
    }
    d.iter().sum::<Duration>() / d.len() as u32
}

/// Boots side `i` once on `fs`, and reads what its guest measured.
fn boot_once(
    plan: &Plan,
    i: usize,
    fs: &Initramfs,
    seed: u64,
    log: &mut std::fs::File,
) -> Result<Boot> {
    use std::io::{Seek, Write};
    let side = &plan.sides[i];
    let data = fs.dir.path().join("results");
    let home = fs.dir.path().join("criterion");
    // A fresh port file and home per boot: nothing of the last boot's.
    let _ = std::fs::remove_file(&data);
    let _ = std::fs::remove_dir_all(&home);
    let qemu = guest::qemu_args(
        &plan.machine,
        &side.image,
        &fs.path(),
        &cmdline(plan, side),
        &data,
        seed,
    );
    writeln!(
        log,
        "### boot {}: qemu-system-x86_64 {}",
        side_name(side, i),
        qemu.join(" ")
    )?;
    let mut step_start: BTreeMap<String, u64> = BTreeMap::new();
    let mut reasons: BTreeMap<String, (Option<String>, String)> = BTreeMap::new();
    let mut previous = String::new();
    let mut rig_size = None;
    let mut clock = Timeline::start();
    guest::boot(&qemu, log, |event, log| {
        match event {
            Event::Init(release) => {
                clock.init();
                eprintln!("      guest up: Linux {release}")
            }
            Event::Settled(waited, busiest) => {
                clock.settled();
                eprintln!(
                    "      quiet after {waited} s of guest time (busiest since boot: {busiest})"
                )
            }
            Event::Rig(size) => {
                eprintln!("      rig: {size}");
                rig_size = Some(size.to_string());
            }
            Event::Step(name) => {
                clock.step(name);
                eprintln!("      {name}");
                step_start.insert(name.to_string(), log.stream_position()?);
            }
            Event::Rc(name, rc) if rc != 0 => {
                clock.end_step();
                let from = step_start.get(name).copied().unwrap_or(0);
                let text = std::fs::read(super::log_path()).unwrap_or_default();
                let output = String::from_utf8_lossy(text.get(from as usize..).unwrap_or(&[]));
                reasons.insert(
                    name.to_string(),
                    failures::reason(&output, &format!("exit status: {rc}")),
                );
            }
            Event::Rc(name, _) => {
                if let Some(took) = clock.end_step() {
                    writeln!(log, "### {name}: {:.1} s on the host", took.as_secs_f64())?;
                }
            }
            Event::Line(line) => {
                if let Some((id, rest)) = line.split_once("time:") {
                    let id = if id.trim().is_empty() {
                        previous.trim()
                    } else {
                        id.trim()
                    };
                    eprintln!("        {id:<36} {}", rest.trim());
                }
                previous = line.to_string();
            }
        }
        Ok(())
    })
    .with_context(|| format!("booting {}", side_name(side, i)))?;
    let spent = clock.summary();
    eprintln!("      {spent}");
    writeln!(log, "### boot {}: {spent}", side_name(side, i))?;
    let bytes = std::fs::read(&data)
        .with_context(|| format!("reading the guest's results {}", data.display()))?;
    let r = guest::unpack(&bytes, &home)?;
    if !r.done {
        bail!(
            "{}: the guest stopped before it sent all its results",
            side_name(side, i)
        );
    }
    let mut boot = Boot {
        metrics: BTreeMap::new(),
        failed: Vec::new(),
        facts: r
            .facts
            .as_deref()
            .and_then(|j| serde_json::from_str::<Facts>(j).ok())
            .map(|mut f| {
                // The change is a fact of the side: compare lists it
                // among the facts that differ, with its bare-loop size.
                if side.rig.is_some() {
                    f.set("guest_rig", side.rig.clone());
                    f.set("guest_rig_size", rig_size.clone());
                }
                f
            }),
    };
    let rcs: BTreeMap<&str, i32> = r.rcs.iter().map(|(n, c)| (n.as_str(), *c)).collect();
    for (p, ms) in &fs.work {
        match rcs.get(p.name) {
            Some(0) => {}
            rc => {
                let (metric, reason) = reasons
                    .remove(p.name)
                    .unwrap_or((None, format!("no exit status from the guest ({rc:?})")));
                let f = Failure {
                    program: p.name,
                    asked: ms.iter().map(|m| m.id).collect(),
                    metric,
                    reason,
                };
                eprintln!("      failed: {f} (going on)");
                boot.failed.push(f);
                continue;
            }
        }
        for m in ms {
            if let Some(s) = crate::criterion_files::read_benchmark(&home, m.id)? {
                boot.metrics.insert(m.id.to_string(), s);
            }
        }
    }
    Ok(boot)
}

/// Side `i`'s run of the rounds so far: its samples pooled, the guest's
/// facts, and what it ran on.
fn pooled(
    results: &[BTreeMap<String, MetricStats>],
    guest: &Option<Facts>,
    failed: &[Failure],
    host: &Facts,
    plan: &Plan,
    i: usize,
    sitting: &str,
) -> Run {
    let side = &plan.sides[i];
    let mut f = guest.clone().unwrap_or_default();
    let m = &plan.machine;
    // The guest is named for the host it ran on; its kernel is its own.
    f.set("host", host.get("host").map(|h| format!("{h}-vm")));
    f.set("guest_accel", Some(m.accel.name().to_string()));
    f.set("guest_cpus", Some(m.cpus.to_string()));
    f.set("guest_memory", Some(format!("{}M", m.memory_mib)));
    f.set("guest_kernel", Some(side.spec.clone()));
    f.set(
        "host_os_release",
        host.get("os_release").map(str::to_string),
    );
    f.set("host_cpu_model", host.get("cpu_model").map(str::to_string));
    f.set("sitting", Some(sitting.to_string()));
    f.set("sitting_side", Some(letter(i).to_string()));
    let icount = m.accel == Accel::Icount;
    if icount {
        f.set("time_unit", Some("instructions".to_string()));
        // A guest's clock under icount is its instruction count: its
        // "MHz" (the virtual TSC's) and the cycle probes beside each
        // sample say nothing of a CPU, and a per-cycle comparison would
        // only divide by a constant.
        f.0.remove("cpu_mhz");
    }
    let mut run = lmbench::session::live_run(results, &f, failed);
    if icount {
        for s in run.metrics.values_mut() {
            s.clock_ns.clear();
        }
    }
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn sides_have_letters_and_names() {
        let s = Side {
            spec: "6.1.0-57-amd64".into(),
            image: Path::new("/k").into(),
            args: "mitigations=off".into(),
            rig: None,
        };
        assert_eq!(letter(0), 'a');
        assert_eq!(letter(1), 'b');
        assert_eq!(side_name(&s, 1), "B (6.1.0-57-amd64 mitigations=off)");
        let rigged = Side {
            rig: Some("seccomp 50".into()),
            ..s
        };
        assert_eq!(
            side_name(&rigged, 1),
            "B (6.1.0-57-amd64 mitigations=off under seccomp 50)"
        );
    }
}
