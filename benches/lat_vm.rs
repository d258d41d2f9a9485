//! lat_vm (beyond lmbench): anonymous memory, one operation at a time.
//! Run: `cargo bench --bench lat_vm` (or `lmbench run lat_vm`).
//!
//! The process has one thread (checked), so every TLB flush is local.
//! - fault_4k: a 64 MiB private anonymous mapping (MADV_NOHUGEPAGE); each
//!   iteration writes one byte to the next untouched page. When the region
//!   is used up the clock stops, MADV_DONTNEED empties it (page tables
//!   stay), and the clock restarts: setup never in the timed region.
//! - thp_2m: as fault_4k on a 2 MiB-aligned 64 MiB MADV_HUGEPAGE region,
//!   one write per 2 MiB extent. Checked before timing: the untimed pass
//!   must raise AnonHugePages (/proc/self/smaps_rollup) by at least half
//!   the region, else the metric is skipped with the reason (THP off,
//!   memory too fragmented); it is never a 4 KiB figure in disguise.
//! - munmap: 4 MiB regions mapped and touched untimed; timed, munmap of
//!   one page at a time from the region's start (the mapping shrinks, no
//!   split).
//! - mprotect: one touched page, PROT_READ then PROT_READ|PROT_WRITE...
//! - dontneed: one page, MADV_DONTNEED then a write (the refault).
//!
//! Linux-only (MADV_* semantics, smaps); elsewhere skipped, said.

use criterion::Criterion;
use lmbench_support::catalog::lat_vm::PROGRAM;
use lmbench_support::harness::{Class, Group};

#[cfg(target_os = "linux")]
mod linux {
    use std::io;
    use std::time::{Duration, Instant};

    use lmbench_support::catalog::lat_vm as cat;
    use lmbench_support::catalog::Metric;
    use lmbench_support::harness::{check, failed, Group};
    use lmbench_support::{kpath, vm};

    use lmbench_support::vm::{MmapAdvise, ProtFlags, Region};

    const REGION: usize = 64 << 20;
    const HUGE: usize = 2 << 20;
    const RW: i32 = libc::PROT_READ | libc::PROT_WRITE;
    const ANON: i32 = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;

    /// A region of `len` bytes aligned to `align`, with `advice` given.
    fn region(len: usize, align: usize, advice: MmapAdvise) -> io::Result<Region> {
        let r = Region::anon(len, align)?;
        r.advise(advice)?;
        Ok(r)
    }

    /// `iters` first writes, `step` bytes apart, over `map`'s region; the
    /// emptying of a used-up region is not timed.
    fn faults(m: &'static Metric, map: &Region, step: usize, iters: u64) -> Duration {
        let per = (REGION / step) as u64;
        let mut left = iters;
        let mut took = Duration::ZERO;
        while left > 0 {
            let n = left.min(per) as usize;
            let t = Instant::now();
            map.touch_every(step, n);
            took += t.elapsed();
            check(m, "MADV_DONTNEED", map.advise(MmapAdvise::MADV_DONTNEED));
            left -= n as u64;
        }
        took
    }

