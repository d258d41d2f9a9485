//! `lmbench-peer scale OP COPIES MODE DIR [BYTES]`: COPIES copies of one operation
//! at once, as processes (`proc`: forked from this small process) or as
//! threads of this process (`thread`), copy i pinned (Linux) to the i-th
//! CPU modulo N, N = `std::thread::available_parallelism` (the CPUs this
//! process may use; the machine fact `ncpu`). This process is the driver:
//! it does no operation itself and sleeps while the copies run.
//!
//! OP: `null` (raw getppid), `pipe` (1-byte round trip to the copy's own
//! echo partner, a process or thread on the copy's CPU), `fault` (write to
//! the next untouched page of a private 4096-page (16 MiB at 4 KiB)
//! NOHUGEPAGE region, emptied by MADV_DONTNEED every 4096 pages),
//! `open_shared` (open+close of DIR/shared), `open_own` (open+close of
//! DIR/copy-I), `memrd` (sum every word of the copy's own buffer of
//! BYTES, see [`memrd_bytes`]).
//!
//! Requests: `ping` → `pong COPIES`; `run K` → releases every copy at once
//! (a futex generation word in shared memory), each does K operations,
//! replies the nanoseconds until the last copy is done. A copy whose
//! operation fails says why on stderr and the reply is `err`. Copies
//! (processes) get PR_SET_PDEATHSIG and are killed and reaped on exit.

use std::io;

#[cfg(target_os = "linux")]
pub fn main(args: &[String]) -> io::Result<()> {
    linux::main(args)
}

#[cfg(not(target_os = "linux"))]
pub fn main(_: &[String]) -> io::Result<()> {
    Err(io::Error::other("scale: Linux-only (futex, affinity)"))
}

/// Bytes of each copy's buffer in `memrd` when `copies` run at once: the
/// copies together span [`memrd_footprint`], so every count reads from
/// memory, not from the last-level cache (rounded up to whole pages).
pub fn memrd_bytes(copies: usize) -> usize {
    (memrd_footprint() / copies.max(1)).next_multiple_of(4096)
}

/// The memrd footprint of all copies together: four times the largest
/// cache of cpu0 (sysfs), at least 64 MiB.
pub fn memrd_footprint() -> usize {
    let largest = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| crate::machine::read_fact(e.path().join("size")))
        .filter_map(|s| crate::machine::parse_sysfs_size(&s))
        .max()
        .unwrap_or(0) as usize;
    (4 * largest).max(64 << 20)
}

