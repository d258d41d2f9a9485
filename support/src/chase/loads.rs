//! The timed loop of every single-chain chase: blocks of 100 dependent
//! loads, `p = *p`, unrolled (lmbench's shape).
//!
//! Where this loop sits in the binary is part of the figure. On a 2-vCPU
//! AMD EPYC (Zen 4) guest the same loop read 10-30% slower on chains at and
//! beyond the L2's size whenever its code straddled a 4 KiB page boundary
//! (stride-128 chains: 1 MB 4.8-5.9 ns against 4.3-4.8, 1.5 MB 5.6-7.4
//! against 4.3-5.3; in a C test with the loop placed at 256 offsets, every
//! slow placement straddled a page). Which build straddles depends on
//! unrelated code linked before it, so a compiler's choice moved figures
//! between commits that did not touch the loop. On x86-64 and arm64 the
//! loop is therefore written in assembly and aligned to 512 bytes: it is
//! shorter than that (100 loads of 3 or 4 bytes, plus the branch), so it
//! never straddles a page, in any build. Elsewhere it is plain Rust, placed
//! by the compiler.

use std::ops::Range;

/// One instruction's text, 100 times.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! hundred {
    ($insn:literal) => {
        ten_of!(ten_of!($insn))
    };
}

/// Text ten times (`concat!` expands a macro that makes a literal).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! ten_of {
    ($text:expr) => {
        concat!($text, $text, $text, $text, $text, $text, $text, $text, $text, $text)
    };
}

/// Its statements, ten times (the plain-Rust loop's unrolling).
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
macro_rules! ten {
    ($($body:tt)*) => {
        $($body)* $($body)* $($body)* $($body)* $($body)*
        $($body)* $($body)* $($body)* $($body)* $($body)*
    };
}

/// Follows `p` for `blocks` x 100 dependent loads and returns where it
/// stopped, and the addresses the loop's code spans (two `lea`s per call,
/// outside the loop: so a test can hold the loop to its placement).
///
/// # Safety
/// `p` must point at a slot of a live chain (see the parent module: every
/// linked slot holds the address of another linked slot).
#[cfg(target_arch = "x86_64")]
#[inline]
pub(super) unsafe fn hundreds(mut p: *const usize, blocks: u64) -> (*const usize, Range<usize>) {
    let (start, end): (usize, usize);
    // Fixed registers: rax keeps each load 3 bytes (`mov rax, [rax]`), so
    // the loop's length does not depend on the register allocator.
    // SAFETY: the caller's contract; the loop only reads the chain's slots.
    unsafe {
        std::arch::asm!(
            "lea {start}, [rip + 3f]",
            "lea {end}, [rip + 4f]",
            "test rcx, rcx",
            "jz 4f",
            "jmp 3f",
            ".p2align 9",
            "3:",
            hundred!("mov rax, qword ptr [rax]\n"),
            "dec rcx",
            "jnz 3b",
            "4:",
            start = out(reg) start,
            end = out(reg) end,
            inout("rax") p,
            inout("rcx") blocks => _,
            options(nostack, readonly),
        );
    }
    (p, start..end)
}

/// See the x86-64 version: `ldr x0, [x0]` is 4 bytes, the loop 408.
#[cfg(target_arch = "aarch64")]
#[inline]
pub(super) unsafe fn hundreds(mut p: *const usize, blocks: u64) -> (*const usize, Range<usize>) {
    let (start, end): (usize, usize);
    // SAFETY: the caller's contract; the loop only reads the chain's slots.
    unsafe {
        std::arch::asm!(
            "adr {start}, 3f",
            "adr {end}, 4f",
            "cbz x1, 4f",
            "b 3f",
            ".p2align 9",
            "3:",
            hundred!("ldr x0, [x0]\n"),
            "subs x1, x1, #1",
            "b.ne 3b",
            "4:",
            start = out(reg) start,
            end = out(reg) end,
            inout("x0") p,
            inout("x1") blocks => _,
            options(nostack, readonly),
        );
    }
    (p, start..end)
}

/// Elsewhere: the same loads in Rust, wherever the compiler puts them
/// (the span returned is empty: not known).
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
#[inline]
pub(super) unsafe fn hundreds(mut p: *const usize, blocks: u64) -> (*const usize, Range<usize>) {
    use std::ptr::read_volatile;
    // SAFETY: the caller's contract; the loop only reads the chain's slots.
    unsafe {
        for _ in 0..blocks {
            ten!(ten!(p = read_volatile(p) as *const usize;););
        }
    }
    (p, 0..0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_a_cycle_for_exactly_the_loads_asked() {
        // A 3-slot cycle: after 100 x k loads the chase is at slot
        // (100 k) mod 3 of where it started.
        let mut slots = [0usize; 3];
        let base = slots.as_mut_ptr();
        for i in 0..3 {
            // SAFETY: i and (i + 1) % 3 index the array.
            unsafe { *base.add(i) = base.add((i + 1) % 3) as usize };
        }
        for blocks in [0u64, 1, 2, 7] {
            // SAFETY: `base` is a slot of the cycle just linked.
            let (end, _) = unsafe { hundreds(base, blocks) };
            let at = (end as usize - base as usize) / std::mem::size_of::<usize>();
            assert_eq!(at as u64, (100 * blocks) % 3, "{blocks} blocks");
        }
    }

    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    #[test]
    fn the_loop_starts_on_512_bytes_and_stays_inside_one_page() {
        let mut slot = 0usize;
        slot = &slot as *const usize as usize;
        // SAFETY: a one-slot cycle: the slot holds its own address.
        let (_, code) = unsafe { hundreds(&slot as *const usize, 1) };
        let page = 4096;
        assert_eq!(code.start % 512, 0, "loop at {:#x}", code.start);
        // 100 loads of 3 (x86-64) or 4 (arm64) bytes and the branch.
        assert!(
            (300..512).contains(&code.len()),
            "loop of {} bytes",
            code.len()
        );
        assert_eq!(
            code.start / page,
            (code.end - 1) / page,
            "{code:x?} straddles a page"
        );
    }
}
