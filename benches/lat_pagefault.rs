//! lat_pagefault: minor page faults on a cached file. Run: `cargo bench
//! --bench lat_pagefault` (or `lmbench run lat_pagefault`); the file lives
//! in `LMBENCH_FSDIR` (default: the temp directory).
//!
//! Method (lmbench's lat_pagefault): a scratch file of lmbench's $FILE
//! size, written in 8 KiB blocks as lmbench writes it (how a file was
//! written decides the folio sizes its cache uses, so it is fixed:
//! `fs::FILE_BLOCK`) and flushed in setup, so every page is in the page
//! cache (these are minor faults: no I/O). lmbench's script faults on the
//! file it wrote for the bandwidth tests, of their memory size, so the
//! file here is the memory bandwidth top size (`bw::machine_top_size`,
//! 4x the last-level cache; 8 MB in test mode): random touches over a
//! file past the caches miss them, and its pages' page tables and folios
//! with them. The size is most of the figure: on a 2-vCPU AMD EPYC guest
//! (32 MB L3) lmbench3's own lat_pagefault read 0.33-0.37 us per page on
//! an 8 MB file and 0.56-0.66 us on 128 MB and 512 MB files, alternated
//! in one minute. So is the file's age: lmbench3 again, an hour later on
//! the same guest, read 0.26-0.33 us on a 128 MB file written right
//! before and 0.37-0.40 on one written two hours earlier, alternated
//! (where the cache's pages lie costs the touches). lmbench's script
//! writes its file just before it faults on it; so does this bench.
//!
//! One Criterion iteration is one touched page. The pages are touched in
//! whole passes; a pass is: mmap the file read-only
//! (MAP_SHARED), read one byte of each page in a random order fixed in
//! setup, munmap. A sample times the whole passes that hold its touches
//! and scales the time to them (a pass cut short touches a prefix of the
//! order, whose pages find fewer neighbours mapped by fault-around: its
//! cost per touch would follow the sample's size).
//! A fresh mapping per pass is how the mappings are dropped (lmbench uses
//! msync(MS_INVALIDATE), which on Linux no longer drops page-table
//! entries). Every byte read is checked against the file's contents.
//! - page: every page of the file per pass. Linux "fault-around" maps the
//!   cached neighbours of a faulting page (16 pages by default; a whole
//!   large folio, up to 2 MB, on file systems that cache in large folios,
//!   e.g. ext4 on recent kernels), so most touches do not fault: this is
//!   lmbench's amortised per-page figure.
//! - fault: the single-fault cost. madvise(MADV_RANDOM) on each mapping
//!   (kernels that honour it for faults map one page per fault), then one
//!   page per fault-around window, windows in random order. The window is
//!   measured in setup: a sequential pass over a fresh mapping, counting
//!   this thread's faults (getrusage RUSAGE_THREAD, minor + major: see vm::faults); window = pages /
//!   faults. Checked in setup: every touch of a pass is a fault. On Linux
//!   6.18 MADV_RANDOM does not switch fault-around off (the fault count is
//!   the same with and without it), so the window is what makes each touch
//!   a fault there; the fault still maps its neighbours, as every fault of
//!   that kernel does. On ext4 (64 KB folios here) a window is one folio,
//!   mapped in one batch; on tmpfs (4 KB pages) it is 16 folios, and both
//!   figures read higher there.
//! - page_remap / fault_remap: the same passes (same pages per mapping,
//!   same mmap, madvise and munmap) without the touches: the remap share
//!   per touch, subtracted. The summary's "Page Fault" is page - page_remap.
//!   As in lmbench, munmap of a populated mapping (zapping the entries the
//!   faults made) stays in the fault figure: it is work the faults caused.
//! - per_fault: the cost per fault actually taken. One timed call runs
//!   `page`'s touching passes, counting this thread's faults (minor + major: see vm::faults) around
//!   them (getrusage, outside the clock), then as many `page_remap`
//!   passes; reported: (touching - remap time) / faults. Paired in one
//!   call, so the subtraction is not of medians taken at different times.
//! - faults_per_page: a ratio, not a time (unit `count`): the faults
//!   counted around whole `page` passes over the pages they touched. It is
//!   what large folios change between kernels. A Criterion iteration is one
//!   touched page (the touches are rounded up to whole passes, so every
//!   sample has the same ratio's meaning); the sample returns the ratio
//!   times the iterations as an `f64` under the harness's `Figure`
//!   measurement, never as nanoseconds: a ratio below one (1/16 on ext4's
//!   64 KB folios, 1/512 on 2 MB ones) at one iteration per sample would
//!   round to a zero-length sample, which Criterion discards. Criterion
//!   plans from the wall time of the calls, which grows with the
//!   iterations as for `page`; only the returned value is the ratio. Flat
//!   sampling: equal samples, usually all the same value.

