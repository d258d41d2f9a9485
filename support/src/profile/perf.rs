//! perf: the kernel-inclusive profiler.
//!
//! `lmbench profile` runs the bench under `perf record` with events
//! disabled (`-D -1`) and a control channel (`--control fifo:CTL,ACK`);
//! the bench's Criterion profiler writes `enable` when Criterion starts
//! `--profile-time` for the benchmark and `disable` when it stops, so only
//! the profiled benchmark is sampled (not the build, setup or other
//! benchmarks).
//!
//! perf samples system-wide (`-a`, per-CPU timers) and we keep only the
//! samples of the bench's process tree: at `enable` the bench writes its
//! pid and its descendants' (its `lmbench-peer` helpers) to a file, and
//! every process forked from those during the recording (lat_proc's
//! children) is added from perf's fork records. Why not per-task
//! sampling of the workload (perf's default, events inherited by each
//! child): a per-task timer only fires after 2 ms (1/499 Hz) of that
//! task's CPU time, so lat_proc's children, which live ~100 us, are never
//! sampled, and on this kernel even the peer got 3 samples in 3 s against
//! 700 system-wide. Inherited events also make every fork dearer.
//!
//! Call graphs: DWARF (`--call-graph dwarf,32768`): perf copies the top
//! 32 KB of the user stack with each sample and unwinds it with .eh_frame,
//! which every Rust binary and libc have, so the Rust frames above the
//! syscall show up (inlined ones too, from the bench profile's line
//! tables: `timed_loop`, the bench's closure) in the very release binary
//! whose figures we report. Frame pointers would need a separate build
//! with `-C force-frame-pointers=yes` (and a standard library and libc
//! built with them: glibc's `syscall` is not); tried on lat_syscall/null
//! they gave stacks ending at libc's `syscall`, 1-7 frames deep against
//! 33-44 with DWARF. `LMBENCH_PERF_CALL_GRAPH=fp` (or `dwarf,SIZE`)
//! overrides. Kernel stacks are unwound by the kernel either way.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use inferno::collapse::Collapse;

use super::flame::Stacks;

/// Sampling frequency (Hz). Odd, so it does not beat with periodic timers;
/// modest, so DWARF stack copies stay a few MB per second.
pub const FREQUENCY: u32 = 499;

/// Paths of the control FIFOs, passed from `lmbench profile` to the bench.
pub const CTL_ENV: &str = "LMBENCH_PERF_CTL";
pub const ACK_ENV: &str = "LMBENCH_PERF_ACK";
/// File the bench writes the pids of its process tree to at `enable`.
pub const PIDS_ENV: &str = "LMBENCH_PERF_PIDS";

/// `--call-graph` mode: `LMBENCH_PERF_CALL_GRAPH`, else DWARF with 32 KB
/// of user stack per sample. Criterion 0.8 runs each measured batch through
/// `alloca::with_alloca` (a C trampoline that moves the stack by a varying
/// amount), so the stack above the bench's loop is deep and irregular:
/// with perf's default 8 KB, 75 % of lat_syscall/null's stacks stopped
/// there (`[[stack]]` frames), 28 % with 16 KB; with 32 KB it varies from
/// run to run (0 % to ~70 %). The frames that matter, the syscall path in
/// the kernel, libc and the bench's loop up to Criterion's `Routine::bench`,
/// are intact either way; only the trunk above is cut.
pub fn call_graph() -> String {
    std::env::var("LMBENCH_PERF_CALL_GRAPH")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "dwarf,32768".to_string())
}

/// `perf record` arguments up to (not including) the workload: sample
/// every CPU at [`FREQUENCY`] with call graphs into `data`, events off
/// until the control FIFOs `ctl`/`ack` enable them.
pub fn record_args(data: &Path, ctl: &Path, ack: &Path) -> Vec<std::ffi::OsString> {
    let mut a: Vec<std::ffi::OsString> = Vec::new();
    for s in [
        "record",
        "-q",
        // System-wide; fold() keeps the bench's process tree.
        "-a",
        "-F",
        &FREQUENCY.to_string(),
        "--call-graph",
        &call_graph(),
    ] {
        a.push(s.into());
    }
    a.push("-o".into());
    a.push(data.into());
    a.push("-D".into());
    a.push("-1".into());
    let mut control = std::ffi::OsString::from("fifo:");
    control.push(ctl);
    control.push(",");
    control.push(ack);
    a.push("--control".into());
    a.push(control);
    a
}

