//! floor: the bare operations of the suite's metrics as plain loops, timed
//! inside `lmbench-peer floor` (a small single-threaded process: no
//! Criterion machinery around each operation, no second thread), so any
//! reader can see the harness's share of a figure. Each is the floor of
//! one or more metrics ([`super::floor_pairs::FLOORS`]), in the same unit.
use super::{Headline, Metric, Program, Unit, Unit::Micros};

pub static NULL: Metric = Metric::median(
    "floor/null",
    Micros,
    "in lmbench-peer floor, a plain loop: one raw getppid system call",
);
pub static READ: Metric = Metric::median(
    "floor/read",
    Micros,
    "in lmbench-peer floor, a plain loop: read(2) of 1 byte from /dev/zero on an fd opened once",
);
pub static WRITE: Metric = Metric::median(
    "floor/write",
    Micros,
    "in lmbench-peer floor, a plain loop: write(2) of 1 byte to /dev/null on an fd opened once",
);
pub static STAT: Metric = Metric::median(
    "floor/stat",
    Micros,
    "in lmbench-peer floor, a plain loop: stat(2) of a 1-byte scratch file directly in LMBENCH_FSDIR, as lat_syscall/stat's",
);
pub static FSTAT: Metric = Metric::median(
    "floor/fstat",
    Micros,
    "in lmbench-peer floor, a plain loop: fstat(2) of an open fd of that scratch file",
);
pub static OPEN: Metric = Metric::median(
    "floor/open",
    Micros,
    "in lmbench-peer floor, a plain loop: open(2) O_RDONLY of that scratch file, then close(2)",
);
pub static SELECT_100: Metric = Metric::median(
    "floor/select/100",
    Micros,
    "in lmbench-peer floor, a plain loop: select(2), zero timeout, on a copy of a write set of 100 dups of the scratch file opened read-only, nfds = highest fd + 1",
);
pub static PIPE_PINNED: Metric = Metric::median(
    "floor/pipe_pinned",
    Micros,
    "in lmbench-peer floor bound to one CPU, a plain loop: write 1 byte into a pipe to a forked echo child on that CPU, read its 1-byte answer from a second pipe",
);
pub static UNIX_PINNED: Metric = Metric::median(
    "floor/unix_pinned",
    Micros,
    "in lmbench-peer floor bound to one CPU, a plain loop: write 1 byte on an AF_UNIX stream socketpair to a forked echo child on that CPU, read its 1-byte answer",
);
pub static FORK: Metric = Metric::median(
    "floor/fork",
    Micros,
    "in lmbench-peer floor, a plain loop: fork(2), the child exit(3)s (the C library's, as lmbench's child), the parent waitpid(2)s",
);
pub static EXEC: Metric = Metric::median(
    "floor/exec",
    Micros,
    "in lmbench-peer floor, a plain loop: fork(2), the child (stdout on /dev/null) execve(2)s lmbench-exec-hello with an empty environment, the parent waits",
);
pub static EXEC_STATIC: Metric = Metric::median(
    "floor/exec_static",
    Micros,
    "in lmbench-peer floor, a plain loop: fork(2), the child execve(2)s lmbench-exec-exit (static, a raw exit syscall) with an empty environment, the parent waits",
);

/// A memory floor: lat_mem_rd's headline (the minimum, in ns per load).
const fn chase(id: &'static str, timed: &'static str) -> Metric {
    Metric {
        id,
        unit: Unit::Nanos,
        headline: Headline::Min,
        timed,
    }
}

/// The memory floors: each a chain of lat_mem_rd's at one size. The 2 GiB
/// ones run only where that is lat_mem_rd's top size (a last-level cache
/// over 256 MiB).
macro_rules! chase_floors {
    ($($name:ident = $id:literal: $timed:literal;)*) => {
        $(pub static $name: Metric = chase($id, $timed);)*
    };
}

chase_floors! {
    THRASH_1G = "floor/thrash/1g":
        "in lmbench-peer floor, a plain loop: one dependent load p = *p of a thrash chain over 1 GiB built by its own shuffle (every 64 B line once, consecutive loads on different pages), fastest 16K-load chunk";
    PAGE_1G = "floor/page/1g":
        "in lmbench-peer floor, a plain loop: one dependent load p = *p of a chain with one line per 4 KB page over 1 GiB, pages in random order, fastest 16K-load chunk";
    INPAGE_1G = "floor/inpage/1g":
        "in lmbench-peer floor, a plain loop: one dependent load p = *p of a chain through every 64 B line of 1 GiB, a page's lines in random order, pages in random order, fastest 16K-load chunk";
    THRASH_2G = "floor/thrash/2g":
        "in lmbench-peer floor, a plain loop: the thrash chain (as floor/thrash/1g) over 2 GiB, fastest 16K-load chunk";
    PAGE_2G = "floor/page/2g":
        "in lmbench-peer floor, a plain loop: the one-line-per-page chain (as floor/page/1g) over 2 GiB, fastest 16K-load chunk";
    INPAGE_2G = "floor/inpage/2g":
        "in lmbench-peer floor, a plain loop: the inpage chain (as floor/inpage/1g) over 2 GiB, fastest 16K-load chunk";
    INPAGE_16M = "floor/inpage/16m":
        "in lmbench-peer floor, a plain loop: the inpage chain over 16 MiB, fastest 16K-load chunk";
}

pub static PROGRAM: Program = Program {
    name: "floor",
    about: "bare loops of the suite's operations in a small single-threaded process: the floors the metrics are judged against",
    metrics: &[
        &NULL,
        &READ,
        &WRITE,
        &STAT,
        &FSTAT,
        &OPEN,
        &SELECT_100,
        &PIPE_PINNED,
        &UNIX_PINNED,
        &FORK,
        &EXEC,
        &EXEC_STATIC,
        &THRASH_1G,
        &PAGE_1G,
        &INPAGE_1G,
        &THRASH_2G,
        &PAGE_2G,
        &INPAGE_2G,
        &INPAGE_16M,
    ],
};
