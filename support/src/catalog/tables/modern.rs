//! "Modern kernel paths": the paths engineers measure today that lmbench
//! (frozen around 2005) lacks, in two tables so a row fits a mail's width:
//! clocks, event polling and memory management; wake-ups, process
//! creation and io_uring. One row per run, microseconds; the programs'
//! other points (fd counts, pinned placements...) are saved and compared
//! but not shown here.
use crate::catalog::lat_clock as clock;
use crate::catalog::lat_poll as poll;
use crate::catalog::lat_spawn as spawn;
use crate::catalog::lat_uring as uring;
use crate::catalog::lat_vm as vm;
use crate::catalog::lat_wake as wake;
use crate::catalog::{no_notes, Column, Source, Table, Unit};

pub static MODERN: Table = Table {
    key: "modern",
    title: "Modern kernel paths, clocks, polling and memory - times in microseconds - smaller is better",
    unit: Unit::Micros,
    notes: no_notes,
    columns: &[
        Column::new("clk", "vdso", 4, Source::Metric(&clock::VDSO)),
        Column::new("clk", "sysc", 4, Source::Metric(&clock::SYSCALL)),
        Column::new("clk", "coar", 4, Source::Metric(&clock::COARSE)),
        Column::new("poll", "1000", 4, Source::Metric(&poll::POLL_1000)),
        Column::new("epol", "1000", 4, Source::Metric(&poll::EPOLL_1000)),
        Column::new("epol", "ctl", 4, Source::Metric(&poll::EPOLL_CTL)),
        Column::new("pgft", "4K", 4, Source::Metric(&vm::FAULT_4K)),
        Column::new("thp", "2M", 4, Source::Metric(&vm::THP_2M)),
        Column::new("unmp", "page", 4, Source::Metric(&vm::MUNMAP)),
        Column::new("mprt", "page", 4, Source::Metric(&vm::MPROTECT)),
        Column::new("dntn", "rflt", 4, Source::Metric(&vm::DONTNEED)),
    ],
};

pub static MODERN_PROC: Table = Table {
    key: "modern_proc",
    title: "Modern kernel paths, wake-ups, creation and io_uring - times in microseconds - smaller is better",
    unit: Unit::Micros,
    notes: no_notes,
    columns: &[
        Column::new("evfd", "proc", 4, Source::Metric(&wake::U_EVENTFD)),
        Column::new("futx", "proc", 4, Source::Metric(&wake::U_FUTEX)),
        Column::new("dgrm", "proc", 4, Source::Metric(&wake::U_DGRAM)),
        Column::new("mq", "proc", 4, Source::Metric(&wake::U_MQUEUE)),
        Column::new("futx", "thrd", 4, Source::Metric(&wake::U_FUTEX_THREAD)),
        Column::new("thrd", "spwn", 4, Source::Metric(&spawn::THREAD)),
        Column::new("posx", "spwn", 4, Source::Metric(&spawn::POSIX_SPAWN)),
        Column::new("vfrk", "exec", 4, Source::Metric(&spawn::VFORK_EXEC)),
        Column::new("fork", "256M", 4, Source::Metric(&spawn::FORK_256M)),
        Column::new("urng", "nop", 4, Source::Metric(&uring::NOP)),
        Column::new("urng", "rd4K", 4, Source::Metric(&uring::READ_4K)),
        Column::new("prd", "4K", 4, Source::Metric(&uring::PREAD_4K)),
    ],
};
