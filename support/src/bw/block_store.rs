//! lmbench's full-width write and copy in the instruction form its
//! compiled C has: 4-byte stores, 128 per 512-byte block.
//!
//! lmbench's fwr (Mem write) sets the 128 ints of each 512-byte block to 1
//! in one chained assignment, whose innermost target is the block's last
//! int. Compiled without vectorisation (lmbench's usual -O; the C suite's
//! binary on the AMD guest has this form), that is 128 four-byte stores
//! of the constant 1 from the top of the block down (`mov dword ptr
//! [p + 508], 1`, then 504, ... 0), then the pointer moves to the next
//! block. The order is part of what the column measures: on some CPUs
//! (an AMD EPYC guest) stores that walk down each block defeat the store
//! streaming that upward stores get, and the same buffer takes about 4x
//! longer. [`super::kernels::fwr_up`] keeps the upward 8-byte stores as
//! their own figure.
//!
//! lmbench's fcp (Bcopy (hand)) copies the 128 ints of each block one
//! assignment at a time, lowest first; compiled, a 4-byte load into a
//! register and a 4-byte store of it per int, upward, source and
//! destination each in their own pointer register.
//!
//! On x86-64 both loops are written out in `asm!` as gcc emits them, so no
//! compiler upgrade can change them (a vectorising compiler turns the
//! chained assignment into 16-byte stores); the loop tops are 64-byte
//! aligned as in [`super::add_chain`]. Elsewhere a loop of volatile
//! 4-byte accesses in the same order stands in, tested against the asm
//! here for the bytes it leaves.

/// Bytes of one block: 128 4-byte ints.
pub const BLOCK: usize = 512;

/// Stores the int 1 into every 4-byte int of `blocks` 512-byte blocks
/// from `p`, each block from its last int down to its first, the blocks
/// in ascending order (lmbench's fwr).
///
/// # Safety
/// `p` must be 4-byte aligned and valid for writes of `blocks * 512`
/// bytes.
#[inline(always)]
pub unsafe fn fill_int_blocks(p: *mut u8, blocks: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        if blocks > 0 {
            // SAFETY: the caller's contract; every store is inside
            // [p, p + blocks * 512).
            unsafe {
                std::arch::asm!(
                    ".p2align 6",
                    "2:",
                    ".set lmb_woff, 508",
                    ".rept 128",
                    "mov dword ptr [rax + lmb_woff], 1",
                    ".set lmb_woff, lmb_woff - 4",
                    ".endr",
                    "add rax, {block}",
                    "cmp rax, rsi",
                    "jbe 2b",
                    block = const BLOCK,
                    inout("rax") p => _,
                    in("rsi") p.add((blocks - 1) * BLOCK),
                    options(nostack),
                );
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's contract.
    unsafe {
        portable_fill(p, blocks)
    }
}

/// Copies `blocks` 512-byte blocks from `src` to `dst` one 4-byte int at
/// a time, lowest first (lmbench's fcp).
///
/// # Safety
/// `src` and `dst` must be 4-byte aligned, valid for reads and writes
/// respectively of `blocks * 512` bytes, and must not overlap.
#[inline(always)]
pub unsafe fn copy_int_blocks(src: *const u8, dst: *mut u8, blocks: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        if blocks > 0 {
            // SAFETY: the caller's contract; every load is inside
            // [src, src + blocks * 512) and every store inside
            // [dst, dst + blocks * 512).
            unsafe {
                std::arch::asm!(
                    ".p2align 6",
                    "2:",
                    ".set lmb_coff, 0",
                    ".rept 128",
                    "mov edx, dword ptr [rax + lmb_coff - 512]",
                    "mov dword ptr [rcx + lmb_coff], edx",
                    ".set lmb_coff, lmb_coff + 4",
                    ".endr",
                    "add rcx, {block}",
                    "add rax, {block}",
                    "cmp rsi, rax",
                    "jae 2b",
                    block = const BLOCK,
                    inout("rax") src.add(BLOCK) => _,
                    inout("rcx") dst => _,
                    in("rsi") src.add(blocks * BLOCK),
                    out("rdx") _,
                    options(nostack),
                );
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's contract.
    unsafe {
        portable_copy(src, dst, blocks)
    }
}

/// [`fill_int_blocks`] without asm: volatile 4-byte stores in the same
/// order.
///
/// # Safety
/// As [`fill_int_blocks`].
#[cfg(any(test, not(target_arch = "x86_64")))]
unsafe fn portable_fill(p: *mut u8, blocks: usize) {
    let p = p.cast::<u32>();
    for b in 0..blocks {
        for k in (0..128).rev() {
            // SAFETY: the caller's contract.
            unsafe { std::ptr::write_volatile(p.add(b * 128 + k), 1) };
        }
    }
}

/// [`copy_int_blocks`] without asm: volatile 4-byte loads and stores in
/// the same order.
///
/// # Safety
/// As [`copy_int_blocks`].
#[cfg(any(test, not(target_arch = "x86_64")))]
unsafe fn portable_copy(src: *const u8, dst: *mut u8, blocks: usize) {
    let (s, d) = (src.cast::<u32>(), dst.cast::<u32>());
    for i in 0..blocks * 128 {
        // SAFETY: the caller's contract.
        unsafe { std::ptr::write_volatile(d.add(i), std::ptr::read_volatile(s.add(i))) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A buffer of `blocks` blocks between two guard blocks, every word
    /// distinct, so a store outside the blocks or a missed one shows.
    fn patterned(blocks: usize) -> Vec<u32> {
        (0..(blocks + 2) * 128)
            .map(|i| (i as u32).wrapping_mul(0x9E37_79B9) | 2)
            .collect()
    }

    #[test]
    fn fill_sets_every_int_of_every_block_to_one_and_nothing_past() {
        for blocks in [0, 1, 2, 7] {
            let (mut asm, mut portable) = (patterned(blocks), patterned(blocks));
            let want: Vec<u32> = patterned(blocks)
                .iter()
                .enumerate()
                .map(|(i, &w)| {
                    if (128..(blocks + 1) * 128).contains(&i) {
                        1
                    } else {
                        w
                    }
                })
                .collect();
            // SAFETY: blocks * 512 bytes after the first guard block of a
            // Vec<u32> of (blocks + 2) * 512 bytes.
            unsafe {
                fill_int_blocks(asm.as_mut_ptr().add(128).cast(), blocks);
                portable_fill(portable.as_mut_ptr().add(128).cast(), blocks);
            }
            assert_eq!(asm, want, "{blocks}");
            assert_eq!(portable, want, "{blocks}");
        }
    }

    #[test]
    fn copy_copies_every_int_of_every_block_and_nothing_past() {
        for blocks in [0, 1, 3, 6] {
            let src = patterned(blocks);
            let mut asm = vec![0u32; src.len()];
            let mut portable = vec![0u32; src.len()];
            // SAFETY: blocks * 512 bytes after the first guard block of
            // two distinct Vec<u32>s of (blocks + 2) * 512 bytes.
            unsafe {
                copy_int_blocks(
                    src.as_ptr().add(128).cast(),
                    asm.as_mut_ptr().add(128).cast(),
                    blocks,
                );
                portable_copy(
                    src.as_ptr().add(128).cast(),
                    portable.as_mut_ptr().add(128).cast(),
                    blocks,
                );
            }
            let mut want = vec![0u32; src.len()];
            want[128..(blocks + 1) * 128].copy_from_slice(&src[128..(blocks + 1) * 128]);
            assert_eq!(asm, want, "{blocks}");
            assert_eq!(portable, want, "{blocks}");
        }
    }
}