use std::io::Read;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode};
use lmbench_support::catalog::lat_pagefault::{self as cat, PROGRAM};
use lmbench_support::catalog::Metric;
use lmbench_support::fs::ScratchFile;
use lmbench_support::harness::{
    bench_figures, check, failed, ratio_total, scratch_root_or_exit, test_mode, Class, Group,
};
use lmbench_support::vm;

/// The smallest file: lmbench refuses files under 1 MB, and 8 MB is what
/// test mode uses.
const MIN_FILE: usize = 8 << 20;

/// Sets the file's size (a size token: `8m`, at least 1m): the tests
/// measure a small file in bench mode; a user can match lmbench's own
/// run on another file size.
const SIZE_ENV: &str = "LMBENCH_PAGEFAULT_SIZE";

/// lmbench's $FILE size here: [`SIZE_ENV`] if set, else the memory
/// bandwidth top size, at least [`MIN_FILE`] (exactly that in Criterion's
/// test mode). A bad [`SIZE_ENV`] is bad input: one line, exit 2.
fn file_size() -> usize {
    if let Some(v) = std::env::var_os(SIZE_ENV) {
        let v = v.to_string_lossy();
        match lmbench_support::size::parse(&v) {
            Ok(n) if n >= 1 << 20 && usize::try_from(n).is_ok() => return n as usize,
            Ok(_) => eprintln!("lat_pagefault: {SIZE_ENV}={v}: want at least 1m (lmbench refuses files under 1 MB)"),
            Err(e) => eprintln!("lat_pagefault: {SIZE_ENV}={v}: {e}"),
        }
        std::process::exit(2);
    }
    if test_mode() {
        return MIN_FILE;
    }
    (lmbench_support::bw::machine_top_size().0 as usize).max(MIN_FILE)
}

/// A fixed-seed shuffle: the same random order every run.
fn shuffle(v: &mut [usize]) {
    lmbench_support::rng::SplitMix64(0x9e37_79b9_7f4a_7c15).shuffle(v);
}

/// What one pass maps and touches.
struct Pass<'a> {
    metric: &'static Metric,
    fd: i32,
    len: usize,
    page: usize,
    /// Page indices to touch, in order: a pass touches them all.
    order: &'a [usize],
    random_advice: bool,
    /// The byte every page of the file holds.
    expect: u8,
}

