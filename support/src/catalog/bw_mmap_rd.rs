//! bw_mmap_rd: rereading a cached file through mmap(2). Sizes as
//! bw_file_rd's (`bw_file_rd::runs_at`).
use super::bw_file_rd::reread_program;
use super::{Metric, Program, Unit::MBps};

const MMAP_ONLY_TIMED: &str =
    "sum the first S bytes of a cached file mapped once (MAP_SHARED, read-only), every 8-byte word";
const OPEN2CLOSE_TIMED: &str =
    "open(2), mmap(2) the first S bytes of a cached file, sum every 8-byte word, munmap(2), close(2)";

reread_program!(
    "bw_mmap_rd",
    "rereading a cached file through mmap (mapped once, or open/map/unmap/close each time)",
    MMAP_ONLY = "mmap_only": MMAP_ONLY_TIMED,
    OPEN2CLOSE = "open2close": OPEN2CLOSE_TIMED
);
