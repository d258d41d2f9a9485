//! bw_file_rd: rereading a cached file with read(2).
//!
//! Sizes: lmbench-like fixed points ([`FIXED`]) and the machine's memory
//! bandwidth top size (`bw_mem::top_size`), so the summary's File and Mmap
//! reread cells read as much as its Mem read cell. The catalog holds every
//! size the top size can be on any machine; a run measures [`runs_at`].
use super::{Metric, Program, Unit::MBps};

/// The sizes every machine measures (lmbench's usual reread points).
pub const FIXED: &[&str] = &["512k", "8m", "64m"];

/// Whether a reread program (bw_file_rd, bw_mmap_rd) measures size `id`
/// on a machine whose memory bandwidth top size is `top` bytes.
pub fn runs_at(id: &str, top: u64) -> bool {
    FIXED.contains(&id) || crate::size::parse(id).ok() == Some(top)
}

/// One reread program: its two mode words, spelled once (the constants
/// of its `mode` module and its metric ids come from them), times the
/// sizes from 512k to 2g (`bw_mem::SIZES` from 512k on: every size the
/// top size can be).
macro_rules! reread_program {
    ($prog:literal, $about:expr, $n1:ident = $m1:tt: $d1:expr, $n2:ident = $m2:tt: $d2:expr) => {
        $crate::catalog::bw_file_rd::reread_program!(@ $prog, $about, $n1 = $m1: $d1, $n2 = $m2: $d2, [
            "512k", "1m", "2m", "4m", "8m", "16m", "32m", "64m", "128m", "256m", "512m", "1g",
            "2g"
        ]);
    };
    (@ $prog:literal, $about:expr, $n1:ident = $m1:tt: $d1:expr, $n2:ident = $m2:tt: $d2:expr, [$($s:literal),*]) => {
        /// The modes' function words (Criterion function ids).
        pub mod mode {
            pub const $n1: &str = $m1;
            pub const $n2: &str = $m2;
        }

        pub static PROGRAM: Program = Program {
            name: $prog,
            about: $about,
            metrics: &[
                $(&Metric::median(concat!($prog, "/", $m1, "/", $s), MBps, $d1),)*
                $(&Metric::median(concat!($prog, "/", $m2, "/", $s), MBps, $d2),)*
            ],
        };
    };
}
pub(crate) use reread_program;

const IO_ONLY_TIMED: &str =
    "lseek(2) to 0, read(2) the first S bytes of a cached file in 64 KB chunks, summing every 8-byte word; fd opened once";
const OPEN2CLOSE_TIMED: &str =
    "open(2), read(2) the first S bytes of a cached file in 64 KB chunks summing every 8-byte word, close(2)";

reread_program!(
    "bw_file_rd",
    "rereading a cached file with read(2) (io_only) and with open/close (open2close)",
    IO_ONLY = "io_only": IO_ONLY_TIMED,
    OPEN2CLOSE = "open2close": OPEN2CLOSE_TIMED
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_top_size_from_512k_is_in_the_catalog() {
        let sizes = &super::super::bw_mem::SIZES;
        let from = sizes.iter().position(|s| *s == "512k").unwrap();
        for s in &sizes[from..] {
            for prog in [&PROGRAM, &super::super::bw_mmap_rd::PROGRAM] {
                let n = prog
                    .metrics
                    .iter()
                    .filter(|m| m.function_and_parameter().1 == Some(s))
                    .count();
                assert_eq!(n, 2, "{} at {s}", prog.name);
            }
        }
        assert!(runs_at("64m", 128 << 20) && runs_at("128m", 128 << 20));
        assert!(!runs_at("256m", 128 << 20) && !runs_at("1m", 128 << 20));
    }
}
