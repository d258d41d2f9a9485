//! The bandwidth table's figures: the size each column reads at (the
//! largest the run has; a reread at Mem read's size, so the cells compare
//! like for like), and the notes under the table on those sizes, the heap
//! reread and Write up.
use crate::catalog::bw_file_rd::mode::IO_ONLY;
use crate::catalog::bw_mem::mode::{BCOPY, BREAD, FCP, FRD, FRD_HUGE, FWR, FWR_UP};
use crate::catalog::bw_mmap_rd::mode::MMAP_ONLY;
use crate::catalog::{bw_file_rd, bw_mem, bw_mmap_rd, Lookup, Program};
use crate::size::human as human_size;

/// The figure of `function` at the largest size the run has: the sweeps
/// stop at a size that depends on the machine (bw_mem) or the caller, and
/// lmbench's summary shows the largest.
fn largest(run: &dyn Lookup, program: &Program, function: &str) -> Option<f64> {
    largest_at(run, program, function).map(|(_, v)| v)
}

/// [`largest`] with the size (bytes) it was measured at.
fn largest_at(run: &dyn Lookup, program: &Program, function: &str) -> Option<(u64, f64)> {
    program
        .metrics
        .iter()
        .rev()
        .filter(|m| m.function_and_parameter().0 == function)
        .find_map(|m| {
            let size = crate::size::parse(m.function_and_parameter().1?).ok()?;
            Some((size, run.value(m)?))
        })
}

/// Lines printed under the table: the size the memory-bandwidth columns
/// were measured at against the last-level cache (lmbench wants 4x+;
/// bw_mem caps it by the memory available), and the reread file size.
pub fn bw_notes(run: &dyn Lookup) -> Vec<String> {
    let mut notes = Vec::new();
    let sizes: Vec<(&str, u64)> = [
        ("Mem read", FRD),
        ("Mem write", FWR),
        ("Bcopy (libc)", BCOPY),
        ("Bcopy (hand)", FCP),
    ]
    .iter()
    .filter_map(|(name, f)| Some((*name, largest_at(run, &bw_mem::PROGRAM, f)?.0)))
    .collect();
    if let Some(&(_, size)) = sizes.first() {
        let llc = ["cache_l3", "cache_l2"]
            .iter()
            .find_map(|k| run.fact(k)?.trim().parse::<u64>().ok());
        let all_same = sizes.iter().all(|&(_, s)| s == size);
        let what = if all_same {
            format!("Mem read, Mem write and Bcopy at {}", human_size(size))
        } else {
            let each: Vec<String> = sizes
                .iter()
                .map(|(n, s)| format!("{n} at {}", human_size(*s)))
                .collect();
            each.join(", ")
        };
        notes.push(match llc {
            Some(l) if 4 * l > size => format!(
                "{what}: capped, only {:.1}x the {} last-level cache (lmbench wants 4x+; bw_mem caps its buffers by the memory available).",
                size as f64 / l as f64,
                human_size(l)
            ),
            Some(l) => format!(
                "{what} ({:.0}x the {} last-level cache).",
                size as f64 / l as f64,
                human_size(l)
            ),
            None => format!("{what} (last-level cache unknown)."),
        });
    }
    let mem_read = largest_at(run, &bw_mem::PROGRAM, FRD).map(|(s, _)| s);
    let reread: Vec<String> = [
        ("File", &bw_file_rd::PROGRAM, IO_ONLY),
        ("Mmap", &bw_mmap_rd::PROGRAM, MMAP_ONLY),
    ]
    .iter()
    .filter_map(|(n, p, f)| {
        let size = reread_at(run, p, f)?.0;
        let same = if mem_read == Some(size) {
            " (as Mem read)"
        } else {
            ""
        };
        Some(format!("{n} reread at {}{same}", human_size(size)))
    })
    .collect();
    if !reread.is_empty() {
        notes.push(format!("{} (every 8-byte word summed).", reread.join(", ")));
    }
    if let Some((size, _)) = reread_at(run, &bw_mem::PROGRAM, FRD_HUGE) {
        notes.push(format!(
            "THP read (not in lmbench): Mem read's loop over 2M huge pages at {}. Mem read's heap has 4K pages unless THP is always; the gap is TLB reach.",
            human_size(size)
        ));
    }
    notes.extend(heap_reread_notes(run));
    notes.extend(write_up_note(run));
    notes
}

