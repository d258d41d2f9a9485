//! bw_mmap_rd: rereading a cached file through mmap(2). Sizes as
//! bw_file_rd's (`bw_file_rd::runs_at`).
use super::bw_file_rd::reread_metrics;
use super::{Metric, Program, Unit::MBps};

const MMAP_ONLY: &str =
    "sum the first S bytes of a cached file mapped once (MAP_SHARED, read-only), every 8-byte word";
const OPEN2CLOSE: &str =
    "open(2), mmap(2) the first S bytes of a cached file, sum every 8-byte word, munmap(2), close(2)";

pub static PROGRAM: Program = Program {
    name: "bw_mmap_rd",
    about: "rereading a cached file through mmap (mapped once, or open/map/unmap/close each time)",
    metrics: reread_metrics!(
        "bw_mmap_rd",
        "mmap_only",
        MMAP_ONLY,
        "open2close",
        OPEN2CLOSE
    ),
};
