//! The rig on Linux (see main.rs for what each change is).

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};

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

// ---------------------------------------------------------------- size

/// Median of the chunk timings, ns per operation.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Forks a child that optionally installs the filter, times chunks of
/// getppid, and writes its median ns per call back.
fn getppid_in_child(filter: Option<usize>) -> Result<f64> {
    let v = in_child(|| {
        if filter.is_some_and(|n| install_filter(n).is_err()) {
            return -1.0;
        }
        let mut chunks = Vec::new();
        for _ in 0..9 {
            let t = Instant::now();
            for _ in 0..100_000 {
                // SAFETY: getppid has no arguments and cannot fail.
                unsafe { libc::syscall(libc::SYS_getppid) };
            }
            chunks.push(t.elapsed().as_nanos() as f64 / 100_000.0);
        }
        median(chunks)
    })?;
    if v < 0.0 {
        bail!("the timing child could not install the filter");
    }
    Ok(v)
}

/// Runs `f` in a forked child (so what it changes of the process, a
/// seccomp filter or the memory it faults, dies with it) and returns the
/// figure it computed; None of the child's own state comes back.
fn in_child(f: impl FnOnce() -> f64) -> Result<f64> {
    use nix::unistd::{fork, ForkResult};
    let (rd, wr) = nix::unistd::pipe().context("pipe")?;
    // SAFETY: this process has one thread (the rig is single-threaded);
    // the child computes, writes its 8 bytes and leaves with _exit,
    // running no destructor or atexit handler of the parent's.
    match unsafe { fork() }.context("fork")? {
        ForkResult::Child => {
            drop(rd);
            let v = f();
            let _ = nix::unistd::write(&wr, &v.to_ne_bytes());
            // SAFETY: ends the child at once, running nothing of the
            // parent's (no destructor, no atexit handler, no stdio flush).
            unsafe { libc::_exit(0) }
        }
        ForkResult::Parent { child } => {
            drop(wr);
            let mut bytes = [0u8; 8];
            let got = nix::unistd::read(&rd, &mut bytes);
            nix::sys::wait::waitpid(child, None).context("reaping the timing child")?;
            match got {
                Ok(8) => Ok(f64::from_ne_bytes(bytes)),
                _ => bail!("the timing child sent no figure"),
            }
        }
    }
}

fn size_seccomp(n: usize) -> Result<u8> {
    allow_all_filter(n)?;
    let (mut off, mut on) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        off.push(getppid_in_child(None)?);
        on.push(getppid_in_child(Some(n))?);
    }
    report(&format!("seccomp {n}"), "getppid", &off, &on);
    Ok(0)
}

/// One loopback UDP round trip to itself per iteration: median ns over
/// chunks, run inside namespace `ns`.
fn udp_in_ns(ns: &Netns) -> Result<f64> {
    let exe = std::env::current_exe()?;
    let out = Command::new("ip")
        .args(["netns", "exec", &ns.0])
        .arg(exe)
        .args(["size", "nft", "0"])
        .env("LMBENCH_RIG_UDP_LOOP", "1")
        .output()
        .context("running the UDP loop in the namespace")?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim()
        .parse()
        .with_context(|| format!("the UDP loop printed {text:?}"))
}

/// The bare UDP loop itself (run in the namespace by [`udp_in_ns`]).
fn udp_loop() -> Result<f64> {
    let s = std::net::UdpSocket::bind("127.0.0.1:0")?;
    s.connect(s.local_addr()?)?;
    let mut buf = [0u8; 1];
    let mut chunks = Vec::new();
    for _ in 0..9 {
        let t = Instant::now();
        for _ in 0..20_000 {
            s.send(&[1])?;
            s.recv(&mut buf)?;
        }
        chunks.push(t.elapsed().as_nanos() as f64 / 20_000.0);
    }
    Ok(median(chunks))
}

fn size_nft(n: usize) -> Result<u8> {
    if std::env::var_os("LMBENCH_RIG_UDP_LOOP").is_some() {
        println!("{}", udp_loop()?);
        return Ok(0);
    }
    let ns = Netns::new()?;
    let (mut off, mut on) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        ns.rules(0)?;
        off.push(udp_in_ns(&ns)?);
        ns.rules(n)?;
        on.push(udp_in_ns(&ns)?);
    }
    report(
        &format!("nft {n}"),
        "loopback UDP send+recv (one packet)",
        &off,
        &on,
    );
    Ok(0)
}

/// The chase of the THP size: one load per 4 KiB page of 1 GiB of
/// anonymous memory (no madvise), pages in a random order: a TLB miss
/// and a page walk per load with 4 KiB pages, far fewer with 2 MiB ones.
/// Run in a fresh child, so its memory is faulted under the mode set now.
fn chase_in_child() -> Result<f64> {
    const BYTES: usize = 1 << 30;
    const PAGE: usize = 4096;
    const WORD: usize = std::mem::size_of::<usize>();
    let v = in_child(|| {
        let Ok(mut map) = memmap2::MmapMut::map_anon(BYTES) else {
            return -1.0;
        };
        // The chain as byte offsets: each page's first word holds the
        // offset of the next page's, so a load is one TLB lookup of its
        // page.
        let next = |m: &[u8], at: usize| {
            usize::from_ne_bytes(m[at..at + WORD].try_into().expect("a word"))
        };
        let pages = BYTES / PAGE;
        let order = lmbench_support::rng::shuffled(pages, 0x9e37_79b9_7f4a_7c15);
        for w in 0..pages {
            let (here, there) = (order[w] * PAGE, order[(w + 1) % pages] * PAGE);
            map[here..here + WORD].copy_from_slice(&there.to_ne_bytes());
        }
        let mut at = order[0] * PAGE;
        let mut chunks = Vec::new();
        for _ in 0..7 {
            let t = Instant::now();
            for _ in 0..1_000_000 {
                at = next(&map, at);
            }
            chunks.push(t.elapsed().as_nanos() as f64 / 1e6);
        }
        std::hint::black_box(at);
        median(chunks)
    })?;
    if v < 0.0 {
        bail!("the chase could not map 1 GiB");
    }
    Ok(v)
}

fn size_thp(mode: &str) -> Result<u8> {
    if !["always", "madvise", "never"].contains(&mode) {
        bail!("size thp: MODE is always, madvise or never, not {mode:?}");
    }
    let old = std::fs::read_to_string(THP).with_context(|| format!("reading {THP}"))?;
    let old = selected(&old)
        .with_context(|| format!("{THP}: no selected mode"))?
        .to_string();
    let (mut off, mut on) = (Vec::new(), Vec::new());
    let result = (|| -> Result<()> {
        for _ in 0..3 {
            std::fs::write(THP, &old)?;
            off.push(chase_in_child()?);
            std::fs::write(THP, mode)?;
            on.push(chase_in_child()?);
        }
        Ok(())
    })();
    std::fs::write(THP, &old).with_context(|| format!("restoring {old} in {THP}"))?;
    result?;
    let op = format!("one load per 4 KiB page of 1 GiB, random (THP {old} -> {mode})");
    report("thp", &op, &off, &on);
    Ok(0)
}

fn report(what: &str, op: &str, off: &[f64], on: &[f64]) {
    let fmt = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.1}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (a, b) = (median(off.to_vec()), median(on.to_vec()));
    println!(
        "{what}: {op}: {a:.1} ns without, {b:.1} ns with: +{:.1} ns (+{:.1}%) per operation \
         (alternated rounds, ns: without {}; with {})",
        b - a,
        100.0 * (b / a - 1.0),
        fmt(off),
        fmt(on)
    );
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
