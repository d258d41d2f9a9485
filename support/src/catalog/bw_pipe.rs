//! bw_pipe: pipe bandwidth from a writer process.
use super::{Metric, Program, Unit::MBps};

pub static READ_64K: Metric = Metric::median(
    "bw_pipe/read/64k",
    MBps,
    "read(2) of 10 MB (10 x 2^20 bytes) from a pipe in reads of up to 64 KB; an lmbench-peer writes 64 KB chunks forever",
);

pub static PINNED_64K: Metric = Metric::median(
    "bw_pipe/pinned/64k",
    MBps,
    "as bw_pipe/read/64k, with the bench and its writer bound to one CPU: each 64 KB moved between two switches on that CPU",
);

pub static PROGRAM: Program = Program {
    name: "bw_pipe",
    about: "pipe bandwidth: a peer writes 64 KB chunks, we read 10 MB",
    metrics: &[&READ_64K, &PINNED_64K],
};