    fn anon_huge_kb() -> io::Result<u64> {
        let text = std::fs::read_to_string("/proc/self/smaps_rollup")?;
        text.lines()
            .find_map(|l| l.strip_prefix("AnonHugePages:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .ok_or_else(|| io::Error::other("no AnonHugePages in smaps_rollup"))
    }

    /// Why THP faults cannot be measured here, if they cannot.
    fn thp_unusable(map: &Region) -> Option<String> {
        let thp = "/sys/kernel/mm/transparent_hugepage";
        let Ok(enabled) = std::fs::read_to_string(format!("{thp}/enabled")) else {
            return Some("this kernel has no transparent huge pages".into());
        };
        if enabled.contains("[never]") {
            return Some(format!(
                "transparent huge pages are off ({thp}/enabled: {})",
                enabled.trim()
            ));
        }
        let pmd = std::fs::read_to_string(format!("{thp}/hpage_pmd_size")).ok();
        if let Some(size) = pmd.as_deref().and_then(|s| s.trim().parse::<usize>().ok()) {
            if size != HUGE {
                return Some(format!(
                    "the huge page size here is {size} bytes, not 2 MiB"
                ));
            }
        }
        let before = match anon_huge_kb() {
            Ok(kb) => kb,
            Err(e) => return Some(format!("cannot read AnonHugePages: {e}")),
        };
        map.touch_every(HUGE, REGION / HUGE);
        let after = anon_huge_kb().unwrap_or(before);
        if let Err(e) = map.advise(MmapAdvise::MADV_DONTNEED) {
            return Some(format!("MADV_DONTNEED: {e}"));
        }
        let got = after.saturating_sub(before) * 1024;
        (got < REGION as u64 / 2).then(|| {
            format!(
                "MADV_HUGEPAGE faults got {} of {} MiB as huge pages (memory fragmented, or THP defrag off)",
                got >> 20,
                REGION >> 20
            )
        })
    }

    pub fn run(g: &mut Group) {
        let page = vm::page_size();
        check(&cat::FAULT_4K, "one thread", kpath::require_one_thread());

        let m = &cat::FAULT_4K;
        let map = check(m, "map", region(REGION, page, MmapAdvise::MADV_NOHUGEPAGE));
        let before = check(m, "fault count", vm::faults());
        faults(m, &map, page, 1024);
        let after = check(m, "fault count", vm::faults());
        if after - before < 1024 {
            failed(
                m,
                format!("1024 first writes made {} faults", after - before),
            );
        }
        g.bench(m, |iters| faults(m, &map, page, iters));
        drop(map);

        let m = &cat::THP_2M;
        let map = check(m, "map", region(REGION, HUGE, MmapAdvise::MADV_HUGEPAGE));
        match thp_unusable(&map) {
            Some(why) => g.skip(m, why),
            None => g.bench(m, |iters| faults(m, &map, HUGE, iters)),
        }
        drop(map);

        let m = &cat::MUNMAP;
        const CHUNK: usize = 1024;
        g.bench(m, |iters| {
            let mut left = iters;
            let mut took = Duration::ZERO;
            while left > 0 {
                let n = left.min(CHUNK as u64) as usize;
                let p = check(m, "map", vm::map(CHUNK * page, RW, ANON, -1));
                check(
                    m,
                    "NOHUGEPAGE",
                    vm::advise(p, CHUNK * page, MmapAdvise::MADV_NOHUGEPAGE),
                );
                for i in 0..CHUNK {
                    // SAFETY: inside the fresh read-write CHUNK-page mapping.
                    unsafe { p.add(i * page).write_volatile(1) };
                }
                let t = Instant::now();
                for i in 0..n {
                    // SAFETY: page i of our mapping; nothing refers to it.
                    if let Err(e) = unsafe { vm::unmap(p.add(i * page), page) } {
                        failed(m, e);
                    }
                }
                took += t.elapsed();
                if n < CHUNK {
                    // SAFETY: the rest of our mapping, unused from here on.
                    check(m, "unmap rest", unsafe {
                        vm::unmap(p.add(n * page), (CHUNK - n) * page)
                    });
                }
                left -= n as u64;
            }
            took
        });

        let m = &cat::MPROTECT;
        let one = check(m, "map", region(page, page, MmapAdvise::MADV_NOHUGEPAGE));
        one.touch();
        let rw = ProtFlags::PROT_READ | ProtFlags::PROT_WRITE;
        let mut flip = false;
        g.bench_loop(m, || {
            flip = !flip;
            one.protect(if flip { ProtFlags::PROT_READ } else { rw })
        });
        check(m, "restore", one.protect(rw));

        let m = &cat::DONTNEED;
        one.touch();
        g.bench_loop(m, || {
            one.advise(MmapAdvise::MADV_DONTNEED)?;
            one.touch();
            Ok::<_, io::Error>(())
        });
        drop(one);
    }
}

fn lat_vm(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    #[cfg(target_os = "linux")]
    linux::run(&mut g);
    #[cfg(not(target_os = "linux"))]
    for m in PROGRAM.metrics {
        g.skip(m, "MADV_* semantics and smaps are Linux's");
    }
    g.finish();
}

lmbench_support::bench_main!(lat_vm);