/// Creates the two control FIFOs in `dir`.
pub fn make_fifos(dir: &Path) -> io::Result<(PathBuf, PathBuf)> {
    let ctl = dir.join("perf-ctl.fifo");
    let ack = dir.join("perf-ack.fifo");
    for p in [&ctl, &ack] {
        let mode = nix::sys::stat::Mode::from_bits_truncate(0o600);
        if let Err(e) = nix::unistd::mkfifo(p.as_path(), mode) {
            let e = io::Error::from(e);
            return Err(io::Error::new(
                e.kind(),
                format!("mkfifo {}: {e}", p.display()),
            ));
        }
    }
    Ok((ctl, ack))
}

/// The bench's end of perf's control channel.
#[derive(Debug)]
pub struct Control {
    ctl: File,
    ack: File,
}

/// How long perf may take to acknowledge a command.
const ACK_TIMEOUT: Duration = Duration::from_secs(20);

impl Control {
    /// Opens the FIFOs named by [`CTL_ENV`]/[`ACK_ENV`]; `None` when the
    /// bench does not run under `lmbench profile`'s perf.
    pub fn from_env() -> Option<io::Result<Control>> {
        let ctl = std::env::var_os(CTL_ENV)?;
        let ack = std::env::var_os(ACK_ENV)?;
        Some(Control::open(Path::new(&ctl), Path::new(&ack)))
    }

    pub fn open(ctl: &Path, ack: &Path) -> io::Result<Control> {
        use std::os::unix::fs::OpenOptionsExt;
        let named =
            |p: &Path, e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", p.display()));
        // Read+write opens of a FIFO never block (Linux), even before perf
        // has opened its ends; non-blocking reads of the ack FIFO let us
        // time out on a perf that died or stopped answering.
        let ctl_f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(ctl)
            .map_err(|e| named(ctl, e))?;
        let ack_f = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(ack)
            .map_err(|e| named(ack, e))?;
        Ok(Control {
            ctl: ctl_f,
            ack: ack_f,
        })
    }

    /// Starts sampling; returns once perf has acknowledged.
    pub fn enable(&mut self) -> io::Result<()> {
        self.command("enable")
    }

    /// Stops sampling; returns once perf has acknowledged.
    pub fn disable(&mut self) -> io::Result<()> {
        self.command("disable")
    }

    fn command(&mut self, cmd: &str) -> io::Result<()> {
        self.ctl.write_all(format!("{cmd}\n").as_bytes())?;
        let deadline = Instant::now() + ACK_TIMEOUT;
        // perf answers "ack\n" followed by a NUL.
        let mut got = Vec::new();
        while !got.contains(&b'\n') {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("perf did not acknowledge `{cmd}` within {ACK_TIMEOUT:?}"),
                ));
            }
            use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
            use std::os::fd::AsFd;
            let ms = left.as_millis().min(1000) as u16;
            match poll(
                &mut [PollFd::new(self.ack.as_fd(), PollFlags::POLLIN)],
                PollTimeout::from(ms),
            ) {
                Ok(_) => {}
                Err(nix::errno::Errno::EINTR) => continue,
                Err(e) => return Err(e.into()),
            }
            let mut buf = [0u8; 64];
            match self.ack.read(&mut buf) {
                Ok(0) => std::thread::sleep(Duration::from_millis(5)),
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// This process and its descendants (its peers), from /proc.
pub fn self_and_descendants() -> Vec<u32> {
    let mut parent_of: Vec<(u32, u32)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for e in entries.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            // /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold
            // spaces and parentheses, so parse after the last ')'.
            let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
                continue;
            };
            let Some((_, rest)) = stat.rsplit_once(')') else {
                continue;
            };
            if let Some(ppid) = rest.split_whitespace().nth(1).and_then(|s| s.parse().ok()) {
                parent_of.push((pid, ppid));
            }
        }
    }
    descendants(&[std::process::id()], &parent_of)
}

/// `roots` and every process descending from them through `(child,
/// parent)` links (in any order).
pub fn descendants(roots: &[u32], links: &[(u32, u32)]) -> Vec<u32> {
    let mut children: std::collections::HashMap<u32, Vec<u32>> = Default::default();
    for &(c, p) in links {
        children.entry(p).or_default().push(c);
    }
    let mut seen: std::collections::HashSet<u32> = roots.iter().copied().collect();
    let mut tree: Vec<u32> = roots.to_vec();
    let mut i = 0;
    while i < tree.len() {
        for &c in children.get(&tree[i]).map(Vec::as_slice).unwrap_or(&[]) {
            if seen.insert(c) {
                tree.push(c);
            }
        }
        i += 1;
    }
    tree
}

