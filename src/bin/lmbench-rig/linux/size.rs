//! `lmbench-rig size`: what a change costs, sized with a bare loop in a
//! forked child, alternated with and without the change, so a bench's
//! reading of it can be judged against a floor.

use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use super::{allow_all_filter, install_filter, selected, Netns, THP};

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

pub(super) fn size_seccomp(n: usize) -> Result<u8> {
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

pub(super) fn size_nft(n: usize) -> Result<u8> {
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

pub(super) fn size_thp(mode: &str) -> Result<u8> {
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
