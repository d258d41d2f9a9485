//! lmbench's read sums in the instruction form its compiled C has: one
//! chain of fused load-adds per block.
//!
//! lmbench's frd (Mem read) adds the 128 ints of each 512-byte block in
//! one expression, and its bread (the File and Mmap reread sum) the 128
//! longs of each 1 KB block. gcc (12, at -O and -O2; -O3 too for bread)
//! compiles each expression to one load followed by 127 adds that take
//! their operand from memory (`add eax, [p + 4k]`), all into one register,
//! then one add of that block sum into the running total. That form is
//! part of what the C suite's columns measure: one dependent add per
//! 4-byte int caps frd at 4 bytes per cycle, which on a fast memory system
//! is near the memory's own rate. A Rust loop of the same sum compiles to
//! something else (vector loads; with volatile loads, whatever chains the
//! source spells): on a 2-vCPU Intel Xeon KVM guest a loop of four 8-byte
//! chains read 1.08-1.16x the C frd at 2 GB and 0.88-0.94x the C bread
//! over a mapping.
//! So on x86-64 the chains are written out in `asm!` as gcc emits them:
//! the same instructions, registers and loop shape (a pointer to the
//! block's end, negative offsets, the second word loaded first), so the
//! bytes match and no compiler upgrade can change them; the loop top is
//! 64-byte aligned so its place in the instruction cache and decoders
//! does not move with the code around it. Elsewhere a loop of volatile
//! loads into one sum keeps the single chain (an ISA without memory
//! operands has no fused form to copy).

/// Bytes of one frd block: 128 4-byte ints.
pub const INT_BLOCK: usize = 512;
/// Bytes of one bread block: 128 8-byte longs.
pub const LONG_BLOCK: usize = 1024;

