//! bw_mem: memory bandwidth of plain loops and of libc's memcpy/memset, at
//! sizes doubling from 4 KB to 2 GB.
//!
//! The catalog holds every size the sweep can reach on any machine; a given
//! machine runs the sizes up to its top size ([`top_size`]): the smallest
//! power of two at least 4 x its last-level cache, for every mode (the
//! copying modes' parameter is the size of each of their two buffers). The
//! summary's memory bandwidth columns (Mem read, Mem write, both Bcopy)
//! all take that one size (see `analysis::bandwidth`).
use super::{Metric, Program, Unit::MBps};

/// Every size of the sweep, as it appears in ids, smallest first.
pub const SIZES: &[&str] = &[
    "4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k", "1m", "2m", "4m", "8m", "16m", "32m",
    "64m", "128m", "256m", "512m", "1g", "2g",
];

/// The largest size any machine runs (two buffers of it for the copies).
pub const MAX_TOP: u64 = 2 << 30;

/// The size every memory-bandwidth column of a machine is measured at,
/// and whether it had to be capped: the smallest power of two at least
/// 4 x the last-level cache (`llc`, bytes; lmbench wants the buffers well
/// past the caches), at most [`MAX_TOP`] and at most what leaves half the
/// available memory (`avail`, bytes) free with both copy buffers
/// allocated. Without a known cache: 512 MB, capped the same way.
pub fn top_size(llc: Option<u64>, avail: Option<u64>) -> (u64, bool) {
    let want = llc.map_or(512 << 20, |b| (4 * b).next_power_of_two().max(4096));
    let mut top = want.min(MAX_TOP);
    if let Some(a) = avail {
        // Two buffers of `top` in at most half of what is available.
        while top > 4096 && 4 * top > a {
            top /= 2;
        }
    }
    (top, top < want)
}

/// The modes that copy from one buffer into a second one of the same size.
pub fn is_copy(m: &str) -> bool {
    matches!(m, mode::CP | mode::FCP | mode::BCOPY)
}

const RD_TIMED: &str = "one pass summing one 4-byte int per 16 bytes (scalar volatile loads)";
const WR_TIMED: &str = "one pass storing one 4-byte int per 16 bytes (scalar volatile stores)";
const RDWR_TIMED: &str = "one pass loading and storing one 4-byte int per 16 bytes";
const CP_TIMED: &str = "one pass copying one 4-byte int per 16 bytes to a second buffer";
const FRD_TIMED: &str = "one pass summing every 4-byte int, one chain of 128 adds per 512-byte block (lmbench's compiled frd)";
const FWR_TIMED: &str = "one pass storing 1 into every 4-byte int, each 512-byte block from its top down (lmbench's compiled fwr)";
const FWR_UP_TIMED: &str = "one pass storing every 8-byte word upward (scalar volatile stores; not in lmbench: fwr's bytes in the order store streaming favours)";
const FCP_TIMED: &str = "one pass copying every 4-byte int upward to a second buffer, a 4-byte load and store each (lmbench's compiled fcp)";
const BZERO_TIMED: &str = "libc memset(0) of the buffer";
const BCOPY_TIMED: &str = "libc memcpy of the buffer to a second buffer of the same size";
const BREAD_TIMED: &str = "one pass of the rereads' sum over the buffer: every 8-byte word, one chain of 128 adds per 1 KB block (lmbench's bread; not in lmbench's bw_mem)";
const FRD_HUGE_TIMED: &str = "frd over an anonymous buffer advised MADV_HUGEPAGE, 2 MB aligned (not in lmbench; sizes of 2 MB and up, where the kernel gave huge pages)";

