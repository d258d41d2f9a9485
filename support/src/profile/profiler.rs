//! The Criterion 0.8 `Profiler` every bench is configured with
//! (`harness::config()`). Criterion calls it only under `--profile-time`,
//! so it never runs during measurement. It picks its backend at the first
//! profiled benchmark:
//!
//! - under `lmbench profile` with perf: the perf that started this process
//!   is switched on and off through its control FIFOs (see `perf.rs`);
//!   `lmbench profile` folds and draws once perf has written its data;
//! - otherwise (`cargo bench -- --profile-time N` by hand), by
//!   `select::choose`: perf started here (system-wide, filtered to this
//!   process tree as under `lmbench profile`), or pprof.
//!
//! Outputs go to Criterion's profile directory of the benchmark,
//! `<criterion home>/<id>/profile/`: `perf.folded` + `perf.svg` or
//! `pprof.folded` + `pprof.svg` (older ones there are removed first, so
//! the directory holds one profile).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use criterion::profiler::Profiler;

use super::flame::{self, Stacks};
use super::perf::{self, Control};
use super::select::{self, Kind};

/// Set by `lmbench profile` when it has already printed the notice.
pub const NOTICE_SHOWN_ENV: &str = "LMBENCH_PROFILER_NOTICE_SHOWN";

/// Sampling frequency of pprof (Hz of process CPU time).
const PPROF_FREQUENCY: i32 = 999;

enum Backend {
    /// Under `lmbench profile`'s perf: toggle it.
    PerfControl(Control),
    /// perf started by us, system-wide, filtered to our process tree.
    PerfAttach(PathBuf),
    Pprof,
}

