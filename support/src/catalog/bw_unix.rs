//! bw_unix: AF_UNIX stream socket bandwidth from a writer process.
use super::{Metric, Program, Unit::MBps};

pub static READ_64K: Metric = Metric::median(
    "bw_unix/read/64k",
    MBps,
    "read(2) of 10 MB from a stream socketpair in reads of up to 64 KB; an lmbench-peer writes 64 KB chunks forever",
);

pub static PINNED_64K: Metric = Metric::median(
    "bw_unix/pinned/64k",
    MBps,
    "as bw_unix/read/64k, with the bench and its writer bound to one CPU: each 64 KB moved between two switches on that CPU",
);

pub static PROGRAM: Program = Program {
    name: "bw_unix",
    about: "AF_UNIX stream bandwidth: a peer writes 64 KB chunks, we read 10 MB",
    metrics: &[&READ_64K, &PINNED_64K],
};
