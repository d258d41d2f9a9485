//! bw_mmap_rd: rereading a cached file through mmap(2).
//! Run: `cargo bench --bench bw_mmap_rd` (or `lmbench run bw_mmap_rd`).
//!
//! Method (lmbench's bw_mmap_rd): a scratch file of S bytes (512 KB, 8 MB,
//! 64 MB; the summary shows the largest) is written and fsync'ed once, so
//! its pages are cached. Per iteration:
//! - mmap_only: the file is mapped once (PROT_READ, MAP_SHARED) and touched
//!   once before timing; sum every 8-byte word of it (`Mapping::sum`), as
//!   lmbench sums every word of each block: the bytes counted are the
//!   bytes loaded, so the figure is at most a memory read of that size.
//! - open2close: open(2), mmap(2), sum, munmap(2), close(2): includes the
//!   page-table setup (minor faults) of every pass.
//!
//! Bytes per iteration: S. Every call is checked. In Criterion's test mode
//! (`cargo test`) the 64 MB file is skipped.

use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use lmbench_support::bw::{self, Mapping};
use lmbench_support::catalog::{bw_mmap_rd::PROGRAM, Metric};
use lmbench_support::fs::ScratchFile;
use lmbench_support::harness::{check, config, test_mode, timed_loop, Class, Group};
use lmbench_support::sys;

fn bw_mmap_rd(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Bandwidth);
    for m in PROGRAM.metrics.iter().copied() {
        let m: &'static Metric = m;
        let (mode, size) = m.function_and_parameter();
        let size = bw::parse_size(size.unwrap_or("")).expect("catalog sizes parse");
        if test_mode() && size > 8 << 20 {
            g.skip(m, "test mode");
            continue;
        }
        let file = check(m, "create scratch file", ScratchFile::new(size));
        let path = file.c_path();
        g.bytes_per_iter(size as u64);
        match mode {
            "mmap_only" => {
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
                check(m, "munmap", map.unmap());
                check(m, "close", sys::close(fd));
            }
            "open2close" => {
                let once = || -> std::io::Result<u64> {
                    let fd = sys::open(path, libc::O_RDONLY)?;
                    let map = Mapping::new(fd, size);
                    let r = map.and_then(|map| {
                        let s = map.sum();
                        map.unmap().map(|_| s)
                    });
                    sys::close(fd)?;
                    r
                };
                check(m, "untimed pass", once());
                g.bench(m, |iters| timed_loop(m, iters, &once));
            }
            other => unreachable!("bw_mmap_rd mode {other} has no bench"),
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = bw_mmap_rd
}
criterion_main!(benches);
