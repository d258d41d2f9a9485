//! lat_vm (beyond lmbench): the anonymous-memory paths of the kernel's
//! memory manager, one operation at a time, in a single-threaded process
//! (so no TLB shoot-down to other CPUs is ever needed).
use super::{Metric, Program, Unit::Micros};

pub static FAULT_4K: Metric = Metric::median(
    "lat_vm/fault_4k",
    Micros,
    "one write to an untouched page of a private anonymous mapping (MADV_NOHUGEPAGE): a minor fault that allocates and zeroes one 4 KiB page",
);
pub static THP_2M: Metric = Metric::median(
    "lat_vm/thp_2m",
    Micros,
    "one write to an untouched 2 MiB-aligned extent of a MADV_HUGEPAGE mapping: a fault that allocates and zeroes one 2 MiB transparent huge page",
);
pub static MUNMAP: Metric = Metric::median(
    "lat_vm/munmap",
    Micros,
    "munmap(2) of one touched 4 KiB page at the start of a mapping (zap, free, local TLB flush)",
);
pub static MPROTECT: Metric = Metric::median(
    "lat_vm/mprotect",
    Micros,
    "mprotect(2) of a touched one-page mapping, alternately read-only and read-write",
);
pub static DONTNEED: Metric = Metric::median(
    "lat_vm/dontneed",
    Micros,
    "madvise(MADV_DONTNEED) of a touched one-page mapping, then one write that faults a fresh zeroed page back in",
);

pub static PROGRAM: Program = Program {
    name: "lat_vm",
    about: "beyond lmbench: anonymous page fault, 2 MiB THP fault, munmap, mprotect, MADV_DONTNEED+refault",
    metrics: &[&FAULT_4K, &THP_2M, &MUNMAP, &MPROTECT, &DONTNEED],
};
