//! Pointer-chase chains for the memory-latency benches (lat_mem_rd, tlb,
//! par_mem): a page-aligned buffer whose slots each hold the address of the
//! next slot, so `p = *p` is a chain of dependent loads the CPU cannot
//! overlap. Chains are built outside timing; a chase continues where the
//! previous one stopped, so successive samples walk the whole working set
//! instead of its first few lines.
//!
//! Soundness: a [`Buffer`] is zeroed at allocation and only [`Buffer::link`]
//! writes it, always storing the address of another slot written in the same
//! call. Every non-zero word therefore points at a non-zero word inside the
//! buffer, so a chase that starts at a linked slot never leaves it.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::hint::black_box;
use std::ptr::read_volatile;

/// Bytes per page the chains assume (the base page on Linux x86-64/arm64).
pub const PAGE: usize = 4096;
/// Bytes per cache line the random chains stagger by.
pub const LINE: usize = 64;
const WORD: usize = std::mem::size_of::<usize>();

mod loads;
mod orders;

/// A zeroed, page-aligned heap buffer.
pub struct Buffer {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: the buffer owns its allocation; shared access is read-only.
unsafe impl Send for Buffer {}

impl Buffer {
    /// Allocates `bytes` (rounded up to a page) of zeroed memory.
    pub fn new(bytes: usize) -> Result<Buffer, String> {
        let bytes = bytes.max(PAGE).div_ceil(PAGE) * PAGE;
        let layout =
            Layout::from_size_align(bytes, PAGE).map_err(|e| format!("{bytes} bytes: {e}"))?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(format!("out of memory allocating {bytes} bytes"));
        }
        Ok(Buffer { ptr, layout })
    }

