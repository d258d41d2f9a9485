//! lat_proc: process creation, timed inside the small helper process.
use super::{Metric, Program, Unit::Micros};

pub static FORK: Metric = Metric::median(
    "lat_proc/fork",
    Micros,
    "in lmbench-peer: fork(2), the child _exit(0)s at once, the parent waitpid(2)s",
);
pub static EXEC: Metric = Metric::median(
    "lat_proc/exec",
    Micros,
    "in lmbench-peer: fork(2), the child (stdout on /dev/null) execve(2)s lmbench-hello, the parent waits",
);
pub static SHELL: Metric = Metric::median(
    "lat_proc/shell",
    Micros,
    "in lmbench-peer: fork(2), the child runs /bin/sh -c lmbench-hello, the parent waits",
);

pub static PROGRAM: Program = Program {
    name: "lat_proc",
    about: "process creation: fork, fork+exec, fork+sh -c",
    metrics: &[&FORK, &EXEC, &SHELL],
};
