//! The sitting: every side booted once a round, in balanced order (a
//! random order, then its reverse: A B B A for two sides), each side's
//! rounds pooled into one run and saved after every round. With a
//! budget, pairs of further rounds boot only the metrics in doubt that
//! the time left can settle (`lmbench::session::boots`).

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use lmbench_support::catalog::{Metric, Program};
use lmbench_support::machine::Facts;

use super::boot::{boot_once, Boot, Initramfs};
use super::exes::Built;
use super::guest::{self, Accel, Machine};
use super::image::Side;
use super::plan::{letter, side_name, Plan};
use super::Work;
use crate::run::{MetricStats, Run};
use crate::saving::RunSaver;
use lmbench::session::failures::Failure;
use lmbench::session::SaveRounds;

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

/// Runs the sitting, each side's rounds saved by its saver after every
/// round (none: not saved); returns each side's run (as saved, with one).
pub fn run(
    plan: &Plan,
    savers: &mut [RunSaver],
    log: &mut std::fs::File,
    started: Instant,
) -> Result<Vec<Run>> {
    let n = plan.sides.len();
    let mut sides = Sides::new(plan);
    let mut rng = lmbench::session::Rng::from_clock();
    let mut order: Vec<usize> = (0..n).collect();
    let mut fs = Initramfs::new(
        plan.programs.clone(),
        plan.built,
        plan.preset,
        &plan.bench_args,
    )?;
    let mut boot_times: Vec<Duration> = Vec::new();
    // What any boot costs outside its programs, and each metric's cost.
    let mut fixed_times: Vec<Duration> = Vec::new();
    let mut costs = lmbench::session::rounds::Costs::default();
    let mut round = 0u32;
    // A further round's boot, as estimated before it.
    let mut next_boot: Option<Duration> = None;
    loop {
        // Further rounds come in pairs, so every one's order is balanced
        // too: the second of a pair measures what the first did.
        let second_of_pair = !round.is_multiple_of(2) && round > plan.rounds;
        if round >= plan.rounds && !second_of_pair {
            let Some((work, estimate)) =
                further_work(&sides, round, started, mean(&fixed_times), &costs)
            else {
                break;
            };
            next_boot = Some(estimate);
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
            // The boots left: this round's, and the planned rounds' or
            // (past them) this pair's.
            let last_round = if round < plan.rounds {
                plan.rounds
            } else {
                round - round % 2 + 2
            };
            let left = (last_round - round) as usize * n - k;
            let eta = lmbench::session::eta::left(
                (!boot_times.is_empty())
                    .then(|| next_boot.unwrap_or(mean(&boot_times)) * left as u32),
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
            let boot = boot_once(plan, side, &fs, seed, &mut costs, log)?;
            fixed_times.push(boot.fixed);
            boot_times.push(t.elapsed());
            eprintln!(
                "      {} metrics in {:.0} s (total {:.0} s)",
                boot.metrics.len(),
                t.elapsed().as_secs_f64(),
                started.elapsed().as_secs_f64()
            );
            this_round.push((side, boot));
        }
        sides.absorb(this_round);
        round += 1;
        for (i, saver) in savers.iter_mut().enumerate() {
            saver.save(sides.run_of(i), round as usize)?;
        }
    }
    let mut runs = Vec::new();
    for i in 0..n {
        if sides.results[i].is_empty() {
            bail!(
                "{}: no metric was measured (its console is in {})",
                side_name(&plan.sides[i], i),
                super::log_path().display()
            );
        }
        runs.push(match savers.get(i) {
            Some(saver) => saver.saved()?,
            None => sides.run_of(i),
        });
    }
    Ok(runs)
}

/// The work of a budget's next pair of rounds, and one boot's estimated
/// time with it: the metrics in doubt that the time left can settle.
/// `None` (having said why) when the sitting should stop: no budget or a
/// single side, nothing left in doubt, or no time for the pair.
fn further_work(
    sides: &Sides,
    round: u32,
    started: Instant,
    fixed: Duration,
    costs: &lmbench::session::rounds::Costs,
) -> Option<(Work, Duration)> {
    let plan = sides.plan;
    let n = plan.sides.len();
    let budget = plan.budget.filter(|_| n >= 2)?;
    let (a, b) = (sides.run_of(0), sides.run_of(1));
    let column_runs = match plan.machine.accel {
        Accel::Icount => 2,
        _ => lmbench::session::rounds::COLUMN_RUNS,
    };
    let doubt = lmbench::session::rounds::unresolved(&b, Some(&a), plan.threshold, column_runs);
    let worth = lmbench::session::boots::worth_booting(
        &doubt,
        round as usize,
        budget.saturating_sub(started.elapsed()),
        n,
        fixed,
        costs,
    );
    if worth.is_empty() {
        eprintln!(
            "{} after {:.0} s",
            if doubt.is_empty() {
                "every metric is decided and every lmbench column sees the threshold".to_string()
            } else {
                format!(
                    "the time left settles none of the {} metrics still in doubt",
                    doubt.len()
                )
            },
            started.elapsed().as_secs_f64()
        );
        return None;
    }
    let chosen: BTreeSet<String> = worth.into_iter().map(|c| c.id).collect();
    let work: Vec<_> = plan
        .programs
        .iter()
        .map(|(p, ms)| {
            let ms: Vec<&'static Metric> = ms
                .iter()
                .copied()
                .filter(|m| chosen.contains(m.id))
                .collect();
            (*p, ms)
        })
        .filter(|(_, ms)| !ms.is_empty())
        .collect();
    // A pair of rounds of this work, each side booted twice.
    let estimate = fixed + chosen.iter().map(|id| costs.of(id)).sum::<Duration>();
    if started.elapsed() + estimate * (2 * n as u32) > budget {
        eprintln!("budget spent: {:.0} s", started.elapsed().as_secs_f64());
        return None;
    }
    let k: usize = work.iter().map(|(_, ms)| ms.len()).sum();
    eprintln!(
        "rounds {}-{}: re-measuring the {k} metrics in doubt that the time left can settle",
        round + 1,
        round + 2
    );
    Some((work, estimate))
}

/// What every side measured in the rounds so far, and what it ran on.
struct Sides<'p, 'a> {
    plan: &'p Plan<'a>,
    /// The host's facts, read once at the start.
    host: Facts,
    /// When the sitting started: the `sitting` fact both sides share.
    sitting: String,
    /// Per side, each round's figures.
    results: Vec<Vec<BTreeMap<String, MetricStats>>>,
    failed: Vec<Vec<Failure>>,
    /// Per side, the guest's facts from its latest boot that sent them.
    facts: Vec<Option<Facts>>,
}

impl<'p, 'a> Sides<'p, 'a> {
    fn new(plan: &'p Plan<'a>) -> Self {
        let n = plan.sides.len();
        Sides {
            plan,
            host: Facts::collect(),
            sitting: crate::store::utc_now(),
            results: vec![Vec::new(); n],
            failed: vec![Vec::new(); n],
            facts: vec![None; n],
        }
    }

    /// Takes in one round's boots. A round counts whole: every side's
    /// boot of it, or none.
    fn absorb(&mut self, round: Vec<(usize, Boot)>) {
        for (side, boot) in round {
            if boot.facts.is_some() {
                self.facts[side] = boot.facts;
            }
            self.failed[side].extend(boot.failed);
            if !boot.metrics.is_empty() {
                self.results[side].push(boot.metrics);
            }
        }
    }

    /// Side `i`'s run of the rounds so far: its samples pooled, the
    /// guest's facts, and what it ran on.
    fn run_of(&self, i: usize) -> Run {
        let plan = self.plan;
        let side = &plan.sides[i];
        let mut f = self.facts[i].clone().unwrap_or_default();
        let m = &plan.machine;
        // The guest is named for the host it ran on; its kernel is its own.
        f.set("host", self.host.get("host").map(|h| format!("{h}-vm")));
        f.set("guest_accel", Some(m.accel.name().to_string()));
        f.set("guest_cpus", Some(m.cpus.to_string()));
        f.set("guest_memory", Some(format!("{}M", m.memory_mib)));
        f.set("guest_kernel", Some(side.spec.clone()));
        f.set(
            "host_os_release",
            self.host.get("os_release").map(str::to_string),
        );
        f.set(
            "host_cpu_model",
            self.host.get("cpu_model").map(str::to_string),
        );
        f.set("sitting", Some(self.sitting.clone()));
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
        let mut run = lmbench::session::live_run(&self.results[i], &f, &self.failed[i]);
        if icount {
            for s in run.metrics.values_mut() {
                s.clock_ns.clear();
            }
        }
        run
    }
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