#[cfg(target_os = "linux")]
mod linux {
    use std::ffi::CString;
    use std::hint::black_box;
    use std::io;
    use std::os::fd::{AsRawFd, OwnedFd, RawFd};
    use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::*};

    use crate::bw::kernels::{frd, Buf};
    use crate::{ipc, kpath, sys, vm};

    const FAULT_PAGES: usize = 4096;
    const OPS: [&str; 6] = ["null", "pipe", "fault", "open_shared", "open_own", "memrd"];

    /// What every copy runs.
    #[derive(Clone)]
    struct Spec {
        op: String,
        dir: String,
        /// memrd: bytes of each copy's buffer.
        bytes: usize,
        threads: bool,
        copies: usize,
    }

    /// The control block, in memory shared with forked copies.
    #[repr(C)]
    struct Ctl {
        go: AtomicU32,
        done: AtomicU32,
        ready: AtomicU32,
        failed: AtomicU32,
        iters: AtomicU64,
    }

    struct Shared(*mut Ctl);
    // SAFETY: Ctl is all atomics; the mapping lives as long as the process.
    unsafe impl Send for Shared {}
    // SAFETY: as for Send: every field of Ctl is an atomic.
    unsafe impl Sync for Shared {}

    impl Shared {
        fn get(&self) -> &'static Ctl {
            // SAFETY: a zeroed shared mapping, never unmapped.
            unsafe { &*self.0 }
        }
    }

    pub fn main(args: &[String]) -> io::Result<()> {
        let bad = || {
            io::Error::other(format!(
                "bad arguments {args:?}; want OP COPIES proc|thread DIR [BYTES]"
            ))
        };
        let (op, copies, mode, dir, bytes) = match args {
            [op, copies, mode, dir] => (op, copies, mode, dir, None),
            [op, copies, mode, dir, b] => (op, copies, mode, dir, Some(b)),
            _ => return Err(bad()),
        };
        let copies: usize = copies
            .parse()
            .ok()
            .filter(|&c| (1..=4096).contains(&c))
            .ok_or_else(bad)?;
        let threads = match mode.as_str() {
            "proc" => false,
            "thread" => true,
            _ => return Err(bad()),
        };
        let bytes = match bytes {
            Some(b) => b.parse().ok().filter(|&b| b > 0).ok_or_else(bad)?,
            None => super::memrd_bytes(copies),
        };
        let spec = Spec {
            op: op.clone(),
            dir: dir.clone(),
            bytes,
            threads,
            copies,
        };
        let n = std::thread::available_parallelism()?.get();
        let cpus = kpath::allowed_cpus()?;
        let cpu_of = |i: usize| cpus[(i % n) % cpus.len()];
        if !OPS.contains(&op.as_str()) {
            return Err(io::Error::other(format!("unknown op {op:?}; ops: {OPS:?}")));
        }
        if op == "open_shared" {
            std::fs::write(format!("{dir}/shared"), b"x")?;
        }
        if op == "open_own" {
            for i in 0..copies {
                std::fs::write(format!("{dir}/copy-{i}"), b"x")?;
            }
        }
        let p = vm::map(
            4096,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
        )?;
        let shared = Shared(p.cast());
        let ctl = shared.get();
        let mut children = Vec::new();
        for i in 0..copies {
            let cpu = cpu_of(i);
            let spec = spec.clone();
            if threads {
                std::thread::Builder::new()
                    .name(format!("copy-{i}"))
                    .spawn(move || copy(ctl, &spec, i, cpu))?;
            } else {
                // SAFETY: in proc mode this process is single-threaded.
                let child = unsafe {
                    kpath::fork_child(|| {
                        copy(ctl, &spec, i, cpu);
                        Ok(())
                    })
                }?;
                children.push(child);
            }
        }
        wait_count(&ctl.ready, copies as u32)?;
        if ctl.failed.load(Acquire) != 0 {
            return Err(io::Error::other(
                "a copy failed to start (see its message above)",
            ));
        }
        super::super::serve(|words| match words {
            ["ping"] => Ok(format!("pong {copies}")),
            ["run", k] => {
                let k: u64 = k.parse().map_err(|_| bad())?;
                ctl.done.store(0, Release);
                ctl.iters.store(k, Release);
                let gen = ctl.go.load(Acquire).wrapping_add(1);
                let start = sys::now_ns();
                kpath::futex_post(&ctl.go, gen, true)?;
                wait_count(&ctl.done, copies as u32)?;
                let took = sys::now_ns() - start;
                if ctl.failed.load(Acquire) != 0 {
                    return Err(io::Error::other(
                        "a copy's operation failed (see its message above)",
                    ));
                }
                Ok(took.to_string())
            }
            _ => Err(io::Error::other(format!("bad request {words:?}"))),
        })
    }

    /// Sleeps until `word` reaches `want` (it only grows).
    fn wait_count(word: &AtomicU32, want: u32) -> io::Result<()> {
        loop {
            let v = word.load(Acquire);
            if v >= want {
                return Ok(());
            }
            kpath::futex_wait(word, v, true)?;
        }
    }

    fn arrive(word: &AtomicU32, copies: usize) {
        if word.fetch_add(1, AcqRel) + 1 == copies as u32 {
            let _ = kpath::futex_wake(word, 1, true);
        }
    }

    /// One copy: pin, build its state, then run each released batch.
    fn copy(ctl: &Ctl, spec: &Spec, i: usize, cpu: usize) {
        let (op, copies) = (spec.op.as_str(), spec.copies);
        let state = kpath::pin_to(cpu).and_then(|_| Op::new(spec, i, cpu));
        let mut state = match state {
            Ok(s) => s,
            Err(e) => {
                eprintln!("lmbench-peer scale: copy {i}: {e}");
                ctl.failed.store(1, Release);
                arrive(&ctl.ready, copies);
                return;
            }
        };
        arrive(&ctl.ready, copies);
        let mut gen = 0u32;
        loop {
            // Sleep until the driver bumps the generation.
            loop {
                let v = ctl.go.load(Acquire);
                if v != gen {
                    gen = v;
                    break;
                }
                if let Err(e) = kpath::futex_wait(&ctl.go, gen, true) {
                    eprintln!("lmbench-peer scale: copy {i}: futex: {e}");
                    return;
                }
            }
            let k = ctl.iters.load(Acquire);
            if let Err(e) = state.run(k) {
                eprintln!("lmbench-peer scale: copy {i}: {op}: {e}");
                ctl.failed.store(1, Release);
            }
            arrive(&ctl.done, copies);
        }
    }

    // The partner field is held for its Drop (kill and reap).
    #[allow(dead_code)]
    enum Op {
        Null,
        /// Our write end, our read end, and the partner process (if any).
        Pipe(OwnedFd, OwnedFd, Option<kpath::Forked>),
        Fault(*mut u8, usize),
        Open(CString),
        MemRd(Buf),
    }

    impl Op {
        fn new(spec: &Spec, i: usize, cpu: usize) -> io::Result<Op> {
            let (op, dir, threads) = (spec.op.as_str(), spec.dir.as_str(), spec.threads);
            let path = |name: String| {
                CString::new(format!("{dir}/{name}")).map_err(|_| io::Error::other("NUL in DIR"))
            };
            Ok(match op {
                "null" => Op::Null,
                "pipe" => {
                    let (req_r, req_w) = ipc::pipe()?;
                    let (ans_r, ans_w) = ipc::pipe()?;
                    let partner = if threads {
                        std::thread::Builder::new().spawn(move || {
                            let _ = kpath::pin_to(cpu);
                            let _ = echo(req_r.as_raw_fd(), ans_w.as_raw_fd());
                        })?;
                        None
                    } else {
                        // SAFETY: a copy process is single-threaded.
                        let child = unsafe {
                            kpath::fork_child(|| echo(req_r.as_raw_fd(), ans_w.as_raw_fd()))
                        }?;
                        drop((req_r, ans_w));
                        Some(child)
                    };
                    Op::Pipe(req_w, ans_r, partner)
                }
                "fault" => {
                    let len = FAULT_PAGES * vm::page_size();
                    let p = vm::map(
                        len,
                        libc::PROT_READ | libc::PROT_WRITE,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                        -1,
                    )?;
                    madvise(p, len, libc::MADV_NOHUGEPAGE)?;
                    Op::Fault(p, 0)
                }
                "open_shared" => Op::Open(path("shared".into())?),
                "open_own" => Op::Open(path(format!("copy-{i}"))?),
                "memrd" => Op::MemRd(Buf::new(spec.bytes.next_multiple_of(64), 1)?),
                _ => return Err(io::Error::other(format!("unknown op {op:?}; ops: {OPS:?}"))),
            })
        }

        fn run(&mut self, k: u64) -> io::Result<()> {
            match self {
                Op::Null => {
                    for _ in 0..k {
                        sys::getppid_raw()?;
                    }
                }
                Op::Pipe(w, r, _) => {
                    let (w, r) = (w.as_raw_fd(), r.as_raw_fd());
                    let mut got = [0u8; 1];
                    for i in 0..k {
                        let b = [i as u8];
                        if sys::write(w, &b)? != 1 || sys::read(r, &mut got)? != 1 || got != b {
                            return Err(io::Error::other("pipe echo lost or wrong"));
                        }
                    }
                }
                Op::Fault(p, next) => {
                    let page = vm::page_size();
                    for _ in 0..k {
                        // SAFETY: *next < FAULT_PAGES: inside our mapping.
                        unsafe { p.add(*next * page).write_volatile(1) };
                        *next += 1;
                        if *next == FAULT_PAGES {
                            madvise(*p, FAULT_PAGES * page, libc::MADV_DONTNEED)?;
                            *next = 0;
                        }
                    }
                }
                Op::Open(path) => {
                    for _ in 0..k {
                        let fd = sys::open(path, libc::O_RDONLY)?;
                        sys::close(fd)?;
                    }
                }
                Op::MemRd(buf) => {
                    for _ in 0..k {
                        black_box(frd(black_box(buf.as_u64())));
                    }
                }
            }
            Ok(())
        }
    }

    impl Drop for Op {
        fn drop(&mut self) {
            if let Op::Fault(p, _) = self {
                // SAFETY: our mapping, unused from here on.
                let _ = unsafe { vm::unmap(*p, FAULT_PAGES * vm::page_size()) };
            }
        }
    }

    fn madvise(p: *mut u8, len: usize, advice: i32) -> io::Result<()> {
        // SAFETY: a private anonymous mapping of ours; DONTNEED discarding
        // its contents is intended.
        if unsafe { libc::madvise(p.cast(), len, advice) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Echoes single bytes from `r` to `w` until EOF.
    fn echo(r: RawFd, w: RawFd) -> io::Result<()> {
        let mut b = [0u8; 1];
        loop {
            if sys::read(r, &mut b)? == 0 {
                return Ok(());
            }
            sys::write(w, &b)?;
        }
    }
}
