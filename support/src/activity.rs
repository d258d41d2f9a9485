//! What else the machine did while we measured: the CPU time of every
//! process that is not the bench or one of its helpers, the hypervisor's
//! steal, interrupts, context switches and the load average, over a window
//! (a benchmark's samples, or a second before a run starts). A figure
//! measured while other work ran is marked as such by `lmbench summary` and
//! kept out of `lmbench compare`'s verdicts.
//!
//! How "other work" is counted (Linux): a scan of `/proc/<pid>/stat` at both
//! ends of the window. Per process, user + system time plus that of its
//! reaped children (so a `cargo build` that spawned and reaped many `rustc`s
//! shows as `cargo`); processes that ended inside the window are charged to
//! whoever reaped them, minus what they had used before the window started.
//! "Ours" is the bench process and its descendants (peers, forked
//! children). Kernel threads are counted apart: our own I/O wakes them. The
//! per-process times are in clock ticks (10 ms), so each process's change is
//! taken one tick low, never below zero: a daemon that crossed one tick
//! boundary is not "busy", a hog is (a lower bound, never an overestimate).
//! System totals (`/proc/stat`) give steal, interrupt time, context
//! switches and interrupts; they are tick-sampled, so they describe but do
//! not decide, except steal (the hypervisor's own precise count).
//!
//! On the BSDs and macOS the OS gives the load average and (FreeBSD,
//! DragonFly) `kern.cp_time`, the whole machine's busy time: enough for the
//! idle check before a run, not to tell helpers from other work, so the
//! per-window "other CPU" is absent there and nothing is flagged.

use std::time::Instant;

use serde::{Deserialize, Serialize};

/// The share of one CPU that other work may use during a measurement before
/// its figures are marked "measured on a busy machine": 5%. On an idle
/// machine daemons use well under 1%; a compiler or a second benchmark on
/// the other core uses 50-100%.
pub const BUSY_CPUS: f64 = 0.05;

/// The file beside a benchmark's Criterion results (`<home>/<id>/`) that
/// holds its [`Activity`]: the harness writes it, the CLI reads it.
pub const ACTIVITY_FILE: &str = "lmbench-activity.json";

/// One process that used CPU during a window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proc {
    /// Its command name (`comm`), several processes of one name summed.
    pub name: String,
    /// CPU seconds in the window (its reaped children included).
    pub cpu_s: f64,
}

/// What the machine did over one window. Every figure the OS does not give
/// is absent (`None`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Activity {
    /// Length of the window: first sample's start to last sample's end.
    pub wall_s: f64,
    /// Online CPUs.
    pub cpus: u32,
    /// CPU seconds of the bench and its helpers (descendants).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ours_cpu_s: Option<f64>,
    /// CPU seconds of every other user-space process (a lower bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub others_cpu_s: Option<f64>,
    /// CPU seconds of kernel threads (kworkers, ksoftirqd...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_cpu_s: Option<f64>,
    /// CPU seconds the hypervisor gave to someone else (steal), all CPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal_s: Option<f64>,
    /// CPU seconds in hard and soft interrupts, all CPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub irq_s: Option<f64>,
    /// The whole machine's busy time, ours included, in CPUs (tick-sampled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy_cpus: Option<f64>,
    /// Context switches per second, whole machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ctxt_per_s: Option<f64>,
    /// Interrupts per second, whole machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intr_per_s: Option<f64>,
    /// 1-minute load average at the start and at the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_start: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_end: Option<f64>,
    /// Timed calls (warm-up and samples) in the window, and how many of
    /// them saw the timed process preempted (an involuntary switch).
    #[serde(default)]
    pub calls: u32,
    #[serde(default)]
    pub preempted_calls: u32,
    /// The other processes that used the most CPU, largest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub top: Vec<Proc>,
    /// The core clock around each timed call (`crate::clock`): what the
    /// call returned and the cycle time before and after it. The reader
    /// moves these onto the samples they belong to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clock: Vec<crate::clock::CallClock>,
}

