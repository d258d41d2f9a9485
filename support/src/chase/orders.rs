//! The orders a chain visits its slots in: lmbench's stride chain, the
//! random one-per-block and "thrash" chains, the random-in-page chains, and
//! par_mem's disjoint chains, each built by [`Buffer::link`] from a list of
//! byte offsets. Seeds are fixed, so runs chase the same chain.

use super::{shuffled, Buffer, Chain, LINE, PAGE, WORD};

impl Buffer {
    /// Links `len / stride` slots `stride` bytes apart, in address order:
    /// lmbench's stride chain (sequential, so prefetchers can help).
    pub fn stride_chain(&mut self, len: usize, stride: usize) -> Result<Chain, String> {
        let n = len / stride;
        if n == 0 {
            return Err(format!("{len} bytes hold no slot at stride {stride}"));
        }
        self.link((0..n).map(|i| i * stride))
    }

    /// Links one slot in each of `n` blocks of `spacing` bytes, blocks in a
    /// random order (a fixed seed, so runs are comparable). With `stagger`,
    /// block i's slot sits at line `i % (spacing / LINE)` of its block, so
    /// one-per-page chains do not all map to one cache set.
    pub fn random_chain(
        &mut self,
        n: usize,
        spacing: usize,
        stagger: bool,
        seed: u64,
    ) -> Result<Chain, String> {
        let order = shuffled(n, seed);
        self.link(
            order
                .into_iter()
                .map(|i| i * spacing + slot_in_block(i, spacing, stagger)),
        )
    }

    /// lmbench's "thrash" chain over the first `bytes` of the buffer: every
    /// [`LINE`] once, in an order where consecutive loads land on different
    /// pages. The pages are put in one random order and the line offsets
    /// of a page in another; the chain visits line offset L\[0\] of every
    /// page (in page order), then L\[1\] of every page, and so on. With at
    /// least two pages no two consecutive loads (the wrap-around included)
    /// share a page, so every load may miss the caches and the TLB, and
    /// all of the working set is read: at 4x the last-level cache it reads
    /// memory, not cache.
    pub fn thrash_chain(&mut self, bytes: usize, seed: u64) -> Result<Chain, String> {
        let pages = bytes / PAGE;
        if pages < 2 {
            return Err(format!("a thrash chain needs two pages, not {bytes} bytes"));
        }
        let page_order = shuffled(pages, seed);
        let line_order = shuffled(PAGE / LINE, seed ^ 0x7468_7261);
        self.link(
            line_order
                .into_iter()
                .flat_map(|l| page_order.iter().map(move |&p| p * PAGE + l * LINE)),
        )
    }

    /// `k` disjoint chains that split the [`Buffer::thrash_chain`] order of
    /// the first `bytes` into `k` consecutive runs, each closed into its own
    /// cycle (par_mem's independent chains): together they visit every
    /// line once, and within a chain consecutive loads are on different
    /// pages (except perhaps at its wrap-around).
    pub fn thrash_chains(
        &mut self,
        bytes: usize,
        k: usize,
        seed: u64,
    ) -> Result<Vec<Chain>, String> {
        let pages = bytes / PAGE;
        let n = pages * (PAGE / LINE);
        if pages < 2 || k == 0 || n < k {
            return Err(format!(
                "cannot split a thrash chain of {bytes} bytes into {k}"
            ));
        }
        let page_order = shuffled(pages, seed);
        let line_order = shuffled(PAGE / LINE, seed ^ 0x7468_7261);
        let at = |j: usize| page_order[j % pages] * PAGE + line_order[j / pages] * LINE;
        (0..k)
            .map(|i| self.link((i * n / k..(i + 1) * n / k).map(at)))
            .collect()
    }

