//! bw_file_rd: rereading a cached file with read(2).
//! Run: `cargo bench --bench bw_file_rd` (or `lmbench run bw_file_rd`).
//!
//! Method (lmbench's bw_file_rd): sizes S of 512 KB, 8 MB, 64 MB and the
//! machine's memory bandwidth top size (`bw::machine_top_size`, 4x the
//! last-level cache: the size of bw_mem's Mem read, which the summary's
//! File reread cell takes, so the two compare like for like). One scratch
//! file of the largest S is written once per run in sequential 8 KiB
//! writes, as lmbench's script writes its $FILE (`fs::FILE_BLOCK`: the
//! write size decides the page cache's folio sizes, and with them how
//! many folios a read walks), and fsync'ed (removed on exit, also on a
//! panic), so its pages are cached; each size reads its first S bytes. Per iteration:
//! - io_only: the fd is opened once; lseek(2) to 0, then read(2) 64 KB
//!   chunks up to S bytes into a page-aligned buffer, summing every 8-byte
//!   word of each chunk (`bw::read_sum`), as lmbench sums every word of
//!   each block it reads, and in its compiled form (one chain of 128 adds
//!   per 1 KB, `bw::sum_words`): the bytes counted are the bytes loaded, so the
//!   figure is at most a memory read of the same size plus the copy.
//! - open2close: the same with open(2) and close(2) inside the loop.
//!
//! Bytes per iteration: S. Every read is checked and the total must equal
//! S (a test checks the sum of a known file, so a short read or a skipped
//! block fails). In Criterion's test mode (`cargo test`) sizes above 8 MB
//! are skipped.

use std::time::Instant;

use criterion::Criterion;
use lmbench_support::bw::{self, kernels};
use lmbench_support::catalog::{
    bw_file_rd::{mode, PROGRAM},
    Metric,
};
use lmbench_support::harness::{check, failed, test_mode, Class, Group};
use lmbench_support::sys;

fn bw_file_rd(c: &mut Criterion) {
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
        let mut buf = check(m, "buffer", kernels::Buf::new(bw::XFER, 0));
        g.bytes_per_iter(size as u64);
        match mode {
            mode::IO_ONLY => {
                let fd = check(m, "open", sys::open(path, libc::O_RDONLY));
                check(m, "untimed read", bw::read_sum(fd, &mut buf, size));
                g.bench(m, |iters| {
                    let t = Instant::now();
                    for _ in 0..iters {
                        let r = bw::rewind(fd).and_then(|_| bw::read_sum(fd, &mut buf, size));
                        match r {
                            Ok(s) => {
                                std::hint::black_box(s);
                            }
                            Err(e) => failed(m, e),
                        }
                    }
                    t.elapsed()
                });
                check(m, "close", sys::close(fd));
            }
            mode::OPEN2CLOSE => {
                let once = || -> std::io::Result<u64> {
                    let fd = sys::open(path, libc::O_RDONLY)?;
                    let r = bw::read_sum(fd, &mut buf, size);
                    sys::close(fd)?;
                    r
                };
                let mut once = once;
                check(m, "untimed read", once());
                g.bench_loop(m, &mut once);
            }
            other => unreachable!("bw_file_rd mode {other} has no bench"),
        }
    }
    g.finish();
}

lmbench_support::bench_main!(bw_file_rd);
