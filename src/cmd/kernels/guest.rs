//! One boot: QEMU started on a kernel with the suite's initramfs
//! (`initramfs.rs`, with the init script), the steps run by its init
//! followed on the console, the results port read (`results.rs` unpacks
//! it), QEMU gone.
//!
//! QEMU directly, not virtme-ng: virtme-ng shares the host's root over 9p
//! or virtio-fs, which distribution kernels build as modules (the guest
//! would need the host to have that kernel's modules), and under
//! emulation a file system shared that way is slow enough to measure
//! itself. Here the guest's only devices are two 8250 serial ports, built
//! into every x86 kernel: the first is the console (progress, Criterion's
//! lines, a panic), the second carries the results, sized byte for byte.

use std::io::{BufRead, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

/// How the guest's CPU runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Accel {
    /// KVM when a test boot reaches the guest's init in time, else icount.
    Auto,
    /// Hardware virtualisation: figures in real time.
    Kvm,
    /// QEMU's emulator counting instructions (`-icount shift=0`): one
    /// virtual nanosecond per guest instruction, so figures are path
    /// lengths in instructions, whatever the host is doing.
    Icount,
    /// Refused: QEMU's emulator timed by the host clock, whose time
    /// moves with whatever else the host runs.
    Tcg,
}

impl Accel {
    pub fn name(self) -> &'static str {
        match self {
            Accel::Auto => "auto",
            Accel::Kvm => "kvm",
            Accel::Icount => "icount",
            Accel::Tcg => "tcg",
        }
    }
}

/// The guest machine every side runs on.
#[derive(Debug, Clone)]
pub struct Machine {
    /// Kvm or Icount (auto is decided before the first boot).
    pub accel: Accel,
    pub cpus: u32,
    pub memory_mib: u64,
}

/// How long a guest may take from QEMU's start to its init's first line.
/// A KVM guest stuck in its firmware (a host without nested
/// virtualisation) prints nothing at all; under icount a distribution
/// kernel reaches init in 10-15 s here.
pub const BOOT_LIMIT: Duration = Duration::from_secs(60);
/// How long a running guest may print nothing before it counts as hung
/// (Criterion prints a line per warm-up and per measurement).
pub const SILENCE_LIMIT: Duration = Duration::from_secs(600);

/// Set by SIGINT or SIGTERM once [`catch_interrupts`] ran: the boot in
/// progress is stopped, its QEMU killed, and the sitting ends with the
/// rounds already saved.
static STOP: std::sync::OnceLock<&'static AtomicBool> = std::sync::OnceLock::new();

/// Routes SIGINT and SIGTERM to the flag [`boot`] watches.
pub fn catch_interrupts() -> Result<()> {
    let flag = lmbench_support::remote::server::stop_on_signals()
        .context("installing SIGINT/SIGTERM handlers")?;
    let _ = STOP.set(flag);
    Ok(())
}

fn interrupted() -> bool {
    STOP.get().is_some_and(|f| f.load(Ordering::SeqCst))
}

/// The error of a sitting stopped by Ctrl-C.
#[derive(Debug)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "interrupted: the finished rounds are saved; run the same command again for more",
        )
    }
}

impl std::error::Error for Interrupted {}

/// QEMU's command line for one boot.
pub fn qemu_args(
    m: &Machine,
    image: &Path,
    initramfs: &Path,
    cmdline: &str,
    data: &Path,
    seed: u64,
) -> Vec<String> {
    let mut a: Vec<String> = [
        "-nodefaults",
        "-no-user-config",
        "-no-reboot",
        "-display",
        "none",
        "-monitor",
        "none",
        "-machine",
        "q35",
    ]
    .map(String::from)
    .to_vec();
    match m.accel {
        Accel::Kvm => a.extend(["-accel", "kvm", "-cpu", "host"].map(String::from)),
        // sleep=off: an idle guest jumps to its next timer instead of
        // waiting for the host clock, so no host time leaks in. The
        // guest's randomness (RDRAND, the kernel's pool and so its
        // address-space layout, hash seeds, port choices) comes from
        // `seed` and its clock from its instructions (the RTC too), so a
        // boot with the same seed takes the same paths.
        _ => {
            a.extend(
                [
                    "-accel",
                    "tcg",
                    "-icount",
                    "shift=0,sleep=off,align=off",
                    "-cpu",
                    "max",
                    "-rtc",
                    "base=2024-01-01T00:00:00,clock=vm",
                ]
                .map(String::from),
            );
            a.extend(["-seed".to_string(), seed.to_string()]);
        }
    }
    a.extend([
        "-smp".to_string(),
        m.cpus.to_string(),
        "-m".to_string(),
        format!("{}M", m.memory_mib),
        "-kernel".to_string(),
        image.display().to_string(),
        "-initrd".to_string(),
        initramfs.display().to_string(),
        "-append".to_string(),
        cmdline.to_string(),
        "-serial".to_string(),
        "stdio".to_string(),
        "-serial".to_string(),
        format!("file:{}", data.display()),
    ]);
    a
}

/// The kernel command line every guest gets before its side's own
/// arguments: the console, no reboot on panic but power off, and
/// the initramfs's init.
pub const BASE_CMDLINE: &str = "console=ttyS0 quiet loglevel=3 panic=-1 rdinit=/init";

/// A running QEMU, killed and reaped when dropped (a panic or an early
/// return leaves no guest behind).
struct Qemu(Child);

