//! lat_pagefault: minor faults on the pages of a cached file. Each touch
//! metric has a remap twin with the same pass structure (iteration = one
//! touched page, the same pages per mapping) minus the touches, so
//! "touch minus remap" is the fault cost alone.
use super::{Metric, Program, Unit::Count, Unit::Micros};

pub static PAGE: Metric = Metric::median(
    "lat_pagefault/page",
    Micros,
    "per page of a cached file of the memory bandwidth top size, lmbench's $FILE (written in 8 KiB blocks): one byte read, pages in random order, from a fresh read-only mapping, plus the page's share of that mmap + munmap (fault-around on: amortised)",
);
pub static PAGE_REMAP: Metric = Metric::median(
    "lat_pagefault/page_remap",
    Micros,
    "per page of the same file: its share of the mmap + munmap that `page` pays, no page touched (subtracted from page)",
);
pub static FAULT: Metric = Metric::median(
    "lat_pagefault/fault",
    Micros,
    "per fault: madvise(MADV_RANDOM) on a fresh mapping, one byte read per fault-around window (measured at setup), windows in random order, plus the touch's share of mmap + madvise + munmap",
);
pub static FAULT_REMAP: Metric = Metric::median(
    "lat_pagefault/fault_remap",
    Micros,
    "per touch of `fault`: its share of the mmap + madvise + munmap, no page touched (subtracted from fault)",
);

pub static PER_FAULT: Metric = Metric::median(
    "lat_pagefault/per_fault",
    Micros,
    "per minor fault actually taken: `page` passes minus the same number of `page_remap` passes, in the same timed call, divided by the faults counted (getrusage ru_minflt + ru_majflt, a retried fault counts as major) around the touching passes",
);

pub static FAULTS_PER_PAGE: Metric = Metric::median(
    "lat_pagefault/faults_per_page",
    Count,
    "a ratio, not a time: faults counted (getrusage minor + major) around one `page` pass, divided by the pages it touched; 1/16 where fault-around maps 16 pages per fault, less where large folios map more",
);

pub static PROGRAM: Program = Program {
    name: "lat_pagefault",
    about: "minor page faults on a cached file: per page (fault-around amortised) and per fault",
    metrics: &[
        &PAGE,
        &PAGE_REMAP,
        &FAULT,
        &FAULT_REMAP,
        &PER_FAULT,
        &FAULTS_PER_PAGE,
    ],
};
