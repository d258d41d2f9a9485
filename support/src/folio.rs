//! How many pages one page fault maps, as measured: the machine facts
//! that say what a "page fault" is on this kernel. Large folios in the
//! page cache (ext4 since Linux 6.16, xfs, btrfs, tmpfs `huge=`), fault-
//! around, anonymous mTHP and THP `always` all map more than one base page
//! per fault, so lat_pagefault's per-page figures and `faults_per_page`
//! move with them across an upgrade even where no fault got slower. A
//! comparison shows these facts beside the figures they explain.
//!
//! Both are sequential first-touch passes over a fresh mapping of 8 MB
//! (lat_pagefault's smallest file), counting this thread's faults
//! (getrusage, minor + major: see `vm::faults`):
//! - file: a scratch file in `LMBENCH_FSDIR`, written as lmbench writes
//!   its $FILE (8 KiB writes: how a file is written decides its folios),
//!   mapped read-only and shared, one byte read per page;
//! - anonymous: a private mapping aligned to 2 MB (so a PMD-sized THP
//!   can map it), one byte written per page.
//!
//! Reported as pages per fault, rounded to the nearest power of two
//! (folios and fault-around windows are powers of two; a stray fault
//! elsewhere in the thread must not read as a different kernel).

use std::io;

use crate::vm;

/// Bytes of each probe's mapping.
const PROBE_BYTES: usize = 8 << 20;

/// The facts: the base page size, and pages per fault of the two probes
/// (absent where a probe cannot run, e.g. an unwritable `LMBENCH_FSDIR`).
pub fn facts() -> Vec<(&'static str, Option<String>)> {
    vec![
        ("page_size", Some(vm::page_size().to_string())),
        (
            "fsdir_pages_per_fault",
            file_pages_per_fault().ok().map(|n| n.to_string()),
        ),
        (
            "anon_pages_per_fault",
            anon_pages_per_fault().ok().map(|n| n.to_string()),
        ),
    ]
}

/// Pages per fault of a sequential read pass over a fresh shared mapping
/// of a file just written in `LMBENCH_FSDIR` (see the module doc).
pub fn file_pages_per_fault() -> io::Result<u64> {
    use std::os::fd::AsRawFd;
    let file = crate::fs::ScratchFile::new(PROBE_BYTES)?;
    let f = std::fs::File::open(file.path())?;
    let page = vm::page_size();
    let p = vm::map(
        PROBE_BYTES,
        libc::PROT_READ,
        libc::MAP_SHARED,
        f.as_raw_fd(),
    )?;
    let before = vm::faults();
    for off in (0..PROBE_BYTES).step_by(page) {
        // SAFETY: off < PROBE_BYTES, inside the readable mapping.
        std::hint::black_box(unsafe { p.add(off).read_volatile() });
    }
    let after = vm::faults();
    // SAFETY: our mapping; no reference into it survives.
    unsafe { vm::unmap(p, PROBE_BYTES) }?;
    Ok(pages_per_fault(PROBE_BYTES / page, after? - before?))
}

/// Pages per fault of a sequential write pass over a fresh private
/// anonymous mapping aligned to 2 MB (see the module doc).
pub fn anon_pages_per_fault() -> io::Result<u64> {
    let region = vm::Region::anon(PROBE_BYTES, 2 << 20)?;
    let page = vm::page_size();
    let before = vm::faults()?;
    region.touch_every(page, PROBE_BYTES / page);
    let after = vm::faults()?;
    Ok(pages_per_fault(PROBE_BYTES / page, after - before))
}

/// `pages / faults` rounded to the nearest power of two, at least 1 and
/// at most `pages` (no fault at all: every page was already mapped).
pub fn pages_per_fault(pages: usize, faults: u64) -> u64 {
    let pages = pages.max(1) as u64;
    let ratio = pages as f64 / faults.max(1) as f64;
    let nearest = 1u64 << ratio.max(1.0).log2().round() as u32;
    nearest.min(pages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_to_the_nearest_power_of_two() {
        assert_eq!(pages_per_fault(2048, 2048), 1);
        assert_eq!(pages_per_fault(2048, 128), 16);
        // Stray faults from elsewhere in the thread do not halve it.
        assert_eq!(pages_per_fault(2048, 131), 16);
        assert_eq!(pages_per_fault(2048, 4), 512);
        // Retried faults (counted twice) stay one page a fault.
        assert_eq!(pages_per_fault(2048, 4096), 1);
        assert_eq!(pages_per_fault(2048, 0), 2048);
    }

    /// On any kernel a fault maps at least one page and at most the
    /// mapping; the probes clean up after themselves (the scratch file is
    /// removed on drop).
    #[cfg(target_os = "linux")]
    #[test]
    fn the_probes_measure_on_this_machine() {
        let pages = (PROBE_BYTES / vm::page_size()) as u64;
        for n in [
            file_pages_per_fault().expect("file probe"),
            anon_pages_per_fault().expect("anonymous probe"),
        ] {
            assert!(n.is_power_of_two() && (1..=pages).contains(&n), "{n}");
        }
    }
}
