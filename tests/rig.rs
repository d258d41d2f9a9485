//! The rig of injected changes (`lmbench-rig`), and `lmbench check` used
//! by `git bisect run` over a throwaway repository whose commits switch an
//! injected change on: it must name the commit that did.
//!
//! Slow and privileged (seccomp filters, network namespaces, THP, real
//! benches): run when LMBENCH_SLOW_TESTS=1 and as root (`.ci/run`), else
//! each test says it was skipped. The tests take turns: `lmbench run`
//! allows one run per checkout.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::Mutex;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn rig() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lmbench-rig"))
}

/// True when the slow, privileged tests may run.
fn allowed() -> bool {
    if std::env::var_os("LMBENCH_SLOW_TESTS").is_none_or(|v| v != "1") {
        eprintln!("skipped: set LMBENCH_SLOW_TESTS=1 (and run as root) to run");
        return false;
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run the rig's tests as root"
        );
        eprintln!("skipped: the rig needs root");
        return false;
    }
    true
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn seccomp_filters_the_command_and_its_children() {
    if !allowed() {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let o = rig()
        .args([
            "seccomp",
            "200",
            "--",
            "sh",
            "-c",
            "grep Seccomp /proc/$$/status",
        ])
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    // A child shell runs under the filter (mode 2: filter), one filter.
    assert!(t.contains("Seccomp:\t2"), "{t}");
    assert!(t.contains("Seccomp_filters:\t1"), "{t}");
    // The command's exit code passes through exec.
    let o = rig()
        .args(["seccomp", "5", "--", "sh", "-c", "exit 7"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(7));
    let o = rig().args(["seccomp", "0", "--", "true"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

fn namespaces() -> Vec<String> {
    let o = Command::new("ip").args(["netns", "list"]).output().unwrap();
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| l.starts_with("lmbench-rig-"))
        .map(str::to_string)
        .collect()
}

#[test]
fn nft_rules_live_in_a_namespace_that_goes_with_the_command() {
    if !allowed() {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let before = namespaces();
    let o = rig()
        .args(["nft", "40", "--", "nft", "list", "ruleset"])
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert_eq!(t.matches("ip saddr 198.18.").count(), 40, "{t}");
    // The host's ruleset is not ours.
    let host = Command::new("nft")
        .args(["list", "ruleset"])
        .output()
        .unwrap();
    assert!(!text(&host).contains("lmbench_rig"), "{}", text(&host));
    // The command's code passes through, and the namespace is gone.
    let o = rig()
        .args(["nft", "3", "--", "sh", "-c", "exit 5"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(5));
    assert_eq!(namespaces(), before);
}

#[test]
fn thp_is_restored_after_the_command() {
    if !allowed() {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let path = "/sys/kernel/mm/transparent_hugepage/enabled";
    let Ok(before) = std::fs::read_to_string(path) else {
        eprintln!("skipped: no THP on this kernel");
        return;
    };
    let o = rig()
        .args(["thp", "never", "--", "cat", path])
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("[never]"), "{t}");
    assert_eq!(std::fs::read_to_string(path).unwrap(), before);
}

fn git(dir: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=rig", "-c", "user.email=rig@invalid"])
        .args(args)
        .output()
        .expect("git");
    assert!(o.status.success(), "git {args:?}: {}", text(&o));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

#[test]
fn git_bisect_run_with_check_names_the_commit_that_slowed_system_calls() {
    if !allowed() {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results");
    let lmbench = env!("CARGO_BIN_EXE_lmbench");
    let filter = "^lat_syscall/null$";
    // The baseline: five quick runs under the rig's filter "off" (one
    // instruction, RET ALLOW: the kernel caches it, no cost). Five, not
    // three: a good commit is "unchanged" only when the interval of its
    // change lies within the threshold, and three runs of a null call that
    // spread by 10% leave an interval wider than that however many runs
    // the check adds; the commit is then skipped and the bisection cannot
    // end on one commit.
    let o = rig()
        .args([
            "seccomp", "1", "--", lmbench, "run", "--quick", "--runs", "5",
        ])
        .args([filter, "--save", "base", "--machine", "rig"])
        .env("LMBENCH_RESULTS", &results)
        .output()
        .unwrap();
    assert!(o.status.success(), "baseline: {}", text(&o));

    // (Other work on the machine, a CI neighbour's steal, does not void a
    // step: the injected change is several times the threshold, and the
    // threshold several times the noise.) Eight commits; from the fifth
    // on, every system call pays a filter of 4000 instructions (near the
    // kernel's limit of 4096: a null call about twice as dear).
    let repo = tmp.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    let mut commits = Vec::new();
    for k in 1..=8 {
        let n = if k >= 5 { "4000" } else { "1" };
        std::fs::write(repo.join("inject"), n).unwrap();
        std::fs::write(repo.join("k"), k.to_string()).unwrap();
        git(&repo, &["add", "."]);
        git(&repo, &["commit", "-q", "-m", &format!("commit {k}")]);
        commits.push(git(&repo, &["rev-parse", "HEAD"]));
    }
    git(&repo, &["bisect", "start", &commits[7], &commits[0]]);
    let script = format!(
        "exec {rig} seccomp \"$(cat inject)\" -- {lmbench} check rig/base '{filter}' \
         --threshold 30 --budget 40s --busy-threshold 100",
        rig = env!("CARGO_BIN_EXE_lmbench-rig"),
    );
    let o = Command::new("git")
        .current_dir(&repo)
        .args(["bisect", "run", "sh", "-c", &script])
        .env("LMBENCH_RESULTS", &results)
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains(&format!("{} is the first bad commit", commits[4])),
        "want commit 5 ({}): {t}",
        commits[4]
    );
}
