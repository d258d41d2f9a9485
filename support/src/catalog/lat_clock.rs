//! lat_clock (beyond lmbench): reading the monotonic clock. The vDSO and
//! raw-syscall figures side by side show whether this machine's clocksource
//! lets user space read the time (machine fact `clocksource`): where it
//! cannot (some hypervisors' clocks), the vDSO falls back to the system
//! call and the two figures meet.
use super::{Metric, Program, Unit::Micros};

pub static VDSO: Metric = Metric::median(
    "lat_clock/vdso",
    Micros,
    "one clock_gettime(CLOCK_MONOTONIC) through libc, answered by the vDSO in user space when the clocksource allows",
);
pub static SYSCALL: Metric = Metric::median(
    "lat_clock/syscall",
    Micros,
    "one raw syscall(SYS_clock_gettime, CLOCK_MONOTONIC): always enters the kernel",
);
pub static COARSE: Metric = Metric::median(
    "lat_clock/coarse",
    Micros,
    "one clock_gettime(CLOCK_MONOTONIC_COARSE) through libc: the last tick's time from the vDSO, no clocksource read",
);

pub static PROGRAM: Program = Program {
    name: "lat_clock",
    about: "beyond lmbench: the monotonic clock through the vDSO, as a raw system call, and coarse",
    metrics: &[&VDSO, &SYSCALL, &COARSE],
};
