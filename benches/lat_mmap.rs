//! lat_mmap: the cost of mapping a file, using a little of it, and
//! unmapping it. Run: `cargo bench --bench lat_mmap` (or `lmbench run
//! lat_mmap`); the file lives in `LMBENCH_FSDIR` (default: the temp dir).
//!
//! Method (lmbench's lat_mmap): a scratch file of S bytes (written and
//! flushed in setup, so its pages are cached), opened read/write once. One
//! iteration: mmap(NULL, S, PROT_READ|PROT_WRITE, MAP_SHARED, fd, 0), one
//! byte stored every 16 KB over the first S/10 bytes (each store faults the
//! page in, writable), munmap. S from 512 KB to 64 MB, doubling; the
//! summary's "Mmap Latency" is the largest S measured. Every mmap and
//! munmap is checked, and once before timing we check through read(2) that
//! a store reached the file.
//!
//! How many faults the stores cost depends on how the file system caches
//! the file, which depends on how it was written: written in 64 KB blocks,
//! ext4 on Linux 6.18 held it in 64 KB folios and one write fault mapped a
//! whole folio (64 MB: 103 faults for 410 stores; 0.42x the C suite's
//! figure). So the file is written as lmbench writes it, in 8 KiB blocks
//! (`fs::FILE_BLOCK`), on every kernel. tmpfs (huge=never) has 4 KB
//! pages and every store faults; record LMBENCH_FSDIR.
//!
//! Sizes are capped by free memory: a size whose file does not fit in a
//! quarter of MemAvailable is skipped (said on stderr; the summary then
//! takes the largest size that ran). In Criterion's test mode (`cargo
//! test`), sizes above 8 MB are skipped so that the test run stays fast.

use std::io::{Read, Seek, SeekFrom};
use std::os::fd::AsRawFd;
use std::time::Instant;

use criterion::Criterion;
use lmbench_support::catalog::lat_mmap::{self as cat, PROGRAM};
use lmbench_support::catalog::Metric;
use lmbench_support::fs::ScratchFile;
use lmbench_support::harness::{check, failed, scratch_root_or_exit, Class, Group};
use lmbench_support::vm;

const STRIDE: usize = 16 << 10;
/// In test mode (no `--bench` argument) only sizes up to this run.
const TEST_MODE_MAX: usize = 8 << 20;

/// One iteration: map, store every 16 KB over the first tenth, unmap.
#[inline]
fn map_touch_unmap(metric: &Metric, fd: i32, size: usize) {
    let p = match vm::map(
        size,
        libc::PROT_READ | libc::PROT_WRITE,
        libc::MAP_SHARED,
        fd,
    ) {
        Ok(p) => p,
        Err(e) => failed(metric, format_args!("mmap: {e}")),
    };
    let mut off = 0;
    while off < size / 10 {
        // SAFETY: off < size: inside the mapping, which is writable.
        unsafe { p.add(off).write_volatile(1) };
        off += STRIDE;
    }
    // SAFETY: the mapping is ours and no reference into it survives.
    if let Err(e) = unsafe { vm::unmap(p, size) } {
        failed(metric, format_args!("munmap: {e}"));
    }
}

fn lat_mmap(c: &mut Criterion) {
    let root = scratch_root_or_exit(&PROGRAM);
    let test_mode = lmbench_support::harness::test_mode();
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    for &(metric, size) in &cat::SIZES {
        if test_mode && size > TEST_MODE_MAX {
            g.skip(metric, "test mode");
            continue;
        }
        // Read each time: the other sizes' files have come and gone.
        if let Some(avail) = vm::mem_available() {
            if size as u64 > avail / 4 {
                g.skip(
                    metric,
                    format_args!("a quarter of MemAvailable ({} MB) is smaller", avail >> 20),
                );
                continue;
            }
        }
        let file = check(metric, "create the file", ScratchFile::new(size));
        let mut f = check(
            metric,
            "open the file",
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(file.path()),
        );
        let fd = f.as_raw_fd();
        // Checked once: the mapping is the file's (a store shows in read).
        map_touch_unmap(metric, fd, size);
        let mut first = [0u8; 1];
        check(metric, "seek", f.seek(SeekFrom::Start(0)));
        check(metric, "read back", f.read_exact(&mut first));
        if first[0] != 1 {
            failed(
                metric,
                "a store through the shared mapping did not reach the file",
            );
        }
        g.bench(metric, |iters| {
            let start = Instant::now();
            for _ in 0..iters {
                map_touch_unmap(metric, fd, size);
            }
            start.elapsed()
        });
        eprintln!("lat_mmap: {} KB file in {}", size >> 10, root.display());
    }
    g.finish();
}

lmbench_support::bench_main!(lat_mmap);