/// Expands (mode, doc) pairs times the sizes into one flat list of metrics.
macro_rules! grid {
    (@acc [$($acc:expr,)*] [] [$($s:literal),*]) => { &[$($acc,)*] };
    (@acc [$($acc:expr,)*] [($mode:literal, $timed:expr) $(, $rest:tt)*] [$($s:literal),*]) => {
        grid!(@acc
            [$($acc,)* $(&Metric::median(concat!("bw_mem/", $mode, "/", $s), MBps, $timed),)*]
            [$($rest),*]
            [$($s),*])
    };
    ([$($modes:tt),*]) => {
        grid!(@acc [] [$($modes),*] [
            "4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k", "1m", "2m", "4m", "8m",
            "16m", "32m", "64m", "128m", "256m", "512m", "1g", "2g"
        ])
    };
}

/// Spells each mode word once: the constants of [`mode`], [`MODES`] and
/// the metric ids all come from this list, so the bench's dispatch and the
/// summary's columns cannot drift from the ids.
macro_rules! modes {
    ($($name:ident = $mode:tt: $timed:expr,)*) => {
        /// The modes' function words (Criterion function ids).
        pub mod mode {
            $(pub const $name: &str = $mode;)*
        }

        /// The modes, in catalog order.
        pub const MODES: &[&str] = &[$($mode),*];

        pub static PROGRAM: Program = Program {
            name: "bw_mem",
            about:
                "memory bandwidth: plain loops (rd wr rdwr cp frd fwr fcp) and libc (bzero bcopy) by size; frd over huge pages (frd_huge), the rereads' sum over the heap (bread) and upward 8-byte stores (fwr_up)",
            metrics: grid!([$(($mode, $timed)),*]),
        };
    };
}

modes! {
    RD = "rd": RD_TIMED,
    WR = "wr": WR_TIMED,
    RDWR = "rdwr": RDWR_TIMED,
    CP = "cp": CP_TIMED,
    FRD = "frd": FRD_TIMED,
    FWR = "fwr": FWR_TIMED,
    FWR_UP = "fwr_up": FWR_UP_TIMED,
    FCP = "fcp": FCP_TIMED,
    BZERO = "bzero": BZERO_TIMED,
    BCOPY = "bcopy": BCOPY_TIMED,
    FRD_HUGE = "frd_huge": FRD_HUGE_TIMED,
    BREAD = "bread": BREAD_TIMED,
}

/// The metric of `mode` at `size` (an id segment such as "64k").
pub fn metric(mode: &str, size: &str) -> Option<&'static Metric> {
    PROGRAM
        .metrics
        .iter()
        .copied()
        .find(|m| m.function_and_parameter() == (mode, Some(size)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_size_is_4x_the_cache_capped_by_memory() {
        const M: u64 = 1 << 20;
        // 32 MB L3: 128 MB, plenty of memory.
        assert_eq!(top_size(Some(32 * M), Some(20 << 30)), (128 * M, false));
        // 300 MB L3: 1.2 GB rounds up to 2 GB.
        assert_eq!(top_size(Some(300 * M), Some(20 << 30)), (2048 * M, false));
        // ... capped by 4 GB available (two 1 GB buffers in half of it).
        assert_eq!(top_size(Some(300 * M), Some(4 << 30)), (1024 * M, true));
        // A huge cache: capped by MAX_TOP.
        assert_eq!(top_size(Some(4 << 30), None), (MAX_TOP, true));
        // Unknown cache: 512 MB.
        assert_eq!(top_size(None, None), (512 * M, false));
        // Every top size is in the sweep.
        for llc in [M, 3 * M, 32 * M, 260 * M] {
            let (t, _) = top_size(Some(llc), None);
            assert!(SIZES.contains(&crate::size::name(t).as_str()));
        }
    }

    #[test]
    fn grid_is_modes_times_sizes() {
        assert_eq!(PROGRAM.metrics.len(), MODES.len() * SIZES.len());
        for mode in MODES {
            for size in SIZES {
                let m = metric(mode, size).unwrap();
                assert_eq!(m.id, format!("bw_mem/{mode}/{size}"));
            }
        }
    }
}
