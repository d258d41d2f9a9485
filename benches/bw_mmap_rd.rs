//! bw_mmap_rd: rereading a cached file through mmap(2).
//! Run: `cargo bench --bench bw_mmap_rd` (or `lmbench run bw_mmap_rd`).
//!
//! Method (lmbench's bw_mmap_rd): sizes S as bw_file_rd's (512 KB, 8 MB,
//! 64 MB and the machine's memory bandwidth top size, the size of Mem
//! read, which the summary's Mmap reread cell takes). One scratch file of
//! the largest S is written once per run in sequential 8 KiB writes, as
//! lmbench's script writes its $FILE (`fs::FILE_BLOCK`: the write size
//! decides the page cache's folio sizes, and with them how many pages
//! each fault maps), and fsync'ed (removed on exit, also on a panic), so
//! its pages are cached; each size maps its first S bytes. Per iteration:
//! - mmap_only: S bytes are mapped once (PROT_READ, MAP_SHARED) and touched
//!   once before timing; sum every 8-byte word of them (`Mapping::sum`), as
//!   lmbench sums every word of each block, in its compiled form (one
//!   chain of 128 adds per 1 KB, `bw::sum_words`): the bytes counted are the
//!   bytes loaded, so the figure is at most a memory read of that size.
//! - open2close: open(2), mmap(2), sum, munmap(2), close(2): includes the
//!   page-table setup (minor faults) of every pass.
//!
//! Bytes per iteration: S. Every call is checked but munmap, which memmap2
//! makes on drop without a result (a whole mapping of ours: it cannot
//! fail). The mapping is memmap2's: mmap and munmap with nothing around
//! them but a page-offset remainder. In Criterion's test mode
//! (`cargo test`) sizes above 8 MB are skipped.

use std::time::Instant;

use criterion::Criterion;
use lmbench_support::bw::{self, Mapping};
use lmbench_support::catalog::{
    bw_mmap_rd::{mode, PROGRAM},
    Metric,
};
use lmbench_support::harness::{check, test_mode, Class, Group};
use lmbench_support::sys;

fn bw_mmap_rd(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Bandwidth);
    let cap = if test_mode() { 8 << 20 } else { usize::MAX };
    let plan = bw::reread_plan(&PROGRAM, cap);
    let (file, sizes) = check(PROGRAM.metrics[0], "create scratch file", plan);
    for m in PROGRAM.metrics.iter().copied() {
        let m: &'static Metric = m;
        let (mode, _) = m.function_and_parameter();
        let Some(&(_, size)) = sizes.iter().find(|(r, _)| std::ptr::eq(*r, m)) else {
            g.skip(
                m,
                "not measured here (512k, 8m, 64m and the top size; 8m at most in test mode)",
            );
            continue;
        };
        let path = file.c_path();
        g.bytes_per_iter(size as u64);
        match mode {
            mode::MMAP_ONLY => {
                let fd = check(m, "open", sys::open(path, libc::O_RDONLY));
                let map = check(m, "mmap", Mapping::new(fd, size));
                std::hint::black_box(map.sum());
                g.bench(m, |iters| {
                    let t = Instant::now();
                    for _ in 0..iters {
                        std::hint::black_box(map.sum());
                    }
                    t.elapsed()
                });
                drop(map);
                check(m, "close", sys::close(fd));
            }
            mode::OPEN2CLOSE => {
                let once = || -> std::io::Result<u64> {
                    let fd = sys::open(path, libc::O_RDONLY)?;
                    // The mapping is unmapped as it drops, before the close.
                    let r = Mapping::new(fd, size).map(|map| map.sum());
                    sys::close(fd)?;
                    r
                };
                check(m, "untimed pass", once());
                g.bench_loop(m, &once);
            }
            other => unreachable!("bw_mmap_rd mode {other} has no bench"),
        }
    }
    g.finish();
}

lmbench_support::bench_main!(bw_mmap_rd);