/// Writes the pids of this process tree to `path`: the roots on the first
/// line, then the pids to leave out (perf itself, when we started it) on
/// the second, each a comma-separated list.
pub fn write_pids(path: &Path, exclude: &[u32]) -> io::Result<()> {
    let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
    let tree: Vec<u32> = self_and_descendants()
        .into_iter()
        .filter(|p| !exclude.contains(p))
        .collect();
    std::fs::write(path, format!("{}\n{}\n", list(&tree), list(exclude)))
        .map_err(|e| io::Error::new(e.kind(), format!("writing {}: {e}", path.display())))
}

fn parse_pid_list(line: &str) -> Vec<u32> {
    line.split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect()
}

/// `(child, parent)` pids of process forks, and `(pid, comm)` names.
type TaskEvents = (Vec<(u32, u32)>, Vec<(u32, String)>);

/// perf's task records: process forks and the process names seen.
fn task_events(perf: &Path, data: &Path) -> io::Result<TaskEvents> {
    let out = Command::new(perf)
        .arg("script")
        .arg("-i")
        .arg(data)
        .args(["--show-task-events", "-F", "comm,pid"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| io::Error::new(e.kind(), format!("running {} script: {e}", perf.display())))?;
    let text = String::from_utf8_lossy(&out.stdout);
    Ok((parse_forks(&text), parse_comms(&text)))
}

/// `(pid, comm)` from task-event lines `COMM PID PERF_RECORD_...`.
pub fn parse_comms(text: &str) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((head, _)) = line.split_once(" PERF_RECORD_") else {
            continue;
        };
        let Some((comm, pid)) = head.trim().rsplit_once(' ') else {
            continue;
        };
        if let Ok(pid) = pid.parse() {
            out.push((pid, comm.trim().to_string()));
        }
    }
    out
}

/// Parses `PERF_RECORD_FORK(child_pid:child_tid):(parent_pid:parent_tid)`.
pub fn parse_forks(text: &str) -> Vec<(u32, u32)> {
    let mut links = Vec::new();
    for line in text.lines() {
        let Some((_, rest)) = line.split_once("PERF_RECORD_FORK(") else {
            continue;
        };
        let nums: Vec<u32> = rest
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .filter_map(|s| s.parse().ok())
            .collect();
        if let [child, _, parent, _, ..] = nums[..] {
            if child != parent {
                links.push((child, parent));
            }
        }
    }
    links
}