impl Activity {
    /// What is wrong with this record as read from a file, if anything,
    /// as "has ...": every figure finite and not negative.
    pub fn defect(&self) -> Option<String> {
        let figures = [
            ("wall_s", Some(self.wall_s)),
            ("ours_cpu_s", self.ours_cpu_s),
            ("others_cpu_s", self.others_cpu_s),
            ("kernel_cpu_s", self.kernel_cpu_s),
            ("steal_s", self.steal_s),
            ("irq_s", self.irq_s),
            ("busy_cpus", self.busy_cpus),
            ("ctxt_per_s", self.ctxt_per_s),
            ("intr_per_s", self.intr_per_s),
            ("load_start", self.load_start),
            ("load_end", self.load_end),
        ];
        let procs = self
            .top
            .iter()
            .map(|p| ("a top process's cpu_s", Some(p.cpu_s)));
        figures.into_iter().chain(procs).find_map(|(what, v)| {
            v.filter(|v| !(v.is_finite() && *v >= 0.0))
                .map(|v| format!("activity {what} {v} (must be finite and not negative)"))
        })
    }

    /// CPUs' worth of other work during the window: other processes plus
    /// steal. `None` where the OS cannot tell others from us.
    pub fn other_cpus(&self) -> Option<f64> {
        if self.wall_s <= 0.0 {
            return None;
        }
        let others = self.others_cpu_s?;
        Some((others + self.steal_s.unwrap_or(0.0)) / self.wall_s)
    }

    /// True if other work used at least `threshold` CPUs (e.g.
    /// [`BUSY_CPUS`]) during the window.
    pub fn is_busy(&self, threshold: f64) -> bool {
        self.other_cpus().is_some_and(|c| c >= threshold)
    }

    /// One line: how much other work ran and which.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        match self.other_cpus() {
            Some(c) => {
                let mut s = format!("other work {c:.2} CPU");
                if !self.top.is_empty() {
                    let names: Vec<String> = self
                        .top
                        .iter()
                        .map(|p| format!("{} {:.2}", p.name, p.cpu_s / self.wall_s.max(1e-9)))
                        .collect();
                    s.push_str(&format!(" ({})", names.join(", ")));
                }
                parts.push(s);
            }
            None => {
                if let Some(b) = self.busy_cpus {
                    parts.push(format!("machine busy {b:.2} CPU (ours included)"));
                }
            }
        }
        if let Some(st) = self.steal_s.filter(|s| *s > 0.0) {
            parts.push(format!("steal {:.2} CPU", st / self.wall_s.max(1e-9)));
        }
        if let Some(l) = self.load_end.or(self.load_start) {
            parts.push(format!("load {l:.2}"));
        }
        parts.push(format!("over {:.1} s", self.wall_s));
        parts.join(", ")
    }

    /// The most disturbed of several windows (pooled runs of one metric).
    pub fn worst(records: &[Activity]) -> Option<&Activity> {
        records
            .iter()
            .filter(|a| a.other_cpus().is_some())
            .max_by(|a, b| {
                a.other_cpus()
                    .unwrap_or(0.0)
                    .total_cmp(&b.other_cpus().unwrap_or(0.0))
            })
    }
}

/// A window being recorded: a full snapshot at its start, cheap counters
/// around each timed call, and a full snapshot after a call at most every
/// [`Window::RESCAN`] (so the end is the last sample's end, give or take
/// that, and a scan of `/proc` costs under 1% of the window).
pub struct Window {
    start: Snapshot,
    end: Option<Snapshot>,
    calls: u32,
    preempted_calls: u32,
}

/// A call in progress: the timed process's involuntary switches so far.
pub struct Call(i64);

impl Window {
    const RESCAN: std::time::Duration = std::time::Duration::from_millis(100);

    pub fn start() -> Window {
        Window {
            start: Snapshot::take(),
            end: None,
            calls: 0,
            preempted_calls: 0,
        }
    }

    /// Before a timed call (outside its timing).
    pub fn call_start(&self) -> Call {
        Call(involuntary_switches())
    }

    /// After a timed call (outside its timing).
    pub fn call_end(&mut self, call: Call) {
        self.calls += 1;
        if involuntary_switches() > call.0 {
            self.preempted_calls += 1;
        }
        let last = self.end.as_ref().map_or(self.start.at, |s| s.at);
        if last.elapsed() >= Self::RESCAN {
            self.end = Some(Snapshot::take());
        }
    }

