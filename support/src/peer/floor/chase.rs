//! The memory floors of `lmbench-peer floor`: a dependent pointer chase
//! over lat_mem_rd's random chains, as a plain loop in this small
//! process, to judge the bench's chains past the caches against.
//!
//! Independent of the bench's code: the chain orders come from this
//! file's own shuffle (not `chase::Buffer`'s), the buffer is a `Vec`, and
//! the loop is this file's (unrolled by 100 as lmbench's: see
//! [`Chase::run`]).
//! What is the same on purpose, because it is the method and not the
//! harness: the shapes (every line once with consecutive loads on
//! different pages; one line per page; every line of a page before the
//! next), the pages first touched in address order (which physical pages
//! a process gets is part of a memory figure: thrash 1g read 180-223 ns
//! with its pages first touched in the chain's random order against
//! 226-246 in address order), the warm-up (one checked lap, then three
//! more of at most 1M loads each), and the estimator: each request times
//! its loads in chunks of [`CHUNK`] and answers the fastest chunk's rate
//! times the loads, as `lat_mem_rd` does, so the two figures differ only
//! by chain code and process.
//!
//! `examples/mem_ref.rs` (bare references for the memory columns) uses
//! the same orders.

use std::io;
use std::time::Instant;

pub const PAGE: usize = 4096;
pub const LINE: usize = 64;
/// Loads per timed chunk: lat_mem_rd's.
pub const CHUNK: u64 = 16 << 10;

/// A Fisher-Yates shuffle of 0..n driven by xorshift64* from seed `s`.
pub fn shuffle(n: usize, mut s: u64) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        v.swap(i, (s % (i as u64 + 1)) as usize);
    }
    v
}

/// Word indices of the slots of chain `shape` over `size` bytes, in
/// visiting order: `thrash` (every line; the lines' order is random, and
/// for each line offset every page in random page order, so consecutive
/// loads are on different pages), `page` (one line per page, staggered),
/// `inpage` (pages in random order, each page's lines in random order).
pub fn order(shape: &str, size: usize) -> io::Result<Vec<usize>> {
    if size < 2 * PAGE || !size.is_multiple_of(PAGE) {
        return Err(io::Error::other(format!(
            "chase size {size}: want whole pages, at least two"
        )));
    }
    let (pages, lines) = (size / PAGE, PAGE / LINE);
    let words = |p: usize, l: usize| (p * PAGE + l * LINE) / 8;
    Ok(match shape {
        "thrash" => {
            let po = shuffle(pages, 11);
            shuffle(lines, 13)
                .into_iter()
                .flat_map(|l| po.iter().map(move |&p| words(p, l)))
                .collect()
        }
        "page" => shuffle(pages, 17)
            .into_iter()
            .map(|p| words(p, p % lines))
            .collect(),
        "inpage" => shuffle(pages, 19)
            .into_iter()
            .flat_map(|p| {
                shuffle(lines, 23 + p as u64)
                    .into_iter()
                    .map(move |l| words(p, l))
            })
            .collect(),
        other => {
            return Err(io::Error::other(format!(
                "unknown chase {other:?} (thrash, page, inpage)"
            )))
        }
    })
}

/// `words` zeroed words whose pages are first touched in address order,
/// as the bench's buffer (a page-aligned `alloc_zeroed`, whose zeroes are
/// written from the start). Left to calloc, the pages would be first
/// touched while the chain is linked, in the chain's random order.
pub fn touched_in_order(words: usize) -> Vec<usize> {
    let mut buf = vec![0usize; words];
    for w in buf.iter_mut().step_by(PAGE / 8) {
        // SAFETY: w is a valid, aligned element of buf.
        unsafe { std::ptr::write_volatile(w, 0) };
    }
    buf
}

/// One load of a linked chain: the slot holds the next slot's address.
#[inline(always)]
fn hop(p: *const usize) -> *const usize {
    // SAFETY: callers only pass addresses of linked slots of a live
    // buffer (see `Chase`), which hold addresses of linked slots.
    unsafe { std::ptr::read_volatile(p) as *const usize }
}

/// A linked chain in its own buffer, and where the chase stands.
pub struct Chase {
    shape: String,
    size: usize,
    buf: Vec<usize>,
    at: *const usize,
    len: usize,
}

