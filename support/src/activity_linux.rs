//! Linux side of [`crate::activity`]: `/proc/stat` and a scan of every
//! `/proc/<pid>/stat` (about a millisecond for a hundred processes).
//!
//! Init (pid 1) counts only its own time: what it reaps are orphans, very
//! often a bench's own helpers torn down after the previous benchmark,
//! whose whole lifetime would otherwise land in one window as other work.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::activity::Proc;

/// Seconds per clock tick (`USER_HZ`, 100 on every Linux we know).
fn tick_s() -> f64 {
    use nix::unistd::{sysconf, SysconfVar};
    let hz = sysconf(SysconfVar::CLK_TCK).ok().flatten().unwrap_or(0);
    1.0 / if hz > 0 { hz as f64 } else { 100.0 }
}

/// The whole machine from `/proc/stat`: the aggregate `cpu` line (user
/// nice system idle iowait irq softirq steal, in ticks), `ctxt` and the
/// total of `intr`.
pub(crate) fn system() -> Option<crate::activity::System> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    parse_stat(&text, tick_s())
}

fn parse_stat(text: &str, tick: f64) -> Option<crate::activity::System> {
    let mut sys = None;
    let (mut ctxt, mut intr) = (None, None);
    for line in text.lines() {
        let mut words = line.split_ascii_whitespace();
        match words.next() {
            Some("cpu") => {
                let v: Vec<f64> = words.filter_map(|w| w.parse().ok()).collect();
                if v.len() < 7 {
                    return None;
                }
                let at = |i: usize| v.get(i).copied().unwrap_or(0.0);
                let (user, nice, system, idle, iowait, irq, softirq) =
                    (at(0), at(1), at(2), at(3), at(4), at(5), at(6));
                let steal = v.get(7).copied();
                let busy = user + nice + system + irq + softirq;
                sys = Some(crate::activity::System {
                    busy_s: busy * tick,
                    total_s: (busy + idle + iowait + steal.unwrap_or(0.0)) * tick,
                    steal_s: steal.map(|s| s * tick),
                    irq_s: Some((irq + softirq) * tick),
                    ctxt: None,
                    intr: None,
                });
            }
            Some("ctxt") => ctxt = words.next().and_then(|w| w.parse().ok()),
            Some("intr") => intr = words.next().and_then(|w| w.parse().ok()),
            _ => {}
        }
    }
    let mut s = sys?;
    s.ctxt = ctxt;
    s.intr = intr;
    Some(s)
}

/// One process as `/proc/<pid>/stat` shows it.
#[derive(Debug, Clone)]
struct Stat {
    name: String,
    ppid: i32,
    /// Clock ticks since boot at which it started (tells a reused pid).
    start: u64,
    /// utime + stime + cutime + cstime, in ticks (init: utime + stime).
    ticks: u64,
    /// utime + stime alone.
    own_ticks: u64,
    kernel: bool,
}

/// `PF_KTHREAD` in the `flags` field.
const PF_KTHREAD: u64 = 0x0020_0000;

/// Parses one `/proc/<pid>/stat` line. The name is in parentheses and may
/// itself hold spaces and parentheses: the fields start after the last `)`.
fn parse_pid_stat(line: &str) -> Option<Stat> {
    let open = line.find('(')?;
    let close = line.rfind(')')?;
    let name = line.get(open + 1..close)?.to_string();
    let f: Vec<&str> = line.get(close + 1..)?.split_ascii_whitespace().collect();
    // f[0] is field 3 (state): field n is f[n - 3].
    let num = |n: usize| f.get(n - 3).and_then(|w| w.parse::<u64>().ok());
    let ppid = f.get(1)?.parse().ok()?;
    let flags = num(9)?;
    let own_ticks = num(14)? + num(15)?;
    Some(Stat {
        name,
        ppid,
        start: num(22)?,
        ticks: own_ticks + num(16)? + num(17)?,
        own_ticks,
        kernel: flags & PF_KTHREAD != 0,
    })
}