    /// Ends the window (at the last snapshot taken after a call, or now).
    pub fn finish(self) -> Activity {
        let end = self.end.unwrap_or_else(Snapshot::take);
        let mut a = diff(&self.start, &end);
        a.calls = self.calls;
        a.preempted_calls = self.preempted_calls;
        a
    }
}

/// Watches the machine for `secs` seconds from now, this process and its
/// descendants being "ours": what `lmbench run` checks before it starts.
pub fn sample(secs: f64) -> Activity {
    let w = Window::start();
    std::thread::sleep(std::time::Duration::from_secs_f64(secs));
    w.finish()
}

/// The machine at one instant.
struct Snapshot {
    at: Instant,
    load: Option<f64>,
    system: Option<System>,
    #[cfg(target_os = "linux")]
    procs: Option<crate::activity_linux::Procs>,
}

/// Whole-machine counters, in seconds (CPU times) and counts.
#[derive(Clone, Copy, Default)]
pub(crate) struct System {
    /// Busy time of all CPUs (user, nice, system, irq, softirq), seconds.
    pub(crate) busy_s: f64,
    /// Total time of all CPUs, seconds (busy + idle + iowait + steal).
    pub(crate) total_s: f64,
    pub(crate) steal_s: Option<f64>,
    pub(crate) irq_s: Option<f64>,
    pub(crate) ctxt: Option<u64>,
    pub(crate) intr: Option<u64>,
}

impl Snapshot {
    fn take() -> Snapshot {
        Snapshot {
            at: Instant::now(),
            load: load_average(),
            system: system_counters(),
            #[cfg(target_os = "linux")]
            procs: crate::activity_linux::Procs::scan(),
        }
    }
}

fn diff(a: &Snapshot, b: &Snapshot) -> Activity {
    let wall_s = b.at.duration_since(a.at).as_secs_f64();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let mut act = Activity {
        wall_s,
        cpus,
        load_start: a.load,
        load_end: b.load,
        ..Activity::default()
    };
    if let (Some(x), Some(y)) = (a.system, b.system) {
        let d = |f: fn(&System) -> Option<f64>| Some(f(&y)? - f(&x)?).map(|v| v.max(0.0));
        let total = y.total_s - x.total_s;
        if total > 0.0 {
            act.busy_cpus = Some((y.busy_s - x.busy_s).max(0.0) / total * cpus as f64);
        }
        // Steal is tick-rounded too: one tick per CPU is not "busy".
        act.steal_s = d(|s| s.steal_s).map(|v| (v - 0.01 * cpus as f64).max(0.0));
        act.irq_s = d(|s| s.irq_s);
        let rate = |f: fn(&System) -> Option<u64>| {
            let (p, q) = (f(&x)?, f(&y)?);
            (wall_s > 0.0).then(|| q.saturating_sub(p) as f64 / wall_s)
        };
        act.ctxt_per_s = rate(|s| s.ctxt);
        act.intr_per_s = rate(|s| s.intr);
    }
    #[cfg(target_os = "linux")]
    if let (Some(p), Some(q)) = (&a.procs, &b.procs) {
        let d = crate::activity_linux::diff(p, q);
        act.ours_cpu_s = Some(d.ours_s);
        act.others_cpu_s = Some(d.others_s);
        act.kernel_cpu_s = Some(d.kernel_s);
        act.top = d.top;
    }
    act
}

/// The timed process's involuntary context switches so far.
fn involuntary_switches() -> i64 {
    use nix::sys::resource::{getrusage, UsageWho};
    // c_long: i64 here, i32 on 32-bit targets.
    #[allow(clippy::unnecessary_cast)]
    getrusage(UsageWho::RUSAGE_SELF).map_or(0, |ru| ru.involuntary_context_switches() as i64)
}

/// The 1-minute load average.
fn load_average() -> Option<f64> {
    let mut l = [0f64; 3];
    // SAFETY: getloadavg writes at most `nelem` (1) doubles into `l`.
    let n = unsafe { libc::getloadavg(l.as_mut_ptr(), 1) };
    (n >= 1).then_some(l[0])
}

#[cfg(target_os = "linux")]
fn system_counters() -> Option<System> {
    crate::activity_linux::system()
}

