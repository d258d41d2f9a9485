//! The rig on Linux (see main.rs for what each change is).

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode, Stdio};

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};

mod size;
use size::{size_nft, size_seccomp, size_thp};

#[derive(Parser)]
#[command(
    name = "lmbench-rig",
    about = "Kernel-side changes of known size for one command: seccomp filters, nftables rules, THP"
)]
struct Cli {
    #[command(subcommand)]
    change: Change,
}

#[derive(Subcommand)]
enum Change {
    /// Run CMD under an allow-all seccomp filter of N instructions.
    Seccomp {
        /// Filter length in BPF instructions (1 to 4096).
        n: usize,
        #[arg(last = true, required = true)]
        cmd: Vec<String>,
    },
    /// Run CMD in a new network namespace with N non-matching nftables
    /// rules in its input chain (0: the namespace alone).
    Nft {
        n: usize,
        #[arg(last = true, required = true)]
        cmd: Vec<String>,
    },
    /// Run CMD with transparent huge pages set to MODE, then restore.
    Thp {
        #[arg(value_parser = ["always", "madvise", "never"])]
        mode: String,
        #[arg(last = true, required = true)]
        cmd: Vec<String>,
    },
    /// Size a change with a bare loop, alternated with and without it
    /// (`size thp MODE`: MODE against the current mode).
    Size {
        #[arg(value_parser = ["seccomp", "nft", "thp"])]
        what: String,
        /// Instructions (seccomp), rules (nft) or the THP mode (thp).
        n: String,
    },
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.change {
        Change::Seccomp { n, cmd } => seccomp_exec(n, &cmd),
        Change::Nft { n, cmd } => nft_run(n, &cmd),
        Change::Thp { mode, cmd } => thp_run(&mode, &cmd),
        Change::Size { what, n } => match what.as_str() {
            "thp" => size_thp(&n),
            _ => match n.parse::<usize>() {
                Ok(n) if what == "seccomp" => size_seccomp(n),
                Ok(n) => size_nft(n),
                Err(_) => Err(anyhow::anyhow!("size {what}: N must be a count, not {n:?}")),
            },
        },
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("lmbench-rig: {e:#}");
            ExitCode::from(2)
        }
    }
}

// ---------------------------------------------------------------- seccomp

/// The longest filter the kernel takes (BPF_MAXINSNS).
const MAX_INSNS: usize = 4096;

/// An allow-all filter of `n` instructions: alternate loads of the call's
/// first argument and compares with a value that jump nowhere either way,
/// then `RET ALLOW`. Reading an argument keeps the kernel from caching
/// "always allowed" per system call number.
pub fn allow_all_filter(n: usize) -> Result<Vec<libc::sock_filter>> {
    if !(1..=MAX_INSNS).contains(&n) {
        bail!("seccomp: N must be 1 to {MAX_INSNS} instructions");
    }
    // struct seccomp_data: nr (4), arch (4), instruction_pointer (8),
    // args[6] (8 each): the first argument's low half is at 16.
    const ARG0: u32 = 16;
    let op = |code: u32, k: u32| libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    };
    let ld = libc::BPF_LD | libc::BPF_W | libc::BPF_ABS;
    let jeq = libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K;
    let ret = libc::BPF_RET | libc::BPF_K;
    let mut prog = Vec::with_capacity(n);
    for i in 0..n - 1 {
        prog.push(if i % 2 == 0 {
            op(ld, ARG0)
        } else {
            op(jeq, 0x5eed_0000 | i as u32)
        });
    }
    prog.push(op(ret, libc::SECCOMP_RET_ALLOW));
    Ok(prog)
}

/// Installs the filter on this process (and so on all it starts).
fn install_filter(n: usize) -> Result<()> {
    let prog = allow_all_filter(n)?;
    let fprog = libc::sock_fprog {
        len: prog.len() as u16,
        filter: prog.as_ptr() as *mut libc::sock_filter,
    };
    // SAFETY: fprog points at `prog`, alive for the call; the kernel
    // copies the program before prctl returns.
    let rc = unsafe {
        libc::prctl(
            libc::PR_SET_SECCOMP,
            libc::SECCOMP_MODE_FILTER,
            &fprog as *const libc::sock_fprog,
        )
    };
    if rc == 0 {
        return Ok(());
    }
    let err = std::io::Error::last_os_error();
    if err.raw_os_error() != Some(libc::EACCES) {
        return Err(err).context("installing the seccomp filter");
    }
    // Without CAP_SYS_ADMIN the kernel asks for no_new_privs first.
    nix::sys::prctl::set_no_new_privs().context("setting no_new_privs")?;
    // SAFETY: as above.
    let rc = unsafe {
        libc::prctl(
            libc::PR_SET_SECCOMP,
            libc::SECCOMP_MODE_FILTER,
            &fprog as *const libc::sock_fprog,
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error()).context("installing the seccomp filter");
    }
    Ok(())
}

fn seccomp_exec(n: usize, cmd: &[String]) -> Result<u8> {
    install_filter(n)?;
    let err = Command::new(&cmd[0]).args(&cmd[1..]).exec();
    Err(err).with_context(|| format!("running {}", cmd[0]))
}

// ---------------------------------------------------------------- nft

/// A network namespace of ours, deleted on drop.
struct Netns(String);

impl Netns {
    fn new() -> Result<Netns> {
        let name = format!("lmbench-rig-{}", std::process::id());
        run_tool("ip", &["netns", "add", &name])?;
        let ns = Netns(name);
        run_tool("ip", &["-n", &ns.0, "link", "set", "lo", "up"])?;
        Ok(ns)
    }