/// Every process at one instant, and which of them are ours.
pub(crate) struct Procs {
    by_pid: HashMap<i32, Stat>,
    ours: HashSet<i32>,
}

impl Procs {
    pub(crate) fn scan() -> Option<Procs> {
        let mut by_pid = HashMap::new();
        for e in std::fs::read_dir("/proc").ok()?.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else {
                continue;
            };
            // A process may exit between readdir and read: skip it.
            let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            if let Some(mut s) = parse_pid_stat(&text) {
                if pid == 1 {
                    s.ticks = s.own_ticks;
                }
                by_pid.insert(pid, s);
            }
        }
        let ours = descendants(&by_pid, std::process::id() as i32);
        Some(Procs { by_pid, ours })
    }
}

/// `root` and every process below it.
fn descendants(by_pid: &HashMap<i32, Stat>, root: i32) -> HashSet<i32> {
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for (&pid, s) in by_pid {
        children.entry(s.ppid).or_default().push(pid);
    }
    let mut ours = HashSet::new();
    let mut stack = vec![root];
    while let Some(p) = stack.pop() {
        if ours.insert(p) {
            stack.extend(children.get(&p).into_iter().flatten());
        }
    }
    ours
}

/// CPU use between two scans.
pub(crate) struct Diff {
    pub ours_s: f64,
    pub others_s: f64,
    pub kernel_s: f64,
    pub top: Vec<Proc>,
}

/// How many of the busiest other programs a window names.
const TOP: usize = 3;

pub(crate) fn diff(a: &Procs, b: &Procs) -> Diff {
    diff_with_tick(a, b, tick_s())
}

