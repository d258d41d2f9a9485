//! lat_proc: process creation, timed inside the small helper process.
use super::{Metric, Program, Unit::Micros};

pub static FORK: Metric = Metric::median(
    "lat_proc/fork",
    Micros,
    "in lmbench-peer: fork(2), the child exit(3)s at once (the C library's, as lmbench's child), the parent waitpid(2)s",
);
pub static EXEC: Metric = Metric::median(
    "lat_proc/exec",
    Micros,
    "in lmbench-peer: fork(2), the child (stdout on /dev/null) execve(2)s lmbench-exec-hello (no_std, libc only) with an empty environment, the parent waits",
);
pub static EXEC_STATIC: Metric = Metric::median(
    "lat_proc/exec_static",
    Micros,
    "in lmbench-peer: fork(2), the child execve(2)s lmbench-exec-exit (static, no libc: a raw exit syscall) with an empty environment, the parent waits; exec minus this is dynamic loading and libc start-up",
);
pub static SHELL: Metric = Metric::median(
    "lat_proc/shell",
    Micros,
    "in lmbench-peer: fork(2), the child execve(2)s /bin/sh -c lmbench-exec-hello with an empty environment, the parent waits",
);

pub static PROGRAM: Program = Program {
    name: "lat_proc",
    about: "process creation: fork, fork+exec (dynamic and static), fork+sh -c",
    metrics: &[&FORK, &EXEC, &EXEC_STATIC, &SHELL],
};
