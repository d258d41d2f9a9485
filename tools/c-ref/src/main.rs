//! c-ref: the suite's Mem read, Mmap reread and File reread passes against
//! lmbench's loops compiled by the system C compiler (lm_shapes.c), in one
//! process over the same buffer, mapping or cached file, passes alternated
//! (ABAB with the order swapped each round), so both see the same moments
//! of the machine.
//!
//! Run: `cargo run --release --manifest-path tools/c-ref/Cargo.toml -- MODE SIZE [ROUNDS]`
//! - `memrd`: `kernels::frd` (the Mem read column) against C frd over one
//!   page-aligned heap buffer;
//! - `mmap`: `bw::Mapping::sum` (Mmap reread) against C bread over one
//!   mapping of a cached scratch file;
//! - `reread`: `bw::read_sum` (File reread: read(2) in 64 KB chunks) against
//!   the same reads summed by C bread;
//! - `memwr`: `kernels::fwr` (the Mem write column) against C fwr over one
//!   page-aligned heap buffer;
//! - `aa`, `aa-mmap`: C frd against itself over a heap buffer, and C bread
//!   against itself over a mapping: the pairing's own noise here.
//!
//! Prints each side's median MB/s (10^6) and the median of the per-round
//! ratios suite / C. Every pass's sum is checked against the C sum first,
//! so a short read or a skipped block fails instead of timing fast.

use std::hint::black_box;
use std::os::fd::AsRawFd;
use std::time::Instant;

use lmbench_support::bw::{self, kernels};
use lmbench_support::fs::ScratchFile;

extern "C" {
    fn c_frd(p: *const i32, bytes: i64) -> i64;
    fn c_bread(p: *const i64, bytes: i64) -> i64;
    fn c_fwr(p: *mut i32, bytes: i64);
}

// The copy is checked, not timed: only the tests call it.
#[cfg(test)]
extern "C" {
    fn c_fcp(s: *const i32, d: *mut i32, bytes: i64);
}

/// C frd over `words` (whole 512-byte blocks).
fn frd_c(words: &[u64]) -> u64 {
    // SAFETY: reads only inside the slice (whole blocks of its length).
    unsafe { c_frd(words.as_ptr().cast(), (words.len() * 8) as i64) as u64 }
}

/// C fwr over `buf` (whole 512-byte blocks); 0, so a write pass pairs as
/// a sum does (its bytes are checked by the tests, not here).
fn fwr_c(buf: &mut kernels::Buf) -> u64 {
    let bytes = buf.len() as i64;
    // SAFETY: writes only inside the buffer (whole blocks of its length).
    unsafe { c_fwr(buf.as_u32_mut().as_mut_ptr().cast(), bytes) };
    0
}

/// C bread over `words` (whole 1 KB blocks).
fn bread_c(words: &[u64]) -> u64 {
    // SAFETY: as frd_c.
    unsafe { c_bread(words.as_ptr().cast(), (words.len() * 8) as i64) as u64 }
}

/// The suite's scratch file of `size` bytes (`fs::ScratchFile`, as the
/// reread benches write theirs: removed on drop, also when a check
/// panics), opened for reading and read once, so its pages are cached.
struct Scratch {
    file: std::fs::File,
    _dir: ScratchFile,
}

impl Scratch {
    fn new(size: usize) -> Scratch {
        let dir = ScratchFile::new(size).expect("c-ref: scratch file");
        let file = std::fs::File::open(dir.path()).expect("c-ref: open scratch file");
        let mut buf = kernels::Buf::new(bw::XFER, 0).expect("c-ref: buffer");
        bw::read_sum(file.as_raw_fd(), &mut buf, size).expect("c-ref: first read");
        Scratch { file, _dir: dir }
    }
}

/// C bread over one read(2) pass of `size` bytes in 64 KB chunks: File
/// reread as lmbench sums it.
fn reread_c(fd: i32, buf: &mut kernels::Buf, size: usize) -> u64 {
    bw::rewind(fd).expect("c-ref: rewind");
    let (mut total, mut sum) = (0, 0u64);
    while total < size {
        let want = buf.len().min(size - total);
        let n =
            lmbench_support::sys::read(fd, &mut buf.as_bytes_mut()[..want]).expect("c-ref: read");
        assert!(
            n > 0 && n.is_multiple_of(1024),
            "c-ref: read returned {n} at {total}"
        );
        sum = sum.wrapping_add(bread_c(&buf.as_u64()[..n / 8]));
        total += n;
    }
    sum
}

