//! lat_spawn (beyond lmbench): the ways programs create work today, beside
//! lat_proc's fork and exec, timed from a small fresh process.
use super::{Metric, Program, Unit::Micros};

pub static THREAD: Metric = Metric::median(
    "lat_spawn/thread",
    Micros,
    "pthread_create of a thread that returns at once, then pthread_join",
);
pub static POSIX_SPAWN: Metric = Metric::median(
    "lat_spawn/posix_spawn",
    Micros,
    "posix_spawn of the tiny hello program (stdout on /dev/null), then waitpid",
);
pub static VFORK_EXEC: Metric = Metric::median(
    "lat_spawn/vfork_exec",
    Micros,
    "vfork; the child execve()s the tiny hello program (stdout on /dev/null); the parent waitpids",
);
pub static FORK_256M: Metric = Metric::median(
    "lat_spawn/fork_256m",
    Micros,
    "fork of a process with 256 MiB of written private 4 KiB pages; the child _exits; the parent waitpids (page-table copy and teardown)",
);

pub static PROGRAM: Program = Program {
    name: "lat_spawn",
    about: "beyond lmbench: thread spawn+join, posix_spawn, vfork+exec, fork of a 256 MiB parent",
    metrics: &[&THREAD, &POSIX_SPAWN, &VFORK_EXEC, &FORK_256M],
};