impl Pass<'_> {
    /// One pass over every page of the order (none if `touch` is false):
    /// mmap (+ madvise), touches, munmap.
    #[inline]
    fn run(&self, touch: bool) {
        let m = self.metric;
        let p = match vm::map(self.len, libc::PROT_READ, libc::MAP_SHARED, self.fd) {
            Ok(p) => p,
            Err(e) => failed(m, format_args!("mmap: {e}")),
        };
        if self.random_advice {
            if let Err(e) = vm::advise(p, self.len, vm::MmapAdvise::MADV_RANDOM) {
                failed(m, format_args!("madvise(MADV_RANDOM): {e}"));
            }
        }
        if touch {
            for &pg in self.order {
                // SAFETY: pg < len / page: inside the readable mapping.
                let b = unsafe { p.add(pg * self.page).read_volatile() };
                if b != self.expect {
                    failed(
                        m,
                        format_args!("page {pg} reads {b:#x}, the file holds {:#x}", self.expect),
                    );
                }
            }
        }
        // SAFETY: our mapping; no reference into it survives.
        if let Err(e) = unsafe { vm::unmap(p, self.len) } {
            failed(m, format_args!("munmap: {e}"));
        }
    }

    /// Whole passes (mappings of the whole file, every page of the order
    /// touched, or none) for at least `iters` touches: at least one.
    fn passes_for(&self, iters: u64) -> u64 {
        iters.div_ceil(self.order.len() as u64).max(1)
    }

    /// `passes` whole passes, timed together.
    fn time_passes(&self, passes: u64, touch: bool) -> Duration {
        let start = Instant::now();
        for _ in 0..passes {
            self.run(touch);
        }
        start.elapsed()
    }

    /// `iters` touches (or remap shares of touches) at the rate of whole
    /// passes: the passes that hold them are timed, and the time is
    /// scaled to `iters`. A pass cut short would time a prefix of the
    /// random order, whose touches find fewer neighbours already mapped
    /// by fault-around than a whole pass's do, so the cost per touch
    /// would depend on how many touches Criterion asks for (with a file
    /// past the caches a pass is tens of thousands of pages, more than a
    /// sample's share); lmbench, too, times whole passes.
    fn time(&self, iters: u64, touch: bool) -> Duration {
        let passes = self.passes_for(iters);
        let took = self.time_passes(passes, touch);
        took.mul_f64(iters as f64 / (passes * self.order.len() as u64) as f64)
    }

    /// Whole passes of touches and as many remap passes, returned as
    /// `iters` times the net time per fault counted (see the module doc:
    /// per_fault).
    fn per_fault(&self, iters: u64) -> Duration {
        let m = self.metric;
        let passes = self.passes_for(iters);
        let before = check(m, "getrusage", vm::faults());
        let touched = self.time_passes(passes, true);
        let faults = check(m, "getrusage", vm::faults()) - before;
        let remapped = self.time_passes(passes, false);
        if faults == 0 {
            failed(m, format_args!("{iters} touches took no fault"));
        }
        let net = touched.saturating_sub(remapped).as_nanos();
        let ns = (net * iters as u128 / faults as u128) as u64;
        if ns == 0 {
            // Criterion would discard the metric for a zero-length sample.
            failed(
                m,
                format_args!(
                    "{iters} touches ({faults} faults) took {touched:?}, no longer than their remap passes ({remapped:?})"
                ),
            );
        }
        Duration::from_nanos(ns)
    }

    /// Faults per touched page over whole passes of at least `iters`
    /// touches, returned as `iters` times that ratio, a figure and not a
    /// time (see the module doc: faults_per_page).
    fn faults_per_page(&self, iters: u64) -> f64 {
        let per_pass = self.order.len() as u64;
        let passes = self.passes_for(iters);
        let faults: u64 = (0..passes).map(|_| self.faults()).sum();
        if faults == 0 {
            failed(self.metric, "passes over fresh mappings took no fault");
        }
        ratio_total(faults, passes * per_pass, iters)
    }

    /// Faults (minor and major: see `vm::faults`) of one untimed full pass.
    fn faults(&self) -> u64 {
        let before = check(self.metric, "getrusage", vm::faults());
        self.run(true);
        check(self.metric, "getrusage", vm::faults()) - before
    }
}