/// FreeBSD and DragonFly: `kern.cp_time`, the CPU states summed over all
/// CPUs (user, nice, sys, intr, idle) in stat-clock ticks; shares of the
/// total are all the window needs, so ticks stand in for seconds scaled by
/// the CPU count.
#[cfg(any(target_os = "freebsd", target_os = "dragonfly"))]
fn system_counters() -> Option<System> {
    let mut t = [0 as libc::c_long; 5];
    let mut len = std::mem::size_of_val(&t);
    // SAFETY: the name is NUL-terminated; `t` has room for `len` bytes and
    // the kernel writes at most that many.
    let r = unsafe {
        libc::sysctlbyname(
            c"kern.cp_time".as_ptr(),
            t.as_mut_ptr().cast(),
            &mut len,
            std::ptr::null(),
            0,
        )
    };
    if r != 0 || len != std::mem::size_of_val(&t) {
        return None;
    }
    let busy = (t[0] + t[1] + t[2] + t[3]) as f64;
    let total = busy + t[4] as f64;
    Some(System {
        busy_s: busy,
        total_s: total,
        irq_s: None,
        ..System::default()
    })
}

#[cfg(not(any(target_os = "linux", target_os = "freebsd", target_os = "dragonfly")))]
fn system_counters() -> Option<System> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn act(others: Option<f64>, steal: Option<f64>, wall: f64) -> Activity {
        Activity {
            wall_s: wall,
            cpus: 2,
            others_cpu_s: others,
            steal_s: steal,
            top: vec![Proc {
                name: "stress".into(),
                cpu_s: others.unwrap_or(0.0),
            }],
            ..Activity::default()
        }
    }

    #[test]
    fn busy_means_other_work_over_the_threshold() {
        assert!(act(Some(0.9), None, 1.0).is_busy(BUSY_CPUS));
        assert!(act(Some(0.02), Some(0.04), 1.0).is_busy(BUSY_CPUS));
        assert!(!act(Some(0.02), Some(0.0), 1.0).is_busy(BUSY_CPUS));
        // Unknown is not busy: nothing to flag on.
        assert!(!act(None, Some(0.5), 1.0).is_busy(BUSY_CPUS));
        assert!(!act(Some(1.0), None, 0.0).is_busy(BUSY_CPUS));
        let d = act(Some(0.9), None, 1.0).describe();
        assert!(d.contains("other work 0.90 CPU (stress 0.90)"), "{d}");
        let worst = [act(Some(0.1), None, 1.0), act(Some(0.5), None, 1.0)];
        assert_eq!(Activity::worst(&worst).unwrap().others_cpu_s, Some(0.5));
    }

    /// This thread's CPU time. Not the process's: other tests' threads
    /// run beside this one, and their CPU would end the spin early (the
    /// process reached 0.3 s of CPU in a 0.1 s window in a CI run).
    fn own_cpu_s() -> f64 {
        use nix::sys::time::TimeValLike;
        let ru = crate::sys::thread_usage().unwrap();
        (ru.user_time().num_microseconds() + ru.system_time().num_microseconds()) as f64 / 1e6
    }

    #[test]
    fn our_own_work_counts_as_ours() {
        // Spin for 0.3 s of CPU in timed "calls": however busy the machine
        // is, our own spinning must be ours, never other work.
        let mut w = Window::start();
        let start = own_cpu_s();
        while own_cpu_s() - start < 0.3 {
            let c = w.call_start();
            let mut x = 0u64;
            for i in 0..100_000u64 {
                x = std::hint::black_box(x.wrapping_add(i));
            }
            w.call_end(c);
        }
        let a = w.finish();
        assert!(a.calls > 10, "{a:?}");
        assert!(a.preempted_calls <= a.calls);
        if cfg!(target_os = "linux") {
            // The window ends at the last rescan (at most 0.1 s of wall,
            // so of this thread's CPU, before the last call), so it holds
            // at least 0.2 s of this thread's spinning; times are in 10 ms
            // ticks.
            let ours = a.ours_cpu_s.unwrap();
            assert!(ours >= 0.15, "our spinning must count as ours: {a:?}");
            assert!(a.top.iter().all(|p| p.cpu_s > 0.0), "{a:?}");
            assert!(a.busy_cpus.is_some() && a.load_end.is_some(), "{a:?}");
        }
    }
}