/// What Write up (not in lmbench) is beside Mem write: the same bytes
/// stored in the order and width store streaming favours.
fn write_up_note(run: &dyn Lookup) -> Option<String> {
    let (size, up) = largest_at(run, &bw_mem::PROGRAM, FWR_UP)?;
    let mut note = format!(
        "Write up (not in lmbench): every 8-byte word stored upward at {}",
        human_size(size)
    );
    if let Some((s, fwr)) = largest_at(run, &bw_mem::PROGRAM, FWR) {
        if s == size {
            note.push_str(&format!(", {:.2}x Mem write", up / fwr));
        }
    }
    note.push_str(", whose loop (lmbench's fwr) stores each 512-byte block's 4-byte ints from the top down: the gap is what the store order and width are worth on this CPU.");
    Some(note)
}

/// What the heap reread (the rereads' sum over Mem read's buffer) says of
/// Mem read and of the rereads: the like-for-like check that a reread
/// reads memory no faster than memory can be read.
fn heap_reread_notes(run: &dyn Lookup) -> Vec<String> {
    let Some((size, heap)) = reread_at(run, &bw_mem::PROGRAM, BREAD) else {
        return Vec::new();
    };
    let mut notes = Vec::new();
    let mut first = format!(
        "Heap reread (not in lmbench): the rereads' sum (8-byte longs, one add each) over Mem read's heap at {}",
        human_size(size)
    );
    match largest_at(run, &bw_mem::PROGRAM, FRD) {
        Some((s, frd)) if s == size => first.push_str(&format!(
            ", {:.2}x Mem read, whose loop (lmbench's frd) makes one add per 4-byte int.",
            heap / frd
        )),
        _ => first.push('.'),
    }
    notes.push(first);
    let mut above = Vec::new();
    let mut within = Vec::new();
    for (name, program, function) in [
        ("File", &bw_file_rd::PROGRAM, IO_ONLY),
        ("Mmap", &bw_mmap_rd::PROGRAM, MMAP_ONLY),
    ] {
        let Some((s, v)) = reread_at(run, program, function) else {
            continue;
        };
        if s != size {
            continue;
        }
        let ratio = v / heap;
        if ratio > REREAD_SLACK {
            above.push(format!("{name} reread {ratio:.2}x"));
        } else {
            within.push(format!("{name} reread {ratio:.2}x"));
        }
    }
    if !within.is_empty() {
        notes.push(format!(
            "{} the heap reread: at most memory's own rate with the same loop.",
            within.join(", ")
        ));
    }
    if !above.is_empty() {
        let reporting = run
            .fact("free_page_reporting")
            .filter(|f| f != "off")
            .map(|f| format!("; this guest reports free memory to its host, {f}"))
            .unwrap_or_default();
        notes.push(format!(
            "{} the heap reread: the page cache's memory read faster than the freshly allocated heap in this run (the same loop on both: where the memory lies, on a guest how the host backs it{reporting}), not a reread faster than memory.",
            above.join(", ")
        ));
    }
    notes
}

/// How far a reread may read above the heap reread before the note calls
/// it faster (one sitting's noise between two buffers: the C loop against
/// itself read 0.97-1.02 in sittings on a 2-vCPU Intel Xeon KVM guest).
const REREAD_SLACK: f64 = 1.05;

/// A reread figure at Mem read's size (the memory bandwidth top size, so
/// the cells compare like for like; a reread cannot beat the memory read
/// of the same bytes), else at the largest size the run has (older runs
/// read at most 64M).
fn reread_at(run: &dyn Lookup, program: &Program, function: &str) -> Option<(u64, f64)> {
    let at = largest_at(run, &bw_mem::PROGRAM, FRD).map(|(s, _)| s);
    let same = at.and_then(|size| {
        program.metrics.iter().find_map(|m| {
            let (f, p) = m.function_and_parameter();
            let s = crate::size::parse(p?).ok()?;
            (f == function && s == size).then_some(())?;
            Some((s, run.value(m)?))
        })
    });
    same.or_else(|| largest_at(run, program, function))
}

