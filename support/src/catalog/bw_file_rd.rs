//! bw_file_rd: rereading a cached file with read(2).
use super::{Metric, Program, Unit::MBps};

const IO_ONLY: &str =
    "lseek(2) to 0, read(2) the whole cached file in 64 KB chunks, summing every 8-byte word; fd opened once";
const OPEN2CLOSE: &str =
    "open(2), read(2) the whole cached file in 64 KB chunks summing every 8-byte word, close(2)";

pub static IO_ONLY_512K: Metric = Metric::median("bw_file_rd/io_only/512k", MBps, IO_ONLY);
pub static IO_ONLY_8M: Metric = Metric::median("bw_file_rd/io_only/8m", MBps, IO_ONLY);
pub static IO_ONLY_64M: Metric = Metric::median("bw_file_rd/io_only/64m", MBps, IO_ONLY);
pub static OPEN2CLOSE_512K: Metric = Metric::median("bw_file_rd/open2close/512k", MBps, OPEN2CLOSE);
pub static OPEN2CLOSE_8M: Metric = Metric::median("bw_file_rd/open2close/8m", MBps, OPEN2CLOSE);
pub static OPEN2CLOSE_64M: Metric = Metric::median("bw_file_rd/open2close/64m", MBps, OPEN2CLOSE);

pub static PROGRAM: Program = Program {
    name: "bw_file_rd",
    about: "rereading a cached file with read(2) (io_only) and with open/close (open2close)",
    metrics: &[
        &IO_ONLY_512K,
        &IO_ONLY_8M,
        &IO_ONLY_64M,
        &OPEN2CLOSE_512K,
        &OPEN2CLOSE_8M,
        &OPEN2CLOSE_64M,
    ],
};
