//! lat_uring (beyond lmbench): io_uring's round trip through the kernel,
//! and a cached 4 KiB read through it beside pread(2). Where io_uring is
//! unavailable (kernel.io_uring_disabled, a seccomp filter, a kernel older
//! than 5.6) its metrics are skipped with the reason, never zero.
use super::{Metric, Program, Unit::Micros};

pub static NOP: Metric = Metric::median(
    "lat_uring/nop",
    Micros,
    "one IORING_OP_NOP queued, submitted with io_uring_enter waiting for 1 completion, its completion reaped and checked",
);
pub static READ_4K: Metric = Metric::median(
    "lat_uring/read_4k",
    Micros,
    "one IORING_OP_READ of 4 KiB at offset 0 of a cached file, submitted and waited for in one io_uring_enter, 4096 checked",
);
pub static PREAD_4K: Metric = Metric::median(
    "lat_uring/pread_4k",
    Micros,
    "one pread(2) of 4 KiB at offset 0 of the same cached file, 4096 checked",
);

pub static PROGRAM: Program = Program {
    name: "lat_uring",
    about:
        "beyond lmbench: io_uring NOP round trip, a cached 4 KiB read through io_uring beside pread",
    metrics: &[&NOP, &READ_4K, &PREAD_4K],
};