impl Drop for Qemu {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// What the console said as a boot went.
pub enum Event<'a> {
    /// The guest's init started, on this kernel release.
    Init(&'a str),
    /// The guest went quiet after this many seconds of its own time;
    /// the threads that had used the most CPU since boot (ticks, name).
    Settled(u32, &'a str),
    /// The side's change of known size, as the rig's bare loop sized it.
    Rig(&'a str),
    /// A step started.
    Step(&'a str),
    /// A step ended with this exit status.
    Rc(&'a str, i32),
    /// Any other line (Criterion's, the kernel's).
    Line(&'a str),
}

/// Boots once: QEMU with `args`, console lines to `log` and to
/// `on_event`, until the guest powers off. Errors when QEMU is missing,
/// the guest does not reach init within [`BOOT_LIMIT`], panics, stays
/// silent for [`SILENCE_LIMIT`], or on Ctrl-C ([`Interrupted`]).
pub fn boot(
    args: &[String],
    log: &mut std::fs::File,
    mut on_event: impl FnMut(Event, &mut std::fs::File) -> Result<()>,
) -> Result<()> {
    let qemu = super::image::which("qemu-system-x86_64").context(
        "qemu-system-x86_64 not found: apt-get install qemu-system-x86 (Debian, Ubuntu)",
    )?;
    let mut cmd = Command::new(qemu);
    lmbench_support::child::die_with_parent(&mut cmd)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group: Ctrl-C reaches us, and we stop QEMU.
        .process_group(0);
    use std::os::unix::process::CommandExt;
    let mut child = Qemu(cmd.spawn().context("starting qemu-system-x86_64")?);
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let stdout = child.0.stdout.take().context("qemu's stdout")?;
    let reader = std::thread::spawn(move || {
        let mut r = std::io::BufReader::new(stdout);
        loop {
            let mut line = Vec::new();
            match r.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    if tx.send(line).is_err() {
                        return;
                    }
                }
            }
        }
    });
    let mut stderr = child.0.stderr.take().context("qemu's stderr")?;
    let started = Instant::now();
    let mut last_line = Instant::now();
    let mut reached_init = false;
    let mut panic: Option<String> = None;
    loop {
        if interrupted() {
            return Err(Interrupted.into());
        }
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(bytes) => {
                last_line = Instant::now();
                log.write_all(&bytes)?;
                let text = String::from_utf8_lossy(&bytes);
                let line = text.trim_end_matches(['\n', '\r']).trim_start_matches('\r');
                // The rootfs is in the guest's memory: an archive larger
                // than it fits unpacks in part, and the benches would
                // fail one by one for want of their files.
                if line.contains("Initramfs unpacking failed") {
                    bail!(
                        "the guest's memory cannot hold its files ({}): give it more \
                         with --memory, or measure fewer programs (FILTER)",
                        line.trim()
                    );
                }
                if line.contains("Kernel panic") && panic.is_none() {
                    panic = Some(line.trim().to_string());
                }
                let event = if let Some(rel) = line.strip_prefix("@@ init ") {
                    reached_init = true;
                    Event::Init(rel.trim())
                } else if let Some(rest) = line.strip_prefix("@@ settled ") {
                    let (waited, busiest) = rest.trim().split_once(' ').unwrap_or((rest, ""));
                    Event::Settled(waited.parse().unwrap_or(0), busiest.trim())
                } else if let Some(size) = line.strip_prefix("@@ rig ") {
                    Event::Rig(size.trim())
                } else if let Some(name) = line.strip_prefix("@@ step ") {
                    Event::Step(name.trim())
                } else if let Some(rest) = line.strip_prefix("@@ rc ") {
                    let (name, rc) = rest.trim().rsplit_once(' ').unwrap_or((rest, "-1"));
                    Event::Rc(name, rc.parse().unwrap_or(-1))
                } else {
                    Event::Line(line)
                };
                on_event(event, log)?;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if !reached_init && started.elapsed() > BOOT_LIMIT {
                    bail!(
                        "the guest did not reach its init within {} s{}",
                        BOOT_LIMIT.as_secs(),
                        if args.iter().any(|a| a == "kvm") {
                            " under KVM (a host without nested virtualisation leaves \
                             the guest in its firmware): use --accel icount"
                        } else {
                            ": does the kernel have the 8250 serial console and \
                             initramfs support built in?"
                        }
                    );
                }
                if last_line.elapsed() > SILENCE_LIMIT {
                    bail!(
                        "the guest printed nothing for {} s: it hangs (its console is in {})",
                        SILENCE_LIMIT.as_secs(),
                        super::log_path().display()
                    );
                }
            }
        }
    }
    let _ = reader.join();
    let status = child.0.wait()?;
    let mut err = String::new();
    let _ = stderr.read_to_string(&mut err);
    if let Some(p) = panic {
        bail!("the guest kernel panicked: {p}");
    }
    if !status.success() {
        let first = err
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim();
        bail!("qemu-system-x86_64 exited with {status}: {first}");
    }
    if !reached_init {
        bail!(
            "the guest powered off before its init ran (its console is in {})",
            super::log_path().display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn icount_counts_instructions_and_sleeps_no_host_time() {
        let m = Machine {
            accel: Accel::Icount,
            cpus: 1,
            memory_mib: 2048,
        };
        let line = |m: &Machine| {
            let (k, i, d) = (Path::new("/k"), Path::new("/i"), Path::new("/d"));
            qemu_args(m, k, i, "x", d, 7).join(" ")
        };
        let s = line(&m);
        assert!(s.contains("-icount shift=0,sleep=off"), "{s}");
        assert!(s.contains("-accel tcg"), "{s}");
        // The guest's randomness and clock are the seed's and its own.
        assert!(s.contains("-seed 7"), "{s}");
        assert!(s.contains("clock=vm"), "{s}");
        assert!(s.contains("-serial stdio -serial file:/d"), "{s}");
        let m = Machine {
            accel: Accel::Kvm,
            ..m
        };
        let s = line(&m);
        assert!(
            s.contains("-accel kvm -cpu host") && !s.contains("icount"),
            "{s}"
        );
    }
}
