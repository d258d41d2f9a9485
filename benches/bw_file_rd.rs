//! bw_file_rd: rereading a cached file with read(2).
//! Run: `cargo bench --bench bw_file_rd` (or `lmbench run bw_file_rd`).
//!
//! Method (lmbench's bw_file_rd): a scratch file of S bytes (512 KB, 8 MB,
//! 64 MB; the summary shows the largest) is written and fsync'ed once, so
//! its pages are cached. Per iteration:
//! - io_only: the fd is opened once; lseek(2) to 0, then read(2) 64 KB
//!   chunks to end of file into a page-aligned buffer, summing every 8-byte
//!   word of each chunk (`bw::read_sum`), as lmbench sums every word of
//!   each block it reads: the bytes counted are the bytes loaded, so the
//!   figure is at most a memory read of the same size plus the copy.
//! - open2close: the same with open(2) and close(2) inside the loop.
//!
//! Bytes per iteration: S. Every read is checked and the total must equal
//! S (a test checks the sum of a known file, so a short read or a skipped
//! block fails). In Criterion's test mode (`cargo test`) the 64 MB file is skipped.

use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use lmbench_support::bw::{self, kernels};
use lmbench_support::catalog::{bw_file_rd::PROGRAM, Metric};
use lmbench_support::fs::ScratchFile;
use lmbench_support::harness::{check, config, failed, test_mode, timed_loop, Class, Group};
use lmbench_support::sys;

fn bw_file_rd(c: &mut Criterion) {
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
        let mut buf = check(m, "buffer", kernels::Buf::new(bw::XFER, 0));
        g.bytes_per_iter(size as u64);
        match mode {
            "io_only" => {
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
            "open2close" => {
                let once = || -> std::io::Result<u64> {
                    let fd = sys::open(path, libc::O_RDONLY)?;
                    let r = bw::read_sum(fd, &mut buf, size);
                    sys::close(fd)?;
                    r
                };
                let mut once = once;
                check(m, "untimed read", once());
                g.bench(m, |iters| timed_loop(m, iters, &mut once));
            }
            other => unreachable!("bw_file_rd mode {other} has no bench"),
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = bw_file_rd
}
criterion_main!(benches);