    pub fn len(&self) -> usize {
        self.layout.size()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Asks for base (4 KB) pages, so a chain over N pages needs N TLB
    /// entries even where transparent huge pages are on. Best effort.
    pub fn base_pages_only(&self) {
        // A hint on this buffer's own pages: paging policy, never contents.
        #[cfg(target_os = "linux")]
        let _ = crate::vm::advise(self.ptr, self.len(), crate::vm::MmapAdvise::MADV_NOHUGEPAGE);
    }

    /// Links the slots at byte `offsets` (in visiting order) into one cycle:
    /// each holds the address of the next, the last the first's. Errors on
    /// an offset outside the buffer or not word-aligned, or no offset.
    pub fn link(&mut self, offsets: impl IntoIterator<Item = usize>) -> Result<Chain, String> {
        let mut it = offsets.into_iter();
        let first = it.next().ok_or("a chain needs at least one slot")?;
        self.check(first)?;
        let base = self.ptr as usize;
        let words = self.words_mut();
        let (mut prev, mut len) = (first, 1usize);
        for off in it {
            Self::check_in(words.len() * WORD, off)?;
            words[prev / WORD] = base + off;
            prev = off;
            len += 1;
        }
        words[prev / WORD] = base + first;
        Ok(Chain {
            base,
            at: (base + first) as *const usize,
            len,
        })
    }

    fn check(&self, off: usize) -> Result<(), String> {
        Self::check_in(self.len(), off)
    }

    fn check_in(bytes: usize, off: usize) -> Result<(), String> {
        if !off.is_multiple_of(WORD) || off + WORD > bytes {
            return Err(format!(
                "slot offset {off} is outside the {bytes}-byte buffer or unaligned"
            ));
        }
        Ok(())
    }

    /// The buffer as words, for linking (chains hold raw addresses into
    /// it, used only by a chase that borrows the buffer).
    fn words_mut(&mut self) -> &mut [usize] {
        // SAFETY: page aligned, zeroed at allocation (so initialised), the
        // length a whole number of pages; borrowed mutably from self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.cast(), self.len() / WORD) }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

pub use crate::rng::shuffled;

/// A linked cycle inside a [`Buffer`], with the position a chase reached.
pub struct Chain {
    base: usize,
    at: *const usize,
    len: usize,
}

// SAFETY: a Chain is an address into a Buffer; it is only dereferenced
// through `chase`, which borrows that Buffer.
unsafe impl Send for Chain {}

impl Chain {
    /// Slots in the cycle.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The byte offset (in its buffer) of the slot the chain is at.
    pub fn position(&self) -> usize {
        self.at as usize - self.base
    }

    /// lat_mem_rd's warm-up, before any timing: one lap, which must come
    /// back to where it started (else `Err`: the chain is not one cycle),
    /// then three more of at most 1M loads. A chain that nearly fits the
    /// last-level cache (one line per page at 1 GiB is 16 MiB of lines)
    /// read 302-348 ns per load right after one lap, 218-251 after these
    /// laps, against 177-185 from a reference that runs millions of loads;
    /// guess: the cache's replacement adapts to the cyclic pattern over
    /// several laps (page/1g, quick preset, on a 2-vCPU AMD EPYC guest).
    pub fn warm(&mut self, buf: &Buffer) -> Result<(), String> {
        let start = self.position();
        self.chase(buf, self.len as u64);
        if self.position() != start {
            return Err("the chain is not one cycle".into());
        }
        self.chase(buf, 3 * (self.len as u64).min(1 << 20));
        Ok(())
    }

    /// Follows the chain for `loads` dependent loads (in unrolled blocks of
    /// 100, lmbench's shape, in a loop placed so that it never straddles a
    /// page: see `loads`) from where it stopped last.
    ///
    /// Panics if `buf` is not the buffer the chain was linked in.
    #[inline(never)]
    pub fn chase(&mut self, buf: &Buffer, loads: u64) {
        assert_eq!(self.base, buf.ptr as usize, "chain of another buffer");
        let mut p = self.at;
        // SAFETY: `p` is a linked slot of `buf`, which is alive and borrowed;
        // linked slots only point at linked slots (see the module doc).
        unsafe {
            p = loads::hundreds(p, loads / 100).0;
            for _ in 0..loads % 100 {
                p = read_volatile(p) as *const usize;
            }
        }
        self.at = black_box(p);
    }
}

/// Advances each of K chains by `hops` loads, the K loads of a hop
/// independent of each other (memory-level parallelism).
#[inline(never)]
fn chase_par<const K: usize>(chains: &mut [Chain], buf: &Buffer, hops: u64) {
    let mut ps = [std::ptr::null::<usize>(); K];
    for (p, c) in ps.iter_mut().zip(chains.iter()) {
        assert_eq!(c.base, buf.ptr as usize, "chain of another buffer");
        *p = c.at;
    }
    // SAFETY: as in `Chain::chase`, for each chain.
    unsafe {
        for _ in 0..hops {
            for p in ps.iter_mut() {
                *p = read_volatile(*p) as *const usize;
            }
        }
    }
    for (p, c) in black_box(ps).iter().zip(chains.iter_mut()) {
        c.at = *p;
    }
}

/// Advances every chain `hops` loads, interleaved. Supports 1 to 16, 24
/// and 32 chains; panics on others.
pub fn chase_all(chains: &mut [Chain], buf: &Buffer, hops: u64) {
    macro_rules! dispatch {
        ($($k:literal)*) => {
            match chains.len() {
                $($k => chase_par::<$k>(chains, buf, hops),)*
                k => panic!("chase_all supports 1 to 16, 24 and 32 chains, not {k}"),
            }
        };
    }
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 24 32)
}

/// The largest working set of lat_mem_rd's sweep on this machine
/// (`catalog::lat_mem_rd::top_size` of the OS's last-level cache and the
/// memory available): (bytes, capped, the cache it was derived from).
pub fn machine_top_size() -> (u64, bool, Option<u64>) {
    let llc = crate::bw::machine_llc();
    let (top, capped) = crate::catalog::lat_mem_rd::top_size(llc, crate::bw::mem_available());
    (top, capped, llc)
}

/// True when Criterion only lists the benchmarks (`-- --list`): nothing
/// runs, so benches skip building their chains.
pub fn criterion_listing() -> bool {
    std::env::args().any(|a| a == "--list")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Walks the cycle slot by slot, returning the offsets visited until it
    /// comes back to the start (or gives up after `limit`).
    fn walk(c: &mut Chain, buf: &Buffer, limit: usize) -> Vec<usize> {
        let start = c.position();
        let mut seen = vec![start];
        loop {
            c.chase(buf, 1);
            if c.position() == start || seen.len() > limit {
                return seen;
            }
            seen.push(c.position());
        }
    }

    fn assert_one_cycle(seen: &[usize], n: usize) {
        assert_eq!(seen.len(), n, "the cycle must visit every slot once");
        let set: HashSet<_> = seen.iter().collect();
        assert_eq!(set.len(), n, "a slot was visited twice");
    }

    #[test]
    fn stride_chain_is_one_cycle_over_every_slot() {
        let mut buf = Buffer::new(64 << 10).unwrap();
        for stride in [16, 64, 128, 1024] {
            let mut c = buf.stride_chain(32 << 10, stride).unwrap();
            let n = (32 << 10) / stride;
            assert_eq!(c.len(), n);
            let seen = walk(&mut c, &buf, n + 1);
            assert_one_cycle(&seen, n);
            assert!(seen.iter().all(|o| o % stride == 0));
        }
    }

    #[test]
    fn random_chain_is_one_cycle_one_slot_per_page() {
        let n = 300;
        let mut buf = Buffer::new(n * PAGE).unwrap();
        let mut c = buf.random_chain(n, PAGE, true, 7).unwrap();
        let seen = walk(&mut c, &buf, n + 1);
        assert_one_cycle(&seen, n);
        let pages: HashSet<_> = seen.iter().map(|o| o / PAGE).collect();
        assert_eq!(pages.len(), n, "one slot in every page");
        let lines: HashSet<_> = seen.iter().map(|o| o % PAGE).collect();
        assert!(lines.len() > 1, "slots are staggered across lines");
        // Not simply sequential.
        assert!(seen.windows(2).any(|w| w[1] != w[0] + PAGE + LINE));
    }

    #[test]
    fn thrash_chain_visits_every_line_once_on_alternating_pages() {
        let bytes = 40 * PAGE;
        let mut buf = Buffer::new(64 * PAGE).unwrap();
        let mut c = buf.thrash_chain(bytes, 9).unwrap();
        let n = bytes / LINE;
        assert_eq!(c.len(), n);
        let seen = walk(&mut c, &buf, n + 1);
        assert_one_cycle(&seen, n);
        assert!(seen.iter().all(|o| o % LINE == 0 && *o < bytes));
        // Every line of the working set, none outside it.
        let lines: HashSet<_> = seen.iter().map(|o| o / LINE).collect();
        assert_eq!(lines, (0..n).collect());
        // Consecutive loads, and the wrap-around, are on different pages.
        for w in seen.windows(2) {
            assert_ne!(w[0] / PAGE, w[1] / PAGE, "{w:?}");
        }
        assert_ne!(seen[0] / PAGE, seen[n - 1] / PAGE);
        assert!(buf.thrash_chain(PAGE, 1).is_err());
    }

    #[test]
    fn in_page_chain_stays_inside_its_level() {
        // A 24-page "level" in a larger buffer full of an older chain.
        let mut buf = Buffer::new(64 * PAGE).unwrap();
        buf.stride_chain(64 * PAGE, 64).unwrap();
        let bytes = 24 * PAGE;
        let mut c = buf.in_page_chain(bytes, 5).unwrap();
        let n = bytes / LINE;
        let seen = walk(&mut c, &buf, n + 1);
        assert_one_cycle(&seen, n);
        // Only lines of the level's size, every one of them.
        assert!(seen.iter().all(|o| *o < bytes && o % LINE == 0));
        // All lines of a page before the next page.
        for run in seen.chunks(PAGE / LINE) {
            assert!(run.iter().all(|o| o / PAGE == run[0] / PAGE));
        }
        // Not in address order inside a page, nor pages in address order.
        assert!(seen.windows(2).any(|w| w[1] != w[0] + LINE));
        let pages: Vec<usize> = seen.iter().step_by(PAGE / LINE).map(|o| o / PAGE).collect();
        assert!(pages.windows(2).any(|w| w[1] != w[0] + 1));
    }

    #[test]
    fn in_page_stride_chains_cover_every_slot_of_each_page() {
        let mut buf = Buffer::new(8 * PAGE).unwrap();
        for stride in [16, 32, 128, 256] {
            let mut c = buf.in_page_stride_chain(4 * PAGE, stride, 3).unwrap();
            let n = 4 * PAGE / stride;
            let seen = walk(&mut c, &buf, n + 1);
            assert_one_cycle(&seen, n);
            assert!(seen.iter().all(|o| o % stride == 0 && *o < 4 * PAGE));
        }
        assert!(buf.in_page_stride_chain(PAGE, 48, 1).is_err());
    }

    #[test]
    fn relinking_a_smaller_chain_keeps_it_one_cycle() {
        let mut buf = Buffer::new(1 << 20).unwrap();
        buf.stride_chain(1 << 20, 16).unwrap();
        let mut c = buf.random_chain(100, PAGE, true, 1).unwrap();
        assert_one_cycle(&walk(&mut c, &buf, 101), 100);
    }

    #[test]
    fn par_chains_partition_the_blocks() {
        let n = 64;
        let mut buf = Buffer::new(n * PAGE).unwrap();
        let mut chains = buf.random_chains(n, PAGE, 5, 3).unwrap();
        assert_eq!(chains.len(), 5);
        let mut all = HashSet::new();
        for c in chains.iter_mut() {
            let len = c.len();
            let seen = walk(c, &buf, len + 1);
            assert_one_cycle(&seen, len);
            all.extend(seen);
        }
        assert_eq!(all.len(), n);
        let before: Vec<usize> = chains.iter().map(Chain::position).collect();
        chase_all(&mut chains, &buf, 1);
        let after: Vec<usize> = chains.iter().map(Chain::position).collect();
        assert!(before.iter().zip(&after).all(|(a, b)| a != b));
    }

    #[test]
    fn thrash_chains_partition_every_line_on_changing_pages() {
        let bytes = 8 * PAGE;
        let mut buf = Buffer::new(bytes).unwrap();
        let mut seen = Vec::new();
        for mut c in buf.thrash_chains(bytes, 3, 5).unwrap() {
            let n = c.len();
            let part = walk(&mut c, &buf, n);
            for w in part.windows(2) {
                assert_ne!(w[0] / PAGE, w[1] / PAGE, "consecutive loads on one page");
            }
            seen.extend(part);
        }
        seen.sort_unstable();
        let lines: Vec<usize> = (0..bytes / LINE).map(|l| l * LINE).collect();
        assert_eq!(seen, lines, "every line once across the chains");
        assert!(buf.thrash_chains(bytes, 0, 5).is_err());
    }

    #[test]
    fn chase_counts_loads_exactly() {
        let mut buf = Buffer::new(PAGE).unwrap();
        let mut c = buf.stride_chain(PAGE, 16).unwrap(); // 256 slots
        c.chase(&buf, 256 * 3 + 5);
        assert_eq!(c.position(), 5 * 16);
    }

    #[test]
    fn bad_offsets_are_refused() {
        let mut buf = Buffer::new(PAGE).unwrap();
        assert!(buf.link([0, PAGE]).is_err());
        assert!(buf.link([3]).is_err());
        assert!(buf.link(std::iter::empty()).is_err());
        assert!(buf.stride_chain(512, 1024).is_err());
    }
}