fn diff_with_tick(a: &Procs, b: &Procs, tick: f64) -> Diff {
    // Per process: its ticks now less its ticks at the start (a new or
    // reused pid started from zero).
    let mut delta: HashMap<i32, i64> = HashMap::new();
    for (&pid, s) in &b.by_pid {
        let before = a
            .by_pid
            .get(&pid)
            .filter(|p| p.start == s.start)
            .map_or(0, |p| p.ticks);
        delta.insert(pid, s.ticks as i64 - before as i64);
    }
    // A process that ended in the window was reaped by its parent, whose
    // cutime now holds all of its time: take back what it had used before.
    for (pid, s) in &a.by_pid {
        let gone = b.by_pid.get(pid).is_none_or(|p| p.start != s.start);
        if gone {
            if let Some(d) = delta.get_mut(&s.ppid) {
                *d -= s.ticks as i64;
            }
        }
    }
    let (mut ours, mut others, mut kernel) = (0i64, 0.0, 0i64);
    let mut by_name: BTreeMap<&str, f64> = BTreeMap::new();
    for (pid, d) in &delta {
        let s = &b.by_pid[pid];
        let d = (*d).max(0);
        if a.ours.contains(pid) || b.ours.contains(pid) {
            ours += d;
        } else if s.kernel {
            kernel += d;
        } else {
            // Tick-rounded at both ends: one tick is within rounding.
            let lower = (d - 1).max(0) as f64 * tick;
            if lower > 0.0 {
                others += lower;
                *by_name.entry(&s.name).or_default() += lower;
            }
        }
    }
    let mut top: Vec<Proc> = by_name
        .into_iter()
        .map(|(name, cpu_s)| Proc {
            name: name.to_string(),
            cpu_s,
        })
        .collect();
    top.sort_by(|x, y| y.cpu_s.total_cmp(&x.cpu_s).then(x.name.cmp(&y.name)));
    top.truncate(TOP);
    Diff {
        ours_s: ours as f64 * tick,
        others_s: others,
        kernel_s: kernel as f64 * tick,
        top,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_proc_stat() {
        let text = "cpu  100 5 50 1000 20 3 7 11 0 0\ncpu0 1 2 3 4\nintr 4242 0 1\nctxt 777\n";
        let s = parse_stat(text, 0.01).unwrap();
        assert!((s.busy_s - 1.65).abs() < 1e-9);
        assert!((s.total_s - 11.96).abs() < 1e-9);
        assert_eq!(s.steal_s, Some(0.11));
        assert_eq!((s.ctxt, s.intr), (Some(777), Some(4242)));
        assert!(parse_stat("cpu 1 2\n", 0.01).is_none());
        // The live file parses.
        assert!(system().is_some());
    }

    #[test]
    fn parses_pid_stat_with_odd_names() {
        let line = "4242 (we (ird) name) S 17 4242 4242 0 -1 4194304 99 0 0 0 \
                    30 12 5 3 20 0 1 0 69057 3133440 390 18446744073709551615";
        let s = parse_pid_stat(line).unwrap();
        assert_eq!(s.name, "we (ird) name");
        assert_eq!(s.ppid, 17);
        assert_eq!((s.ticks, s.own_ticks), (50, 42));
        assert_eq!(s.start, 69057);
        assert!(!s.kernel);
        let kthread = "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 1 0 0 20 0 1 0 1 0 0 0";
        assert!(parse_pid_stat(kthread).unwrap().kernel);
        assert!(parse_pid_stat("garbage").is_none());
    }

    fn procs(me: i32, list: &[(i32, &str, i32, u64, u64)]) -> Procs {
        let by_pid: HashMap<i32, Stat> = list
            .iter()
            .map(|&(pid, name, ppid, start, ticks)| {
                let s = Stat {
                    name: name.into(),
                    ppid,
                    start,
                    ticks,
                    own_ticks: ticks,
                    kernel: name.starts_with('k'),
                };
                (pid, s)
            })
            .collect();
        let ours = descendants(&by_pid, me);
        Procs { by_pid, ours }
    }

    #[test]
    fn charges_other_work_and_not_ours() {
        // 10 = us, 11 = our peer, 20 = a hog, 30 = cargo whose rustc (31)
        // ran 40 ticks before the window and 60 in it, then was reaped;
        // 40 = a daemon that crossed one tick; 2 = a kernel thread.
        let a = procs(
            10,
            &[
                (10, "bench", 1, 5, 100),
                (11, "peer", 10, 6, 50),
                (20, "stress", 1, 7, 0),
                (30, "cargo", 1, 8, 10),
                (31, "rustc", 30, 9, 40),
                (40, "sshd", 1, 2, 500),
                (2, "kworker", 0, 1, 0),
            ],
        );
        let b = procs(
            10,
            &[
                (10, "bench", 1, 5, 150),
                (11, "peer", 10, 6, 80),
                (20, "stress", 1, 7, 100),
                (30, "cargo", 1, 8, 10 + 100),
                (40, "sshd", 1, 2, 501),
                (2, "kworker", 0, 1, 4),
                // A new process with a reused pid of nobody we saw.
                (50, "make", 1, 99, 3),
            ],
        );
        let d = diff_with_tick(&a, &b, 0.01);
        assert!((d.ours_s - 0.80).abs() < 1e-9, "{}", d.ours_s);
        // stress 99, cargo (rustc's 60 in the window) 59, sshd 0, make 2.
        assert!((d.others_s - 1.60).abs() < 1e-9, "{}", d.others_s);
        assert!((d.kernel_s - 0.04).abs() < 1e-9);
        let names: Vec<&str> = d.top.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["stress", "cargo", "make"]);
        // Nothing changed: nothing charged.
        let same = diff_with_tick(&a, &a, 0.01);
        assert_eq!((same.ours_s, same.others_s), (0.0, 0.0));
    }

    #[test]
    fn a_scan_finds_this_process_as_ours() {
        let p = Procs::scan().unwrap();
        assert!(p.ours.contains(&(std::process::id() as i32)));
        assert!(p.by_pid.len() > 1);
    }
}
