//! One boot of a side: its initramfs (the bench executables, their
//! libraries and the guest's init), the kernel command line, and the
//! guest's results read back with each program's outcome, each metric's
//! host cost and what the boot cost outside its programs.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use lmbench_support::machine::Facts;

use super::exes::Built;
use super::guest::{self, Event};
use super::image::Side;
use super::plan::{side_name, Plan};
use super::timeline::Timeline;
use super::Work;
use crate::run::MetricStats;
use lmbench::session::failures::{self, Failure};

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
pub(super) struct Initramfs {
    pub(super) dir: tempfile::TempDir,
    pub(super) work: Work,
}

impl Initramfs {
    pub(super) fn new(
        work: Work,
        built: &Built,
        preset: &str,
        bench_args: &str,
    ) -> Result<Initramfs> {
        let dir = tempfile::Builder::new()
            .prefix("guest-")
            .tempdir_in(super::kernels_dir())
            .context("creating the guest's directory")?;
        let steps: Vec<super::initramfs::Step> = work
            .iter()
            .map(|(p, ms)| super::initramfs::Step {
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
        super::initramfs::write_initramfs(
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

    pub(super) fn path(&self) -> PathBuf {
        self.dir.path().join("initramfs.cpio")
    }

    /// Where QEMU writes what a boot's guest sends back.
    fn results_file(&self) -> PathBuf {
        self.dir.path().join("results")
    }

    /// Where a boot's Criterion files are unpacked.
    fn criterion_home(&self) -> PathBuf {
        self.dir.path().join("criterion")
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

/// One boot's outcome.
pub(super) struct Boot {
    pub(super) metrics: BTreeMap<String, MetricStats>,
    pub(super) failed: Vec<Failure>,
    pub(super) facts: Option<Facts>,
    /// Host time outside the programs: what any boot costs.
    pub(super) fixed: Duration,
}

/// Boots side `i` once on `fs`, and reads what its guest measured.
pub(super) fn boot_once(
    plan: &Plan,
    i: usize,
    fs: &Initramfs,
    seed: u64,
    costs: &mut lmbench::session::rounds::Costs,
    log: &mut std::fs::File,
) -> Result<Boot> {
    use std::io::{Seek, Write};
    let side = &plan.sides[i];
    let data = fs.results_file();
    let home = fs.criterion_home();
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
    // Each result's host time since the one before (or its program's
    // start): what its metric costs a boot.
    let mut timed: Vec<(String, Duration)> = Vec::new();
    let mut last = Instant::now();
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
                timed.clear();
                last = Instant::now();
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
                    if let Some((_, ms)) = fs.work.iter().find(|(p, _)| p.name == name) {
                        costs.record(ms, took, &timed);
                    }
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
                    timed.push((id.to_string(), last.elapsed()));
                    last = Instant::now();
                }
                previous = line.to_string();
            }
        }
        Ok(())
    })
    .with_context(|| format!("booting {}", side_name(side, i)))?;
    let spent = clock.summary();
    let fixed = clock.outside_programs();
    eprintln!("      {spent}");
    writeln!(log, "### boot {}: {spent}", side_name(side, i))?;
    gather(side, i, fs, reasons, rig_size, fixed)
}

/// Side `i`'s boot as the guest sent it: its results file and its
/// Criterion files, each program of `fs` either read or a failure with
/// the reason its console gave (`reasons`), and the guest's facts with
/// the side's rig and its size.
fn gather(
    side: &Side,
    i: usize,
    fs: &Initramfs,
    mut reasons: BTreeMap<String, (Option<String>, String)>,
    rig_size: Option<String>,
    fixed: Duration,
) -> Result<Boot> {
    let (data, home) = (fs.results_file(), fs.criterion_home());
    let bytes = std::fs::read(&data)
        .with_context(|| format!("reading the guest's results {}", data.display()))?;
    let r = super::results::unpack(&bytes, &home)?;
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
                    f.set("guest_rig_size", rig_size);
                }
                f
            }),
        fixed,
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