    /// Replaces the namespace's ruleset by `n` rules.
    fn rules(&self, n: usize) -> Result<()> {
        let mut child = Command::new("ip")
            .args(["netns", "exec", &self.0, "nft", "-f", "-"])
            .stdin(Stdio::piped())
            .spawn()
            .context("running `ip netns exec ... nft` (install nftables and iproute2)")?;
        child
            .stdin
            .take()
            .expect("piped")
            .write_all(ruleset(n).as_bytes())?;
        let status = child.wait()?;
        if !status.success() {
            bail!("nft could not load {n} rules ({status})");
        }
        Ok(())
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = Command::new("ip")
            .args(["netns", "delete", &self.0])
            .status();
    }
}

/// `n` input rules that match nothing on loopback: drop from sources in
/// 198.18.0.0/15 (RFC 2544's benchmarking range), each its own address so
/// no two rules are the same. A flush first, so a reload replaces.
pub fn ruleset(n: usize) -> String {
    let mut s = String::from(
        "flush ruleset\ntable inet lmbench_rig {\n  chain input {\n    type filter hook input priority 0; policy accept;\n",
    );
    for i in 0..n {
        s += &format!(
            "    ip saddr 198.{}.{}.{} drop\n",
            18 + (i >> 16) % 2,
            (i >> 8) & 255,
            i & 255
        );
    }
    s += "  }\n}\n";
    s
}

fn run_tool(tool: &str, args: &[&str]) -> Result<()> {
    let status = Command::new(tool)
        .args(args)
        .status()
        .with_context(|| format!("running {tool} (is it installed? iproute2, nftables)"))?;
    if !status.success() {
        bail!("{tool} {} failed ({status})", args.join(" "));
    }
    Ok(())
}

/// Runs `cmd` to its end with SIGINT and SIGTERM ignored here (the
/// command gets them from the terminal, and we live to clean up), and
/// returns its exit code.
fn run_child(mut c: Command) -> Result<u8> {
    // SAFETY: ignoring two signals in this process only.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_IGN);
        libc::signal(libc::SIGTERM, libc::SIG_IGN);
    }
    // SAFETY: in the child between fork and exec, only async-signal-safe
    // calls: restoring the default handlers.
    unsafe {
        c.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            Ok(())
        });
    }
    let status = c.status().context("running the command")?;
    Ok(status.code().map_or(2, |c| c as u8))
}

fn nft_run(n: usize, cmd: &[String]) -> Result<u8> {
    let ns = Netns::new()?;
    ns.rules(n)?;
    let mut c = Command::new("ip");
    c.args(["netns", "exec", &ns.0]).args(cmd);
    run_child(c)
}

// ---------------------------------------------------------------- thp

const THP: &str = "/sys/kernel/mm/transparent_hugepage/enabled";

/// The selected mode of a sysfs "a [b] c" line.
pub fn selected(line: &str) -> Option<&str> {
    line.split_whitespace()
        .find(|w| w.starts_with('['))
        .map(|w| w.trim_matches(['[', ']']))
}

fn thp_run(mode: &str, cmd: &[String]) -> Result<u8> {
    let old = std::fs::read_to_string(THP).with_context(|| format!("reading {THP}"))?;
    let old = selected(&old)
        .with_context(|| format!("{THP}: no selected mode in {old:?}"))?
        .to_string();
    std::fs::write(THP, mode).with_context(|| format!("writing {mode} to {THP} (root?)"))?;
    eprintln!("lmbench-rig: THP {old} -> {mode}");
    let code = run_child({
        let mut c = Command::new(&cmd[0]);
        c.args(&cmd[1..]);
        c
    });
    let restored = std::fs::write(THP, &old).with_context(|| format!("restoring {old} in {THP}"));
    eprintln!("lmbench-rig: THP restored to {old}");
    let code = code?;
    restored?;
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_have_the_asked_length_and_end_in_allow() {
        for n in [1, 2, 3, 100, MAX_INSNS] {
            let f = allow_all_filter(n).unwrap();
            assert_eq!(f.len(), n);
            let last = f.last().unwrap();
            assert_eq!(u32::from(last.code), libc::BPF_RET | libc::BPF_K);
            assert_eq!(last.k, libc::SECCOMP_RET_ALLOW);
            // Every compare jumps nowhere: the filter always allows.
            assert!(f.iter().all(|i| i.jt == 0 && i.jf == 0));
        }
        assert!(allow_all_filter(0).is_err());
        assert!(allow_all_filter(MAX_INSNS + 1).is_err());
    }

    #[test]
    fn rules_are_distinct_and_outside_loopback() {
        let r = ruleset(70_000);
        let rules: Vec<&str> = r.lines().filter(|l| l.contains("saddr")).collect();
        assert_eq!(rules.len(), 70_000);
        let distinct: std::collections::BTreeSet<&&str> = rules.iter().collect();
        assert_eq!(distinct.len(), rules.len());
        assert!(rules.iter().all(|l| l.contains("ip saddr 198.1")));
        assert!(ruleset(0).contains("policy accept"));
    }

    #[test]
    fn the_selected_thp_mode_is_read() {
        assert_eq!(selected("always [madvise] never\n"), Some("madvise"));
        assert_eq!(selected("[always] madvise never"), Some("always"));
        assert_eq!(selected("always madvise never"), None);
    }
}