enum Running {
    None,
    Attached {
        perf: Child,
        control: Control,
        tmp: tempfile::TempDir,
    },
    Pprof(pprof::ProfilerGuard<'static>),
}

/// Chooses perf or pprof at the first `--profile-time` benchmark.
pub struct Auto {
    backend: Option<Backend>,
    running: Running,
}

impl Default for Auto {
    fn default() -> Self {
        Auto {
            backend: None,
            running: Running::None,
        }
    }
}

/// Profiling cannot go on: one line, non-zero exit (peers die with us via
/// PR_SET_PDEATHSIG).
fn fatal(id: &str, msg: impl std::fmt::Display) -> ! {
    eprintln!("lmbench: profiling {id}: {msg}");
    std::process::exit(2)
}

fn decide(id: &str) -> Backend {
    if let Some(control) = Control::from_env() {
        return match control {
            Ok(c) => Backend::PerfControl(c),
            Err(e) => fatal(id, format_args!("perf's control FIFOs: {e}")),
        };
    }
    let env = std::env::var(select::ENV).ok();
    let facts = select::Facts::probe();
    let choice = select::choose(env.as_deref(), &facts).unwrap_or_else(|e| fatal(id, e));
    if std::env::var_os(NOTICE_SHOWN_ENV).is_none() {
        eprintln!("{}", choice.notice());
    }
    match (choice.kind, facts.perf) {
        (Kind::Perf, Some(p)) => Backend::PerfAttach(p),
        _ => Backend::Pprof,
    }
}

/// Removes a previous profile's outputs, so the directory holds one.
fn clear_outputs(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        let ours = ["perf.", "pprof.", "diff-"]
            .iter()
            .any(|p| name.starts_with(p))
            && (name.ends_with(".folded") || name.ends_with(".svg"))
            || ["perf.data", "perf.pids"].contains(&name.as_ref())
            || name.starts_with("perf-") && name.ends_with(".log");
        if ours {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

fn attach(id: &str, perf_bin: &Path, dir: &Path) -> Running {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| fatal(id, format_args!("temp dir: {e}")));
    let (ctl, ack) = perf::make_fifos(tmp.path()).unwrap_or_else(|e| fatal(id, e));
    let log = std::fs::File::create(dir.join("perf-record.log"))
        .unwrap_or_else(|e| fatal(id, format_args!("{}: {e}", dir.display())));
    let perf = Command::new(perf_bin)
        .args(perf::record_args(&tmp.path().join("perf.data"), &ctl, &ack))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap_or_else(|e| fatal(id, format_args!("starting {}: {e}", perf_bin.display())));
    let mut control = Control::open(&ctl, &ack).unwrap_or_else(|e| fatal(id, e));
    perf::write_pids(&tmp.path().join("pids"), &[perf.id()]).unwrap_or_else(|e| fatal(id, e));
    if let Err(e) = control.enable() {
        let log = perf::log_head(&dir.join("perf-record.log"), 2);
        fatal(id, format_args!("perf record: {e} ({log})"))
    }
    Running::Attached { perf, control, tmp }
}

fn finish_attached(
    id: &str,
    perf_bin: &Path,
    dir: &Path,
    mut perf: Child,
    mut control: Control,
    tmp: tempfile::TempDir,
) {
    let _ = control.disable();
    // SIGINT: perf writes its data and exits.
    // SAFETY: kill(2) on the pid of our own unreaped child.
    unsafe { libc::kill(perf.id() as libc::pid_t, libc::SIGINT) };
    let status = perf.wait().unwrap_or_else(|e| fatal(id, e));
    let data = tmp.path().join("perf.data");
    if !data.exists() {
        let log = perf::log_head(&dir.join("perf-record.log"), 2);
        fatal(
            id,
            format_args!("perf record wrote nothing ({status}): {log}"),
        );
    }
    let pids = tmp.path().join("pids");
    let stacks = perf::fold(perf_bin, &data, &pids, &dir.join("perf-script.log"))
        .unwrap_or_else(|e| fatal(id, e));
    write_outputs(id, dir, Kind::Perf, &stacks);
}

/// Writes `<kind>.folded` and `<kind>.svg` and says where.
pub fn write_outputs(id: &str, dir: &Path, kind: Kind, stacks: &Stacks) {
    if stacks.is_empty() {
        fatal(id, format_args!("{} recorded no samples", kind.name()));
    }
    let folded = dir.join(format!("{}.folded", kind.name()));
    let svg = dir.join(format!("{}.svg", kind.name()));
    stacks.write(&folded).unwrap_or_else(|e| fatal(id, e));
    let subtitle = format!("{}, {} samples", kind.name(), stacks.total());
    flame::write_svg(stacks, id, Some(&subtitle), &svg).unwrap_or_else(|e| fatal(id, e));
    eprintln!("lmbench: profile of {id}: {}", svg.display());
}

/// pprof's report as folded stacks: thread name, then frames outermost
/// first (pprof lists the leaf first). `;` inside a symbol (array types
/// in generics) would split a frame, so it becomes `:`.
fn pprof_stacks(report: &pprof::Report) -> Stacks {
    let mut counts = std::collections::BTreeMap::new();
    for (frames, &count) in &report.data {
        if count <= 0 {
            continue;
        }
        let mut names = vec![frames.thread_name_or_id()];
        for frame in frames.frames.iter().rev() {
            for sym in frame.iter().rev() {
                names.push(sym.name());
            }
        }
        let stack = names
            .iter()
            .map(|n| n.replace(';', ":"))
            .collect::<Vec<_>>()
            .join(";");
        *counts.entry(stack).or_insert(0) += count as u64;
    }
    Stacks { counts }.strip_build_hash()
}

impl Profiler for Auto {
    fn start_profiling(&mut self, id: &str, dir: &Path) {
        if let Err(e) = std::fs::create_dir_all(dir) {
            fatal(id, format_args!("creating {}: {e}", dir.display()));
        }
        clear_outputs(dir);
        let backend = self.backend.get_or_insert_with(|| decide(id));
        self.running = match backend {
            Backend::PerfControl(c) => {
                if let Some(p) = std::env::var_os(perf::PIDS_ENV) {
                    perf::write_pids(Path::new(&p), &[]).unwrap_or_else(|e| fatal(id, e));
                }
                c.enable().unwrap_or_else(|e| fatal(id, e));
                Running::None
            }
            Backend::PerfAttach(perf_bin) => attach(id, perf_bin, dir),
            // No blocklist (pprof's libc blocklist drops the samples taken
            // inside syscall wrappers: most of a syscall bench).
            Backend::Pprof => Running::Pprof(
                pprof::ProfilerGuardBuilder::default()
                    .frequency(PPROF_FREQUENCY)
                    .build()
                    .unwrap_or_else(|e| fatal(id, format_args!("pprof: {e}"))),
            ),
        };
    }

    fn stop_profiling(&mut self, id: &str, dir: &Path) {
        let running = std::mem::replace(&mut self.running, Running::None);
        match (self.backend.as_mut(), running) {
            (Some(Backend::PerfControl(c)), _) => c.disable().unwrap_or_else(|e| fatal(id, e)),
            (Some(Backend::PerfAttach(perf_bin)), Running::Attached { perf, control, tmp }) => {
                let perf_bin = perf_bin.clone();
                finish_attached(id, &perf_bin, dir, perf, control, tmp)
            }
            (_, Running::Pprof(guard)) => {
                let report = guard
                    .report()
                    .build()
                    .unwrap_or_else(|e| fatal(id, format_args!("pprof report: {e}")));
                drop(guard);
                write_outputs(id, dir, Kind::Pprof, &pprof_stacks(&report));
            }
            _ => {}
        }
    }
}