impl Chase {
    /// Links chain `shape` over the first `size` bytes of a buffer of
    /// `size` (pages touched in order), walks one lap checking it comes
    /// back to its start, then three more laps of at most 1M loads.
    pub fn build(shape: &str, size: usize) -> io::Result<Chase> {
        let order = order(shape, size)?;
        let mut buf = touched_in_order(size / 8);
        let base = buf.as_mut_ptr() as usize;
        for w in order.windows(2) {
            buf[w[0]] = base + 8 * w[1];
        }
        let (first, last) = (order[0], order[order.len() - 1]);
        buf[last] = base + 8 * first;
        let start = (base + 8 * first) as *const usize;
        let mut c = Chase {
            shape: shape.to_string(),
            size,
            buf,
            at: start,
            len: order.len(),
        };
        drop(order);
        c.run(c.len as u64);
        if c.at != start {
            return Err(io::Error::other(format!(
                "chase {shape} {size}: the chain is not one cycle"
            )));
        }
        c.run(3 * (c.len as u64).min(1 << 20));
        Ok(c)
    }

    pub fn is(&self, shape: &str, size: usize) -> bool {
        self.shape == shape && self.size == size
    }

    /// The chain's loads per lap.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `n` dependent loads from where the chase stands, in blocks of 100
    /// loads that the compiler unrolls, as lmbench's loop (and the bench's)
    /// is. Not one load instruction in a loop: a prefetcher that learns
    /// per instruction which lines of a page follow the first (a 2-vCPU
    /// AMD EPYC guest's does) then fetches the rest of each page of the
    /// inpage chain ahead, and the plain loop read inpage 16m 1.10-1.21x
    /// faster than the bench, against 0.97-1.01 unrolled (`mem_ref ab`);
    /// thrash and page, one load per page at a time, were alike either way.
    #[inline(never)]
    fn run(&mut self, n: u64) {
        debug_assert!(!self.buf.is_empty());
        let mut p = self.at;
        for _ in 0..n / 100 {
            for _ in 0..100 {
                p = hop(p);
            }
        }
        for _ in 0..n % 100 {
            p = hop(p);
        }
        self.at = std::hint::black_box(p);
    }

    /// `n` loads in chunks of [`CHUNK`], timed one by one: the fastest
    /// chunk's nanoseconds per load times `n` (a trailing partial chunk
    /// counts only when it is the only one).
    pub fn timed(&mut self, n: u64) -> u64 {
        let mut best = f64::INFINITY;
        let mut left = n;
        while left > 0 {
            let k = left.min(CHUNK);
            let t = Instant::now();
            self.run(k);
            let ns = t.elapsed().as_nanos() as f64 / k as f64;
            if k == CHUNK || best.is_infinite() {
                best = best.min(ns);
            }
            left -= k;
        }
        if n == 0 {
            return 0;
        }
        (best * n as f64).round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_chain_visits_each_of_its_slots_once() {
        let size = 16 * PAGE;
        for (shape, slots) in [
            ("thrash", size / LINE),
            ("page", 16),
            ("inpage", size / LINE),
        ] {
            let mut o = order(shape, size).unwrap();
            assert_eq!(o.len(), slots, "{shape}");
            if shape == "thrash" {
                assert!(
                    o.windows(2).all(|w| w[0] * 8 / PAGE != w[1] * 8 / PAGE),
                    "thrash: consecutive loads on one page"
                );
            }
            o.sort_unstable();
            o.dedup();
            assert_eq!(o.len(), slots, "{shape}: a slot twice");
            assert!(
                o.iter().all(|&w| w * 8 < size && (w * 8) % LINE == 0),
                "{shape}"
            );
        }
        assert!(order("thrash", PAGE).is_err());
        assert!(order("spiral", 4 * PAGE).is_err());
    }

    #[test]
    fn a_built_chase_is_one_cycle_and_times_its_loads() {
        let mut c = Chase::build("inpage", 8 * PAGE).unwrap();
        assert_eq!(c.len(), 8 * PAGE / LINE);
        assert!(c.is("inpage", 8 * PAGE) && !c.is("thrash", 8 * PAGE));
        let start = c.at;
        c.run(c.len() as u64);
        assert_eq!(c.at, start, "a lap comes back");
        assert!(c.timed(3 * CHUNK) > 0);
        assert_eq!(c.timed(0), 0);
    }
}