/// File reread: bw_file_rd's io_only at Mem read's size, else its largest.
pub fn file_reread(run: &dyn Lookup) -> Option<f64> {
    reread_at(run, &bw_file_rd::PROGRAM, IO_ONLY).map(|(_, v)| v)
}
/// Mmap reread: bw_mmap_rd's mmap_only at Mem read's size, else its largest.
pub fn mmap_reread(run: &dyn Lookup) -> Option<f64> {
    reread_at(run, &bw_mmap_rd::PROGRAM, MMAP_ONLY).map(|(_, v)| v)
}
/// Bcopy (libc): bw_mem's bcopy at its largest size. bcopy and fcp sizes
/// are per buffer: their largest is half the largest footprint, lmbench's
/// "half size" for the copies.
pub fn bcopy_libc(run: &dyn Lookup) -> Option<f64> {
    largest(run, &bw_mem::PROGRAM, BCOPY)
}
/// Bcopy (hand): bw_mem's fcp at its largest size.
pub fn bcopy_hand(run: &dyn Lookup) -> Option<f64> {
    largest(run, &bw_mem::PROGRAM, FCP)
}
/// Mem read: bw_mem's frd at its largest size.
pub fn mem_read(run: &dyn Lookup) -> Option<f64> {
    largest(run, &bw_mem::PROGRAM, FRD)
}
/// Mem write: bw_mem's fwr at its largest size.
pub fn mem_write(run: &dyn Lookup) -> Option<f64> {
    largest(run, &bw_mem::PROGRAM, FWR)
}
/// At Mem read's size, as the rereads.
pub fn thp_read(run: &dyn Lookup) -> Option<f64> {
    reread_at(run, &bw_mem::PROGRAM, FRD_HUGE).map(|(_, v)| v)
}
/// Write up: bw_mem's fwr_up at its largest size.
pub fn write_up(run: &dyn Lookup) -> Option<f64> {
    largest(run, &bw_mem::PROGRAM, FWR_UP)
}
/// At Mem read's size, as the rereads.
pub fn heap_reread(run: &dyn Lookup) -> Option<f64> {
    reread_at(run, &bw_mem::PROGRAM, BREAD).map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::catalog::FakeRun as Run;

    #[test]
    fn summary_takes_the_largest_size_present() {
        let run = Run(&[
            ("bw_mem/frd/4k", 1.0),
            ("bw_mem/frd/32m", 2.0),
            ("bw_mem/frd/64m", 3.0),
            ("bw_mem/fwr/4k", 4.0),
            ("bw_file_rd/io_only/8m", 5.0),
            ("bw_file_rd/open2close/64m", 6.0),
        ]);
        assert_eq!(mem_read(&run), Some(3.0));
        assert_eq!(mem_write(&run), Some(4.0));
        assert_eq!(file_reread(&run), Some(5.0));
        assert_eq!(bcopy_libc(&run), None);
        assert_eq!(thp_read(&run), None);
    }

    #[test]
    fn the_copies_read_their_own_largest_size() {
        let run = Run(&[
            ("bw_mem/frd/256m", 1.0),
            ("bw_mem/bcopy/64m", 2.0),
            ("bw_mem/bcopy/128m", 3.0),
            ("bw_mem/fcp/32m", 4.0),
        ]);
        assert_eq!(bcopy_libc(&run), Some(3.0));
        assert_eq!(bcopy_hand(&run), Some(4.0));
        assert_eq!(
            largest_at(&run, &bw_mem::PROGRAM, FCP),
            Some((32 << 20, 4.0))
        );
    }

    #[test]
    fn write_up_sits_at_its_largest_size_beside_mem_write() {
        let run = Run(&[
            ("bw_mem/fwr/128m", 5000.0),
            ("bw_mem/fwr_up/64m", 30000.0),
            ("bw_mem/fwr_up/128m", 20000.0),
        ]);
        assert_eq!(write_up(&run), Some(20000.0));
        let n = bw_notes(&run).join("\n");
        assert!(
            n.contains("Write up (not in lmbench): every 8-byte word stored upward at 128M, 4.00x Mem write, whose loop"),
            "{n}"
        );
        let without = Run(&[("bw_mem/fwr/128m", 1.0)]);
        assert_eq!(write_up(&without), None);
        assert!(!bw_notes(&without).join("\n").contains("Write up"));
    }

    #[test]
    fn thp_read_sits_at_mem_reads_size_with_its_note() {
        let run = Run(&[
            ("bw_mem/frd/128m", 1.0),
            ("bw_mem/frd_huge/64m", 2.0),
            ("bw_mem/frd_huge/128m", 3.0),
        ]);
        assert_eq!(thp_read(&run), Some(3.0));
        let n = bw_notes(&run).join("\n");
        assert!(
            n.contains("THP read (not in lmbench): Mem read's loop over 2M huge pages at 128M"),
            "{n}"
        );
        let without = Run(&[("bw_mem/frd/128m", 1.0)]);
        assert!(!bw_notes(&without).join("\n").contains("THP"));
    }

    #[test]
    fn the_heap_reread_checks_each_reread_like_for_like() {
        // A 2-vCPU Intel Xeon KVM guest, 2 GB, one process (06:28 UTC
        // 2026-12-02): frd 8191, bread over the heap 10260, over the file
        // mapping 12628 MB/s.
        let run = Run(&[
            ("bw_mem/frd/2g", 8191.0),
            ("bw_mem/bread/1g", 9000.0),
            ("bw_mem/bread/2g", 10260.0),
            ("bw_file_rd/io_only/2g", 6555.0),
            ("bw_mmap_rd/mmap_only/2g", 12628.0),
        ]);
        assert_eq!(heap_reread(&run), Some(10260.0));
        let n = bw_notes(&run);
        assert!(
            n.contains(&"Heap reread (not in lmbench): the rereads' sum (8-byte longs, one add each) over Mem read's heap at 2G, 1.25x Mem read, whose loop (lmbench's frd) makes one add per 4-byte int.".to_string()),
            "{n:?}"
        );
        assert!(
            n.contains(
                &"File reread 0.64x the heap reread: at most memory's own rate with the same loop."
                    .to_string()
            ),
            "{n:?}"
        );
        assert!(
            n.iter().any(|l| l.starts_with(
                "Mmap reread 1.23x the heap reread: the page cache's memory read faster"
            )),
            "{n:?}"
        );
        // A guest that reports free memory to its host says so.
        struct Guest(Run);
        impl Lookup for Guest {
            fn value(&self, m: &crate::catalog::Metric) -> Option<f64> {
                self.0.value(m)
            }
            fn fact(&self, key: &str) -> Option<String> {
                (key == "free_page_reporting").then(|| "order 9".to_string())
            }
        }
        let n = bw_notes(&Guest(run)).join("\n");
        assert!(
            n.contains(
                "how the host backs it; this guest reports free memory to its host, order 9)"
            ),
            "{n}"
        );
        // Without the heap reread (older runs): no such notes.
        let old = Run(&[
            ("bw_mem/frd/2g", 8191.0),
            ("bw_mmap_rd/mmap_only/2g", 12628.0),
        ]);
        assert!(!bw_notes(&old).join("\n").contains("heap reread"));
        assert_eq!(heap_reread(&old), None);
    }

    #[test]
    fn reread_cells_take_mem_reads_size() {
        let run = Run(&[
            ("bw_mem/frd/128m", 1.0),
            ("bw_file_rd/io_only/64m", 2.0),
            ("bw_file_rd/io_only/128m", 3.0),
            ("bw_file_rd/io_only/256m", 4.0),
            ("bw_mmap_rd/mmap_only/64m", 5.0),
        ]);
        // At Mem read's size, not the largest present.
        assert_eq!(file_reread(&run), Some(3.0));
        // No reread at that size (an older run): the largest.
        assert_eq!(mmap_reread(&run), Some(5.0));
        let n = bw_notes(&run).join("\n");
        assert!(
            n.contains("File reread at 128M (as Mem read), Mmap reread at 64M"),
            "{n}"
        );
    }

    #[test]
    fn notes_say_the_size_against_the_cache() {
        let run = Run(&[
            ("bw_mem/frd/128m", 1.0),
            ("bw_mem/fwr/128m", 1.0),
            ("bw_mem/bcopy/128m", 1.0),
            ("bw_mem/fcp/128m", 1.0),
            ("bw_file_rd/io_only/64m", 1.0),
        ]);
        let n = bw_notes(&run).join("\n");
        assert!(n.contains("Mem read, Mem write and Bcopy at 128M"), "{n}");
        assert!(n.contains("File reread at 64M"), "{n}");
        let short = Run(&[("bw_mem/frd/512m", 1.0), ("bw_mem/bcopy/256m", 1.0)]);
        let n = bw_notes(&short).join("\n");
        assert!(n.contains("Mem read at 512M, Bcopy (libc) at 256M"), "{n}");

        /// A run with a 300 MB L3 and Mem read at 512 MB.
        struct Big;
        impl Lookup for Big {
            fn value(&self, m: &crate::catalog::Metric) -> Option<f64> {
                (m.id == "bw_mem/frd/512m").then_some(1.0)
            }
            fn fact(&self, key: &str) -> Option<String> {
                (key == "cache_l3").then(|| (300u64 << 20).to_string())
            }
        }
        let n = bw_notes(&Big).join("\n");
        assert!(n.contains("capped, only 1.7x the 300M"), "{n}");
        assert!(bw_notes(&Run(&[])).is_empty());
    }
}