/// The suite's File reread pass over the same file.
fn reread_suite(fd: i32, buf: &mut kernels::Buf, size: usize) -> u64 {
    bw::rewind(fd)
        .and_then(|_| bw::read_sum(fd, buf, size))
        .expect("c-ref: suite reread")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// `rounds` rounds of one pass of each side, the order swapped each
/// round; prints medians and the median per-round ratio suite / C.
fn pair(
    name: &str,
    size: usize,
    rounds: usize,
    mut c: impl FnMut() -> u64,
    mut suite: impl FnMut() -> u64,
) {
    assert_eq!(
        suite(),
        c(),
        "c-ref {name}: the suite's sum differs from C's"
    );
    let (mut mc, mut ms, mut ratio) = (vec![], vec![], vec![]);
    for round in 0..rounds {
        let mut mbs = [0.0; 2];
        for k in 0..2 {
            let side = (round + k) % 2;
            let start = Instant::now();
            black_box(if side == 0 { c() } else { suite() });
            mbs[side] = size as f64 / start.elapsed().as_secs_f64() / 1e6;
        }
        mc.push(mbs[0]);
        ms.push(mbs[1]);
        ratio.push(mbs[1] / mbs[0]);
    }
    println!(
        "{name} {}: C {:.0} MB/s, suite {:.0} MB/s (medians of {rounds}); suite / C paired median {:.3}",
        lmbench_support::size::name(size as u64),
        median(mc),
        median(ms),
        median(ratio)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage =
        "usage: c-ref memrd|memwr|mmap|reread|aa|aa-mmap SIZE [ROUNDS]   (SIZE like 128m, a multiple of 1k)";
    let (Some(mode), Some(size)) = (args.first(), args.get(1).and_then(|s| bw::parse_size(s)))
    else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let rounds = match args.get(2).map(|r| r.parse::<usize>()) {
        None => 11,
        Some(Ok(r)) if r > 0 => r,
        Some(_) => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    if size == 0 || !size.is_multiple_of(1024) {
        eprintln!("{usage}");
        std::process::exit(2);
    }
    match mode.as_str() {
        "memrd" | "aa" => {
            let buf = kernels::Buf::new(size, 1).expect("c-ref: buffer");
            let words = buf.as_u64();
            if mode == "aa" {
                pair(
                    "C frd / C frd",
                    size,
                    rounds,
                    || frd_c(words),
                    || frd_c(words),
                );
            } else {
                pair(
                    "Mem read (frd)",
                    size,
                    rounds,
                    || frd_c(words),
                    || kernels::frd(words),
                );
            }
        }
        "memwr" => {
            // One buffer for both sides, behind a RefCell as each side
            // borrows it mutably in its own closure.
            let buf = std::cell::RefCell::new(kernels::Buf::new(size, 1).expect("c-ref: buffer"));
            pair(
                "Mem write (fwr)",
                size,
                rounds,
                || fwr_c(&mut buf.borrow_mut()),
                || {
                    kernels::fwr(buf.borrow_mut().as_u32_mut());
                    0
                },
            );
        }
        "mmap" | "aa-mmap" => {
            let scratch = Scratch::new(size);
            let map = bw::Mapping::new(scratch.file.as_raw_fd(), size).expect("c-ref: mmap");
            let words = map.as_u64();
            if mode == "aa-mmap" {
                pair(
                    "C bread / C bread, mapped",
                    size,
                    rounds,
                    || bread_c(words),
                    || bread_c(words),
                );
            } else {
                pair("Mmap reread", size, rounds, || bread_c(words), || map.sum());
            }
        }
        "reread" => {
            let scratch = Scratch::new(size);
            let fd = scratch.file.as_raw_fd();
            let mut cbuf = kernels::Buf::new(bw::XFER, 0).expect("c-ref: buffer");
            let mut sbuf = kernels::Buf::new(bw::XFER, 0).expect("c-ref: buffer");
            pair(
                "File reread",
                size,
                rounds,
                || reread_c(fd, &mut cbuf, size),
                || reread_suite(fd, &mut sbuf, size),
            );
        }
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The suite's sums equal the C loops' over the same bytes (a
    /// patterned buffer, the suite's scratch file; whole blocks), so both
    /// sides do the same work.
    #[test]
    fn suite_sums_equal_lmbench_sums_in_c() {
        let size = 1 << 20;
        let mut buf = kernels::Buf::new(size, 0).unwrap();
        for (i, w) in buf.as_u64_mut().iter_mut().enumerate() {
            *w = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        assert_eq!(kernels::frd(buf.as_u64()), frd_c(buf.as_u64()));
        assert_eq!(bw::sum_words(buf.as_u64()), bread_c(buf.as_u64()));

        let scratch = Scratch::new(size);
        let fd = scratch.file.as_raw_fd();
        let map = bw::Mapping::new(fd, size).unwrap();
        assert_eq!(map.sum(), bread_c(map.as_u64()));
        let mut a = kernels::Buf::new(bw::XFER, 0).unwrap();
        let mut b = kernels::Buf::new(bw::XFER, 0).unwrap();
        assert_eq!(reread_suite(fd, &mut a, size), reread_c(fd, &mut b, size));
        let path = scratch._dir.path().to_path_buf();
        drop(scratch);
        assert!(!path.exists());
    }

    /// The suite's Mem write and Bcopy (hand) passes leave the bytes the
    /// C loops leave (whole blocks), so both sides store the same thing.
    #[test]
    fn suite_stores_equal_lmbench_stores_in_c() {
        let size = 1 << 20;
        let patterned = || {
            let mut b = kernels::Buf::new(size, 0).unwrap();
            for (i, w) in b.as_u64_mut().iter_mut().enumerate() {
                *w = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            }
            b
        };
        let (mut ours, mut c) = (patterned(), patterned());
        kernels::fwr(ours.as_u32_mut());
        // SAFETY: writes only inside the buffer (whole blocks of its size).
        unsafe { c_fwr(c.as_u32_mut().as_mut_ptr().cast(), size as i64) };
        assert_eq!(ours.as_bytes(), c.as_bytes());

        let src = patterned();
        let (mut ours, mut c) = (
            kernels::Buf::new(size, 0).unwrap(),
            kernels::Buf::new(size, 0).unwrap(),
        );
        kernels::fcp(src.as_u32(), ours.as_u32_mut());
        // SAFETY: reads and writes only inside two distinct buffers of
        // `size` bytes.
        unsafe {
            c_fcp(
                src.as_u32().as_ptr().cast(),
                c.as_u32_mut().as_mut_ptr().cast(),
                size as i64,
            )
        };
        assert_eq!(ours.as_bytes(), c.as_bytes());
        assert_eq!(ours.as_bytes(), src.as_bytes());
    }
}
