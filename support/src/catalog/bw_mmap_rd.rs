//! bw_mmap_rd: rereading a cached file through mmap(2).
use super::{Metric, Program, Unit::MBps};

const MMAP_ONLY: &str = "sum the whole file mapped once (MAP_SHARED, read-only), every 8-byte word";
const OPEN2CLOSE: &str =
    "open(2), mmap(2) the whole cached file, sum every 8-byte word, munmap(2), close(2)";

pub static MMAP_ONLY_512K: Metric = Metric::median("bw_mmap_rd/mmap_only/512k", MBps, MMAP_ONLY);
pub static MMAP_ONLY_8M: Metric = Metric::median("bw_mmap_rd/mmap_only/8m", MBps, MMAP_ONLY);
pub static MMAP_ONLY_64M: Metric = Metric::median("bw_mmap_rd/mmap_only/64m", MBps, MMAP_ONLY);
pub static OPEN2CLOSE_512K: Metric = Metric::median("bw_mmap_rd/open2close/512k", MBps, OPEN2CLOSE);
pub static OPEN2CLOSE_8M: Metric = Metric::median("bw_mmap_rd/open2close/8m", MBps, OPEN2CLOSE);
pub static OPEN2CLOSE_64M: Metric = Metric::median("bw_mmap_rd/open2close/64m", MBps, OPEN2CLOSE);

pub static PROGRAM: Program = Program {
    name: "bw_mmap_rd",
    about: "rereading a cached file through mmap (mapped once, or open/map/unmap/close each time)",
    metrics: &[
        &MMAP_ONLY_512K,
        &MMAP_ONLY_8M,
        &MMAP_ONLY_64M,
        &OPEN2CLOSE_512K,
        &OPEN2CLOSE_8M,
        &OPEN2CLOSE_64M,
    ],
};