    /// The "random in level" chain over the first `bytes` of the buffer:
    /// pages in a random order, and within each page all its lines in a
    /// random order of their own before the next page. Every line is read
    /// once; the prefetchers cannot predict the next line, and the TLB
    /// misses at most once per page (1 in 64 loads), so a working set that
    /// fits a cache level shows that level's load-to-use latency (the way
    /// Intel's mlc and tinymembench measure it). Not in lmbench.
    pub fn in_page_chain(&mut self, bytes: usize, seed: u64) -> Result<Chain, String> {
        self.in_page_stride_chain(bytes, LINE, seed)
    }

    /// [`Buffer::in_page_chain`] with slots `stride` bytes apart instead of
    /// one per line: the cache-line detector's chains. Below the line size
    /// several slots share a line (only the first load of a line misses),
    /// at or above it each slot is a line of its own, so the latency stops
    /// rising with stride at the line size; the random order hides the
    /// stride from the prefetchers.
    pub fn in_page_stride_chain(
        &mut self,
        bytes: usize,
        stride: usize,
        seed: u64,
    ) -> Result<Chain, String> {
        let pages = bytes / PAGE;
        if pages == 0 || !(WORD..=PAGE).contains(&stride) || !PAGE.is_multiple_of(stride) {
            return Err(format!(
                "{bytes} bytes at stride {stride}: need a page and a stride dividing it"
            ));
        }
        let slots = PAGE / stride;
        self.link(shuffled(pages, seed).into_iter().flat_map(move |p| {
            // Each page its own slot order, as the floor's chain. Eight
            // orders used in turn read 4-5% slower than the floor's chain
            // in one process (median chunk pair 1.012-1.048 at 16M and
            // 1G); one per page reads 0.999-1.005 (on a 2-vCPU Intel Xeon
            // KVM guest). Why is not established: a repeating order is
            // one a prefetcher can learn, and mislearn.
            shuffled(slots, seed.wrapping_add(1 + p as u64))
                .into_iter()
                .map(move |l| p * PAGE + l * stride)
        }))
    }

    /// `k` disjoint random one-per-`spacing` chains covering `n` blocks
    /// between them (par_mem's independent chains).
    pub fn random_chains(
        &mut self,
        n: usize,
        spacing: usize,
        k: usize,
        seed: u64,
    ) -> Result<Vec<Chain>, String> {
        if k == 0 || n < k {
            return Err(format!("cannot split {n} blocks into {k} chains"));
        }
        let order = shuffled(n, seed);
        order
            .chunks(n.div_ceil(k))
            .map(|part| {
                self.link(
                    part.iter()
                        .map(|&i| i * spacing + slot_in_block(i, spacing, true)),
                )
            })
            .collect()
    }
}

fn slot_in_block(i: usize, spacing: usize, stagger: bool) -> usize {
    if stagger && spacing >= 2 * LINE {
        (i % (spacing / LINE)) * LINE
    } else {
        0
    }
}

impl Buffer {
    /// lat_mem_rd's chain of `function` over `bytes`, with the bench's
    /// fixed seeds: the random shapes (`thrash`, `page`, `inpage`), the
    /// line detector's `lineN` (slots `stride` apart), else lmbench's
    /// stride chain of `stride`. One place, so a reference that must chase
    /// the bench's very chain (`mem_ref ab`) cannot drift from it.
    pub fn lat_mem_rd_chain(
        &mut self,
        function: &str,
        stride: usize,
        bytes: usize,
    ) -> Result<Chain, String> {
        use crate::catalog::lat_mem_rd::{line_stride, INPAGE_FN, PAGE_FN, RAND_FN};
        match function {
            RAND_FN => self.thrash_chain(bytes.max(2 * PAGE), 0x7468_7273),
            PAGE_FN => self.random_chain(bytes.div_ceil(PAGE), PAGE, true, 0x6c6d_6265),
            INPAGE_FN => self.in_page_chain(bytes, 0x696e_7067),
            f if line_stride(f).is_some() => self.in_page_stride_chain(bytes, stride, 0x6c69_6e65),
            _ => self.stride_chain(bytes, stride),
        }
    }
}
