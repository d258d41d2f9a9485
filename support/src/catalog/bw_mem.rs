//! bw_mem: memory bandwidth of plain loops and of libc's memcpy/memset, at
//! sizes doubling from 4 KB to 512 MB.
//!
//! The catalog holds every size the sweep can reach on any machine; a given
//! machine runs the sizes up to min(4 x its last-level cache, 512 MB) (half
//! that for the copying modes, whose parameter is the size of each of the
//! two buffers, as lmbench's). The summary takes each mode's largest size
//! present in a run (see `tables::comm_bw`).
use super::{Metric, Program, Unit::MBps};

/// Every size of the sweep, as it appears in ids, smallest first.
pub const SIZES: &[&str] = &[
    "4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k", "1m", "2m", "4m", "8m", "16m", "32m",
    "64m", "128m", "256m", "512m",
];

/// The modes (Criterion function ids), in catalog order.
pub const MODES: &[&str] = &[
    "rd", "wr", "rdwr", "cp", "frd", "fwr", "fcp", "bzero", "bcopy",
];

/// The modes that copy from one buffer into a second one of the same size.
pub fn is_copy(mode: &str) -> bool {
    matches!(mode, "cp" | "fcp" | "bcopy")
}

const RD: &str = "one pass summing one 4-byte int per 16 bytes (scalar volatile loads)";
const WR: &str = "one pass storing one 4-byte int per 16 bytes (scalar volatile stores)";
const RDWR: &str = "one pass loading and storing one 4-byte int per 16 bytes";
const CP: &str = "one pass copying one 4-byte int per 16 bytes to a second buffer";
const FRD: &str = "one pass summing every 8-byte word (scalar volatile loads)";
const FWR: &str = "one pass storing every 8-byte word (scalar volatile stores)";
const FCP: &str = "one pass copying every 8-byte word to a second buffer (scalar)";
const BZERO: &str = "libc memset(0) of the buffer";
const BCOPY: &str = "libc memcpy of the buffer to a second buffer of the same size";

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
            "16m", "32m", "64m", "128m", "256m", "512m"
        ])
    };
}

pub static PROGRAM: Program = Program {
    name: "bw_mem",
    about:
        "memory bandwidth: plain loops (rd wr rdwr cp frd fwr fcp) and libc (bzero bcopy) by size",
    metrics: grid!([
        ("rd", RD),
        ("wr", WR),
        ("rdwr", RDWR),
        ("cp", CP),
        ("frd", FRD),
        ("fwr", FWR),
        ("fcp", FCP),
        ("bzero", BZERO),
        ("bcopy", BCOPY)
    ]),
};

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