/// Turns a system-wide perf.data into folded stacks of the process tree
/// rooted at the pids listed in `pids_file`: `perf script --pid` piped
/// through inferno's perf collapser. perf's complaints go to `log`.
pub fn fold(perf: &Path, data: &Path, pids_file: &Path, log: &Path) -> io::Result<Stacks> {
    let text = std::fs::read_to_string(pids_file).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!(
                "{}: {e} (the bench never enabled perf: did the filter match?)",
                pids_file.display()
            ),
        )
    })?;
    let mut lines = text.lines();
    let roots = parse_pid_list(lines.next().unwrap_or(""));
    let exclude = parse_pid_list(lines.next().unwrap_or(""));
    let (links, comms) = task_events(perf, data)?;
    let tree: Vec<u32> = descendants(&roots, &links)
        .into_iter()
        .filter(|p| !exclude.contains(p))
        .collect();
    let pid_list: Vec<String> = tree.iter().map(u32::to_string).collect();
    let pid_list = pid_list.join(",");
    let log_f = File::create(log)
        .map_err(|e| io::Error::new(e.kind(), format!("creating {}: {e}", log.display())))?;
    let mut cmd = Command::new(perf);
    cmd.arg("script").arg("-i").arg(data);
    // `--pid` spares perf unwinding (and addr2line-ing) every other
    // process's stacks, but one argument may not exceed 128 KB and lat_proc
    // forks thousands of pids: then `--comm` with our processes' names
    // does the coarse cut, and the pid filter below the exact one.
    if pid_list.len() < 100_000 {
        cmd.arg("--pid").arg(&pid_list);
    } else {
        let in_tree: std::collections::HashSet<u32> = tree.iter().copied().collect();
        let mut names: Vec<&str> = comms
            .iter()
            .filter(|(p, _)| in_tree.contains(p))
            .map(|(_, c)| c.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        cmd.arg("--comm").arg(names.join(","));
    }
    let mut child = cmd
        // No `period`: inferno then counts samples, not nanoseconds (or
        // cycles) of the event.
        .args(["-F", "comm,pid,tid,time,event,ip,sym,dso"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log_f)
        .spawn()
        .map_err(|e| io::Error::new(e.kind(), format!("running {} script: {e}", perf.display())))?;
    let stdout = child.stdout.take().expect("stdout was piped");
    // inferno splits a frame at "->" (Java's inlining marker), which
    // breaks Rust's `fn() -> T` in generic names into bogus frames.
    let mut script = String::new();
    let read = BufReader::new(stdout).read_to_string(&mut script);
    let status = child.wait()?;
    read?;
    let script = script.replace("->", "\u{2192}");
    let mut opt = inferno::collapse::perf::Options::default();
    // One thread: the machine is shared and the input is modest.
    opt.nthreads = 1;
    // Root frame `comm-pid`, to keep only our process tree.
    opt.include_pid = true;
    let mut folded = Vec::new();
    inferno::collapse::perf::Folder::from(opt).collapse(script.as_bytes(), &mut folded)?;
    if !status.success() {
        return Err(io::Error::other(format!(
            "perf script failed ({status}); see {}",
            log.display()
        )));
    }
    let text = String::from_utf8_lossy(&folded);
    let stacks = Stacks::parse(&text).map_err(io::Error::other)?;
    let keep: std::collections::HashSet<u32> = tree.into_iter().collect();
    Ok(keep_pids(stacks, &keep).strip_build_hash())
}

/// Keeps the stacks whose root frame `comm-pid` names a pid in `keep`, the
/// root becoming `comm`.
pub fn keep_pids(stacks: Stacks, keep: &std::collections::HashSet<u32>) -> Stacks {
    let mut counts = std::collections::BTreeMap::new();
    for (stack, c) in stacks.counts {
        let (root, rest) = stack.split_once(';').unwrap_or((&stack, ""));
        let Some((comm, pid)) = root.rsplit_once('-') else {
            continue;
        };
        if pid.parse().is_ok_and(|p: u32| keep.contains(&p)) {
            let s = if rest.is_empty() {
                comm.to_string()
            } else {
                format!("{comm};{rest}")
            };
            *counts.entry(s).or_insert(0) += c;
        }
    }
    Stacks { counts }
}

/// The first lines of a log, for an error message.
pub fn log_head(log: &Path, lines: usize) -> String {
    match File::open(log) {
        Ok(f) => BufReader::new(f)
            .lines()
            .map_while(Result::ok)
            .filter(|l| !l.trim().is_empty())
            .take(lines)
            .collect::<Vec<_>>()
            .join(" / "),
        Err(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fork_records_build_the_process_tree() {
        let text = "    0 PERF_RECORD_FORK(1:1):(0:0)\n\
                    10 PERF_RECORD_FORK(11:11):(10:10)\n\
                    10 PERF_RECORD_FORK(10:12):(10:10)\n\
                    11 PERF_RECORD_FORK(13:13):(11:11)\n\
                    99 PERF_RECORD_FORK(98:98):(99:99)\n\
                    11 PERF_RECORD_EXIT(13:13):(11:11)\n";
        let links = parse_forks(text);
        assert_eq!(parse_comms("    lmbench-peer 31408 PERF_RECORD_FORK(1:1):(2:2)\n lto cgu.00 7 PERF_RECORD_EXIT(7:7):(6:6)\n"),
            [(31408, "lmbench-peer".to_string()), (7, "lto cgu.00".to_string())]);
        assert_eq!(
            links,
            [(1, 0), (11, 10), (13, 11), (98, 99)],
            "threads left out"
        );
        let mut tree = descendants(&[10], &links);
        tree.sort();
        assert_eq!(tree, [10, 11, 13]);
    }

    #[test]
    fn keeps_only_the_tree() {
        let s = Stacks::parse("lat_proc-5ade9f-10;a 2\nlmbench-peer-11;fork 5\nrustc-99;x 7\n")
            .unwrap();
        let keep = [10, 11].into_iter().collect();
        let kept = keep_pids(s, &keep).strip_build_hash();
        let keys: Vec<_> = kept.counts.keys().cloned().collect();
        assert_eq!(keys, ["lat_proc;a", "lmbench-peer;fork"]);
    }

    #[test]
    fn record_args_start_disabled_with_control() {
        let a = record_args(Path::new("d"), Path::new("c"), Path::new("k"));
        let a: Vec<String> = a.iter().map(|s| s.to_string_lossy().into_owned()).collect();
        assert!(a.windows(2).any(|w| w == ["-D", "-1"]), "{a:?}");
        assert!(
            a.windows(2).any(|w| w == ["--control", "fifo:c,k"]),
            "{a:?}"
        );
        assert!(a.contains(&"-a".to_string()));
    }
}