/// One chain kind: `$name` (asm on x86-64) and `$portable` (volatile
/// loads into one sum per block; the build elsewhere, and tested against
/// the asm here). Each block's 128 `$word`s are added wrapping in the
/// word's width; `$widen` turns the block sum into the total's u64. The
/// asm keeps rdx at the end of the block being summed, as gcc's loop.
macro_rules! chain {
    ($(#[$doc:meta])* $name:ident, $portable:ident, $word:ty, $block:expr, $widen:expr,
     [$($asm:literal),* $(,)?]) => {
        $(#[$doc])*
        #[inline(always)]
        pub unsafe fn $name(p: *const u8, blocks: usize) -> u64 {
            #[cfg(target_arch = "x86_64")]
            {
                let mut sum = 0u64;
                if blocks > 0 {
                    // SAFETY: the caller's contract; every load is inside
                    // [p, p + blocks * block).
                    unsafe {
                        std::arch::asm!(
                            ".p2align 6",
                            "2:",
                            $($asm,)*
                            "add rdx, {block}",
                            "cmp rsi, rdx",
                            "jae 2b",
                            block = const $block,
                            inout("rdx") p.add($block) => _,
                            in("rsi") p.add(blocks * $block),
                            inout("rcx") sum,
                            out("rax") _,
                            options(nostack, readonly),
                        );
                    }
                }
                sum
            }
            #[cfg(not(target_arch = "x86_64"))]
            // SAFETY: the caller's contract.
            unsafe {
                $portable(p, blocks)
            }
        }

        /// The same sum without asm (see `chain!`).
        ///
        /// # Safety
        /// As the asm version.
        #[cfg(any(test, not(target_arch = "x86_64")))]
        unsafe fn $portable(p: *const u8, blocks: usize) -> u64 {
            let p = p.cast::<$word>();
            let mut sum = 0u64;
            for b in 0..blocks {
                let mut t: $word = 0;
                for k in 0..128 {
                    // SAFETY: the caller's contract.
                    t = t.wrapping_add(unsafe { std::ptr::read_volatile(p.add(b * 128 + k)) });
                }
                sum = sum.wrapping_add($widen(t));
            }
            sum
        }
    };
}

chain!(
    /// Sums the 4-byte ints of `blocks` 512-byte blocks from `p`: each
    /// block's 128 ints added into one 32-bit sum (wrapping),
    /// sign-extended and added to the 64-bit total, as lmbench's frd
    /// accumulates.
    ///
    /// # Safety
    /// `p` must be 4-byte aligned and valid for reads of `blocks * 512`
    /// bytes.
    int_blocks, portable_int_blocks, u32, INT_BLOCK, |t: u32| t as i32 as i64 as u64,
    [
        "mov eax, dword ptr [rdx - 508]",
        "add eax, dword ptr [rdx - 512]",
        ".set lmb_off, 504",
        ".rept 126",
        "add eax, dword ptr [rdx - lmb_off]",
        ".set lmb_off, lmb_off - 4",
        ".endr",
        "cdqe",
        "add rcx, rax",
    ]
);

chain!(
    /// Sums the 8-byte longs of `blocks` 1 KB blocks from `p` (wrapping):
    /// each block's 128 longs added into one register, then into the
    /// total, as lmbench's bread.
    ///
    /// # Safety
    /// `p` must be 8-byte aligned and valid for reads of `blocks * 1024`
    /// bytes.
    long_blocks, portable_long_blocks, u64, LONG_BLOCK, |t: u64| t,
    [
        "mov rax, qword ptr [rdx - 1016]",
        "add rax, qword ptr [rdx - 1024]",
        ".set lmb_off, 1008",
        ".rept 126",
        "add rax, qword ptr [rdx - lmb_off]",
        ".set lmb_off, lmb_off - 8",
        ".endr",
        "add rcx, rax",
    ]
);

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain sums the chains must equal: a block's ints in i32
    /// (wrapping), sign-extended; a block's longs wrapping.
    fn int_reference(bytes: &[u8]) -> u64 {
        bytes.chunks_exact(INT_BLOCK).fold(0u64, |s, block| {
            let t = block.chunks_exact(4).fold(0i32, |t, w| {
                t.wrapping_add(i32::from_ne_bytes(w.try_into().unwrap()))
            });
            s.wrapping_add(t as i64 as u64)
        })
    }

    fn long_reference(bytes: &[u8]) -> u64 {
        bytes.chunks_exact(8).fold(0u64, |s, w| {
            s.wrapping_add(u64::from_ne_bytes(w.try_into().unwrap()))
        })
    }

    #[test]
    fn chains_add_every_word_of_every_block_and_nothing_past() {
        // Distinct words, and block sums that overflow i32 both ways, so a
        // skipped, repeated or misplaced load changes the sum.
        let words: Vec<u64> = (0..1024u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i << 3))
            .collect();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
        let n = bytes.len();
        for blocks in [0, 1, 2, 5, n / INT_BLOCK] {
            // SAFETY: a Vec<u64>'s bytes, 8-aligned, blocks * 512 <= n.
            let got = unsafe { int_blocks(words.as_ptr().cast(), blocks) };
            // SAFETY: as above.
            let portable = unsafe { portable_int_blocks(words.as_ptr().cast(), blocks) };
            assert_eq!(got, portable, "{blocks}");
            assert_eq!(got, int_reference(&bytes[..blocks * INT_BLOCK]), "{blocks}");
        }
        for blocks in [0, 1, 3, n / LONG_BLOCK] {
            // SAFETY: as above, blocks * 1024 <= n.
            let got = unsafe { long_blocks(words.as_ptr().cast(), blocks) };
            // SAFETY: as above.
            let portable = unsafe { portable_long_blocks(words.as_ptr().cast(), blocks) };
            assert_eq!(got, portable, "{blocks}");
            assert_eq!(
                got,
                long_reference(&bytes[..blocks * LONG_BLOCK]),
                "{blocks}"
            );
        }
        // A block sum that is negative as an i32 is sign-extended.
        let minus: Vec<u32> = vec![u32::MAX; 128];
        // SAFETY: 512 bytes, 4-aligned.
        let got = unsafe { int_blocks(minus.as_ptr().cast(), 1) };
        assert_eq!(got, (-128i64) as u64);
    }
}
