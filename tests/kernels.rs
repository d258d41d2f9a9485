//! `lmbench kernels`: bad input refused before any work, in one line; and,
//! with LMBENCH_SLOW_TESTS=1 (`.ci/run`), a real sitting: Debian's kernel
//! package fetched, booted twice under QEMU's instruction counting (an
//! A/A of one metric), both sides saved with the guest's facts; then a
//! sitting stopped by SIGINT mid-boot leaves no QEMU and no guest files.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{fails_with, stderr, stdout, Env};

/// The Debian kernel package `.ci/run` makes fetchable.
const KERNEL: &str = "6.12.118+deb12-amd64";

fn fake_image(dir: &Path, name: &str) -> String {
    let mut bz = vec![0u8; 0x400];
    bz[0x202..0x206].copy_from_slice(b"HdrS");
    let p = dir.join(name);
    std::fs::write(&p, bz).unwrap();
    p.display().to_string()
}

#[test]
fn one_kernel_is_not_a_comparison() {
    let env = Env::new();
    let k = fake_image(env.dir.path(), "bzImage");
    fails_with(&env.lmbench(&["kernels", "--kernel", &k]), "two or more");
}

#[test]
fn a_file_that_is_not_a_kernel_is_refused() {
    let env = Env::new();
    let k = fake_image(env.dir.path(), "bzImage");
    let vmlinux = env.dir.path().join("vmlinux");
    std::fs::write(&vmlinux, b"\x7fELF\x02\x01\x01").unwrap();
    let o = env.lmbench(&[
        "kernels",
        "--kernel",
        &k,
        "--kernel",
        vmlinux.to_str().unwrap(),
    ]);
    fails_with(&o, "not an x86 kernel image");
    let o = env.lmbench(&["kernels", "--kernel", &k, "--kernel", "/no/such/image"]);
    fails_with(&o, "no such file");
}

#[test]
fn plain_emulation_is_refused_with_the_reason() {
    let env = Env::new();
    let k = fake_image(env.dir.path(), "bzImage");
    let o = env.lmbench(&["kernels", "--kernel", &k, "--kernel", &k, "--accel", "tcg"]);
    fails_with(&o, "use --accel icount");
}

#[test]
fn a_missing_qemu_names_its_package() {
    let env = Env::new();
    let k = fake_image(env.dir.path(), "bzImage");
    let o = Command::new(env!("CARGO_BIN_EXE_lmbench"))
        .args(["kernels", "--kernel", &k, "--kernel", &k])
        .env("PATH", env.dir.path())
        .env("LMBENCH_RESULTS", env.results())
        .output()
        .unwrap();
    fails_with(&o, "apt-get install qemu-system-x86");
}

#[test]
fn bad_sizes_and_counts_are_refused_by_the_parser() {
    let env = Env::new();
    let k = fake_image(env.dir.path(), "bzImage");
    for (flag, value) in [
        ("--memory", "1m"),
        ("--memory", "lots"),
        ("--cpus", "0"),
        ("--rounds", "0"),
        ("--rig", "b=nft 10"),
        ("--rig", "seccomp 50"),
    ] {
        let o = env.lmbench(&["kernels", "--kernel", &k, "--kernel", &k, flag, value]);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}: {}", stderr(&o));
        assert!(stderr(&o).contains(flag), "{flag} {value}: {}", stderr(&o));
    }
}

#[test]
fn a_budget_after_a_single_round_is_refused_before_any_work() {
    let env = Env::new();
    let k = fake_image(env.dir.path(), "bzImage");
    let o = env.lmbench(&[
        "kernels", "--kernel", &k, "--kernel", &k, "--rounds", "1", "--budget", "10m",
    ]);
    fails_with(&o, "--budget needs --rounds 2 or more");
}

fn slow_tests() -> bool {
    let on = std::env::var_os("LMBENCH_SLOW_TESTS").is_some_and(|v| v == "1");
    if !on {
        eprintln!("skipped: set LMBENCH_SLOW_TESTS=1 to run (`.ci/run` does)");
    }
    on
}

/// The guests' working directories of this checkout: none may outlive a
/// sitting.
fn guest_dirs() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/lmbench/kernels");
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("guest-"))
                .collect()
        })
        .unwrap_or_default()
}

/// A guest of this checkout's still running (another checkout's sitting
/// on the same machine is not this test's to see).
fn qemu_running() -> bool {
    let pattern = format!(
        "{}/target/lmbench/kernels/guest-",
        env!("CARGO_MANIFEST_DIR")
    );
    Command::new("pgrep")
        .args(["-f", &pattern])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// One test, so the two sittings never hold the run lock at once.
#[test]
fn a_debian_kernel_boots_under_icount_and_a_sitting_stops_on_sigint() {
    if !slow_tests() {
        return;
    }
    let env = Env::new();
    // One kernel on both sides, one metric, one round, side b under a
    // 50-instruction seccomp filter: both boots measure, both sides save,
    // b with its change and the change's bare-loop size among its facts.
    let o = env.lmbench(&[
        "kernels",
        "--kernel",
        KERNEL,
        "--kernel",
        KERNEL,
        "--accel",
        "icount",
        "--quick",
        "--rounds",
        "1",
        "--rig",
        "b=seccomp 50",
        "--save",
        "aa",
        "--machine",
        "ci",
        "^lat_syscall/null$",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("In instructions, not time"), "{out}");
    assert!(out.contains("Linux 6.12.11"), "{out}");
    for side in ["aa-a", "aa-b"] {
        let show = env.lmbench(&["summary", "--format", "json", &format!("ci/{side}")]);
        assert!(show.status.success(), "{}", stderr(&show));
        let machine =
            std::fs::read_to_string(env.results().join("ci").join(side).join("machine.json"))
                .unwrap();
        for fact in [KERNEL, "\"time_unit\"", "\"guest_accel\"", "icount"] {
            assert!(machine.contains(fact), "{side}: no {fact} in {machine}");
        }
        let rigged = side == "aa-b";
        assert_eq!(
            machine.contains("\"guest_rig\""),
            rigged,
            "{side}: {machine}"
        );
        if rigged {
            assert!(machine.contains("lmbench.rig=seccomp,50"), "{machine}");
            assert!(machine.contains("seccomp 50: getppid"), "{machine}");
        }
    }
    assert!(out.contains("guest_rig"), "compare lists the change: {out}");
    assert!(guest_dirs().is_empty(), "left: {:?}", guest_dirs());

    // SIGINT once the guest is up: exit 130 at once, nothing left behind.
    let mut child = Command::new(env!("CARGO_BIN_EXE_lmbench"))
        .args([
            "kernels", "--kernel", KERNEL, "--kernel", KERNEL, "--accel", "icount", "--quick",
        ])
        .arg("^lat_syscall/")
        .env("LMBENCH_RESULTS", env.results())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    for line in err.by_ref().lines() {
        let line = line.unwrap();
        seen.push_str(&line);
        seen.push('\n');
        if line.contains("guest up") {
            break;
        }
    }
    assert!(seen.contains("guest up"), "{seen}");
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT).unwrap();
    let t = Instant::now();
    // Read on to the end: a closed pipe would fail its last line, not
    // the interrupt.
    let mut rest = String::new();
    let _ = err.read_to_string(&mut rest);
    seen.push_str(&rest);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{seen}");
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(seen.contains("interrupted"), "{seen}");
    assert!(!qemu_running(), "a qemu outlived its sitting");
    assert!(guest_dirs().is_empty(), "left: {:?}", guest_dirs());
}