/// The one byte value the `len` bytes of `f` hold, read in 1 MB chunks;
/// an error if they differ or the file is shorter.
fn uniform_byte(f: &mut std::fs::File, len: usize) -> std::io::Result<u8> {
    let bad = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
    let mut buf = vec![0u8; 1 << 20];
    let mut expect = None;
    let mut seen = 0;
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        let want = *expect.get_or_insert(buf[0]);
        if buf[..n].iter().any(|&b| b != want) {
            return Err(bad(format!(
                "bytes other than {want:#x} near offset {seen}"
            )));
        }
        seen += n;
    }
    match expect {
        Some(b) if seen == len => Ok(b),
        _ => Err(bad(format!("{seen} bytes, {len} written"))),
    }
}

fn lat_pagefault(c: &mut Criterion) {
    let root = scratch_root_or_exit(&PROGRAM);
    let file_size = file_size();
    let file = check(&cat::PAGE, "create the file", ScratchFile::new(file_size));
    let mut f = check(
        &cat::PAGE,
        "open the file",
        std::fs::File::open(file.path()),
    );
    // Reading it all keeps every page cached (it was just written anyway)
    // and checks that it holds one byte value throughout.
    let expect = check(&cat::PAGE, "read the file", uniform_byte(&mut f, file_size));
    let fd = f.as_raw_fd();
    let page = vm::page_size();
    let pages = file_size / page;

    let mut order: Vec<usize> = (0..pages).collect();
    shuffle(&mut order);
    let every = Pass {
        metric: &cat::PAGE,
        fd,
        len: file_size,
        page,
        order: &order,
        random_advice: false,
        expect,
    };

    // The fault-around window: pages per fault of a sequential pass.
    let sequential: Vec<usize> = (0..pages).collect();
    let probe = Pass {
        metric: &cat::FAULT,
        order: &sequential,
        random_advice: true,
        ..every
    };
    let seq_faults = probe.faults().max(1);
    // The nearest power of two to pages/faults (windows are aligned powers
    // of two; a stray fault elsewhere in the thread must not halve it).
    let ratio = (pages as f64 / seq_faults as f64).max(1.0);
    let window = (1usize << ratio.log2().round() as u32).min(pages);
    let mut starts: Vec<usize> = (0..pages).step_by(window).collect();
    shuffle(&mut starts);
    let single = Pass {
        metric: &cat::FAULT,
        order: &starts,
        ..probe
    };
    let faults = single.faults();
    if faults < starts.len() as u64 {
        failed(
            &cat::FAULT,
            format_args!(
                "{} touches made only {faults} faults: the window ({window} pages) is wrong",
                starts.len()
            ),
        );
    }
    eprintln!(
        "lat_pagefault: {} pages of {page} B ({} MB) in {}; {} faults per sequential pass (MADV_RANDOM): \
         window {window} pages, {} touches per `fault` pass, {} faults each pass; \
         {} faults per `page` pass",
        pages,
        file_size >> 20,
        root.display(),
        seq_faults,
        starts.len(),
        faults,
        every.faults(),
    );

    let every_remap = Pass {
        metric: &cat::PAGE_REMAP,
        ..every
    };
    let single_remap = Pass {
        metric: &cat::FAULT_REMAP,
        ..single
    };
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    g.bench(&cat::PAGE, |iters| every.time(iters, true));
    g.bench(&cat::PAGE_REMAP, |iters| every_remap.time(iters, false));
    g.bench(&cat::FAULT, |iters| single.time(iters, true));
    g.bench(&cat::FAULT_REMAP, |iters| single_remap.time(iters, false));
    let per_fault = Pass {
        metric: &cat::PER_FAULT,
        ..every
    };
    g.bench(&cat::PER_FAULT, |iters| per_fault.per_fault(iters));
    g.finish();
    let counted = Pass {
        metric: &cat::FAULTS_PER_PAGE,
        ..every
    };
    bench_figures(c, &PROGRAM, Class::Fast, |g| {
        g.criterion().sampling_mode(SamplingMode::Flat);
        g.bench(&cat::FAULTS_PER_PAGE, |iters| {
            counted.faults_per_page(iters)
        });
    });
}

lmbench_support::bench_main!(lat_pagefault);
