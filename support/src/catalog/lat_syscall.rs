//! lat_syscall: the cost of entering the kernel for trivial work.
use super::{Metric, Program, Unit::Micros};

pub static NULL: Metric = Metric::median(
    "lat_syscall/null",
    Micros,
    "one raw getppid system call (syscall(2), never a libc wrapper that may cache)",
);
pub static READ: Metric = Metric::median(
    "lat_syscall/read",
    Micros,
    "read(2) of 1 byte from /dev/zero on an fd opened once",
);
pub static WRITE: Metric = Metric::median(
    "lat_syscall/write",
    Micros,
    "write(2) of 1 byte to /dev/null on an fd opened once",
);
pub static STAT: Metric = Metric::median(
    "lat_syscall/stat",
    Micros,
    "stat(2) of a small scratch file directly in LMBENCH_FSDIR (lmbench's $FILE's path depth) whose inode is cached",
);
pub static FSTAT: Metric = Metric::median(
    "lat_syscall/fstat",
    Micros,
    "fstat(2) of an open fd of that scratch file",
);
pub static OPEN: Metric = Metric::median(
    "lat_syscall/open",
    Micros,
    "open(2) O_RDONLY of the scratch file, then close(2)",
);

pub static PROGRAM: Program = Program {
    name: "lat_syscall",
    about: "simple entries into the operating system",
    metrics: &[&NULL, &READ, &WRITE, &STAT, &FSTAT, &OPEN],
};
