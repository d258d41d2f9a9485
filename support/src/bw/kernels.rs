//! bw_mem's kernels and the page-aligned buffers they run over.
//!
//! Codegen is pinned, so that a compiler upgrade cannot pass for an OS or
//! hardware change: every hand loop accesses memory through
//! `ptr::read_volatile` / `ptr::write_volatile` of one explicit integer
//! type, which the compiler may neither widen, merge, vectorise nor drop,
//! or is written out in `asm!`. They are therefore **scalar, never
//! vectorised**, and each was checked against the loop lmbench's C
//! compiles to (gcc 12 at -O, x86-64: access width, order, stride; each
//! kernel's doc says what it found):
//! - rd/wr/rdwr/cp: one 4-byte access per 16 bytes, upward, as lmbench's
//!   every-4th-int loops (lmbench unrolls 512 bytes per step, ours 64);
//! - frd (Mem read): lmbench's own instruction form, one chain of 4-byte
//!   adds per 512-byte block, in `asm!` on x86-64 ([`super::add_chain`]);
//! - fwr (Mem write) and fcp (Bcopy (hand)): lmbench's 4-byte stores, 128
//!   per 512-byte block, fwr's from the top of each block down, in `asm!`
//!   on x86-64 ([`super::block_store`], which says why the order matters);
//!   fwr_up (not in lmbench) keeps the upward 8-byte stores as their own
//!   figure;
//! - bzero and bcopy call libc's `memset` and `memcpy` (vectorised, as
//!   libc chooses), as lmbench's call libc's bzero and bcopy.
//!
//! Every pass counts the buffer size once, as lmbench does.

use std::alloc::{self, Layout};
use std::io;
use std::mem::size_of;
use std::ptr::{read_volatile, write_volatile};

use super::{add_chain, block_store};

/// Alignment of every buffer: a page, as lmbench's valloc.
pub const ALIGN: usize = 4096;

/// Bytes one unrolled step covers; buffer sizes must be multiples of it.
pub const STEP: usize = 64;

/// A page-aligned buffer whose pages are all touched (faulted in) at
/// creation, so no timed pass takes a page fault. Freed on drop.
pub struct Buf {
    ptr: *mut u8,
    len: usize,
    /// Kept for its drop: the heap allocation or the mapping.
    backing: Backing,
}

enum Backing {
    /// From the allocator, as lmbench's valloc: whatever pages the
    /// system's malloc and THP setting give a large allocation.
    Heap(Layout),
    /// An anonymous mapping advised MADV_HUGEPAGE ([`Buf::huge`]), held
    /// for its drop (which unmaps it).
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    Mapping { _region: crate::vm::Region },
}

/// A transparent huge page of x86-64 and arm64 (4 KB base pages).
pub const HUGE_PAGE: usize = 2 << 20;

// SAFETY: Buf owns its allocation exclusively, like a Box<[u8]>.
unsafe impl Send for Buf {}

impl Buf {
    /// Allocates `len` bytes (a non-zero multiple of [`STEP`]) and writes
    /// `fill` to every byte.
    pub fn new(len: usize, fill: u8) -> io::Result<Buf> {
        if len == 0 || !len.is_multiple_of(STEP) {
            return Err(io::Error::other(format!(
                "buffer size {len} is not a non-zero multiple of {STEP}"
            )));
        }
        let layout = Layout::from_size_align(len, ALIGN).map_err(io::Error::other)?;
        // SAFETY: layout has a non-zero size.
        let ptr = unsafe { alloc::alloc(layout) };
        if ptr.is_null() {
            return Err(io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!("allocating {len} bytes"),
            ));
        }
        // SAFETY: ptr is valid for len bytes of writes.
        unsafe { std::ptr::write_bytes(ptr, fill, len) };
        Ok(Buf {
            ptr,
            len,
            backing: Backing::Heap(layout),
        })
    }

    /// `len` bytes (a non-zero multiple of [`HUGE_PAGE`]) of anonymous
    /// memory aligned to a huge page and advised MADV_HUGEPAGE before the
    /// first touch, then filled with `fill`: Mem read over pages the TLB
    /// covers 2 MB at a time (not in lmbench). The kernel may still give
    /// 4 KB pages (THP `never`, or no free huge page): ask
    /// [`Buf::huge_bytes`] how much it gave. Linux only.
    pub fn huge(len: usize, fill: u8) -> io::Result<Buf> {
        if len == 0 || !len.is_multiple_of(HUGE_PAGE) {
            return Err(io::Error::other(format!(
                "huge-page buffer of {len} bytes: want a non-zero multiple of {HUGE_PAGE}"
            )));
        }
        #[cfg(target_os = "linux")]
        {
            let region = crate::vm::Region::anon(len, HUGE_PAGE)?;
            region.advise(crate::vm::MmapAdvise::MADV_HUGEPAGE)?;
            let ptr = region.addr();
            // SAFETY: the region is len bytes of fresh read-write memory
            // from ptr, kept alive by the Buf (which lends no reference
            // beyond its own borrows).
            unsafe { std::ptr::write_bytes(ptr, fill, len) };
            Ok(Buf {
                ptr,
                len,
                backing: Backing::Mapping { _region: region },
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = fill;
            Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "transparent huge pages are Linux's",
            ))
        }
    }

    /// Bytes of the buffer in transparent huge pages, as the kernel
    /// reports them (None where it does not). A heap buffer's mapping may
    /// be shared with other allocations, so only [`Buf::huge`]'s answer
    /// is the buffer's own.
    pub fn huge_bytes(&self) -> Option<u64> {
        match self.backing {
            Backing::Mapping { .. } => crate::vm::anon_huge_bytes(self.ptr),
            Backing::Heap(_) => None,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    /// The buffer's address, for alignment checks.
    pub fn as_ptr_addr(&self) -> usize {
        self.ptr as usize
    }

    pub fn as_bytes(&self) -> &[u8] {
        self.view()
    }

    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        self.view_mut()
    }

    pub fn as_u32(&self) -> &[u32] {
        self.view()
    }

    pub fn as_u32_mut(&mut self) -> &mut [u32] {
        self.view_mut()
    }

    pub fn as_u64(&self) -> &[u64] {
        self.view()
    }

    pub fn as_u64_mut(&mut self) -> &mut [u64] {
        self.view_mut()
    }

    /// The buffer as integers of type `T` (u8, u32 or u64).
    fn view<T: Int>(&self) -> &[T] {
        // SAFETY: page aligned (so aligned for T), len a multiple of STEP
        // (so of T's size), initialised in new, owned for self's life;
        // every bit pattern is a valid integer.
        unsafe { std::slice::from_raw_parts(self.ptr.cast(), self.len() / size_of::<T>()) }
    }

    /// As [`Buf::view`], borrowed mutably.
    fn view_mut<T: Int>(&mut self) -> &mut [T] {
        // SAFETY: as in view, with self borrowed mutably.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.cast(), self.len() / size_of::<T>()) }
    }
}

/// The integer types a [`Buf`] is viewed as: any bit pattern is valid.
trait Int: Copy {}
impl Int for u8 {}
impl Int for u32 {}
impl Int for u64 {}

impl Drop for Buf {
    fn drop(&mut self) {
        if let Backing::Heap(layout) = self.backing {
            // SAFETY: allocated in new with this very layout.
            unsafe { alloc::dealloc(self.ptr, layout) };
        }
        // A Mapping unmaps itself when dropped.
    }
}

/// One volatile load through a reference: an access of exactly `T`'s size
/// that the compiler may not merge, widen, vectorise or drop.
#[inline(always)]
fn load<T: Copy>(r: &T) -> T {
    // SAFETY: a reference is valid, aligned and initialised for reads.
    unsafe { read_volatile(r) }
}

/// One volatile store through a reference (see [`load`]).
#[inline(always)]
fn store<T: Copy>(r: &mut T, v: T) {
    // SAFETY: a mutable reference is valid and aligned for writes.
    unsafe { write_volatile(r, v) }
}

// The loops below index with `i + k` only while `i + STEP/size < len`,
// which holds because lengths are multiples of STEP (asserted). They stay
// raw-pointer loops on purpose: the same loops over `chunks_exact` and
// reference-based volatile accesses (no unsafe per kernel) compiled to
// the same accesses but other loop control and unrolling (seen in the
// disassembly), and the kernels' code is pinned.

/// rd: sums one u32 per 16 bytes, upward (lmbench's rd: the same loads).
/// lmbench adds a block's 32 loads in one expression, which compiles to
/// one chain of adds; this loop keeps four independent sums, so where the
/// add chain rather than memory limits it, it can run faster than
/// lmbench's rd (not in a summary column).
#[inline(never)]
pub fn rd(a: &[u32]) -> u32 {
    assert!(a.len().is_multiple_of(16));
    let p = a.as_ptr();
    let (mut s0, mut s1, mut s2, mut s3) = (0u32, 0u32, 0u32, 0u32);
    let mut i = 0;
    while i < a.len() {
        // SAFETY: i + 12 < a.len() since a.len() is a multiple of 16.
        unsafe {
            s0 = s0.wrapping_add(read_volatile(p.add(i)));
            s1 = s1.wrapping_add(read_volatile(p.add(i + 4)));
            s2 = s2.wrapping_add(read_volatile(p.add(i + 8)));
            s3 = s3.wrapping_add(read_volatile(p.add(i + 12)));
        }
        i += 16;
    }
    s0.wrapping_add(s1).wrapping_add(s2).wrapping_add(s3)
}

/// wr: stores the int 1 into one u32 per 16 bytes, upward: lmbench's wr
/// (one statement per int, compiled to the same 4-byte stores in the same
/// order).
#[inline(never)]
pub fn wr(a: &mut [u32]) {
    assert!(a.len().is_multiple_of(16));
    let p = a.as_mut_ptr();
    let mut i = 0;
    while i < a.len() {
        // SAFETY: as in rd.
        unsafe {
            write_volatile(p.add(i), 1);
            write_volatile(p.add(i + 4), 1);
            write_volatile(p.add(i + 8), 1);
            write_volatile(p.add(i + 12), 1);
        }
        i += 16;
    }
}

/// rdwr: loads, then stores 1 into, one u32 per 16 bytes, upward; returns
/// the loads' sum. lmbench's rdwr compiles to the same load-add and
/// 4-byte store per int in the same order.
#[inline(never)]
pub fn rdwr(a: &mut [u32]) -> u32 {
    assert!(a.len().is_multiple_of(16));
    let p = a.as_mut_ptr();
    let mut s = 0u32;
    let mut i = 0;
    while i < a.len() {
        // SAFETY: as in rd.
        unsafe {
            for k in [0, 4, 8, 12] {
                s = s.wrapping_add(read_volatile(p.add(i + k)));
                write_volatile(p.add(i + k), 1);
            }
        }
        i += 16;
    }
    s
}

/// cp: copies one u32 per 16 bytes from `src` to `dst`, upward. lmbench's
/// cp compiles to the same 4-byte load and store per int in the same
/// order.
#[inline(never)]
pub fn cp(src: &[u32], dst: &mut [u32]) {
    assert!(src.len().is_multiple_of(16) && src.len() == dst.len());
    let (s, d) = (src.as_ptr(), dst.as_mut_ptr());
    let mut i = 0;
    while i < src.len() {
        // SAFETY: as in rd, for both buffers of equal length.
        unsafe {
            for k in [0, 4, 8, 12] {
                write_volatile(d.add(i + k), read_volatile(s.add(i + k)));
            }
        }
        i += 16;
    }
}

/// frd: sums every 4-byte int, lmbench's way: the 128 ints of each
/// 512-byte block in one chain of adds (see [`add_chain`]), each block's
/// sum sign-extended into the total. A tail shorter than a block (the
/// buffers are multiples of 64 bytes) is one more such block sum.
#[inline(never)]
pub fn frd(a: &[u64]) -> u64 {
    let blocks = a.len() * 8 / add_chain::INT_BLOCK;
    let p = a.as_ptr().cast::<u8>();
    // SAFETY: a u64 slice's bytes, 8-aligned; blocks * 512 <= its length.
    let bulk = unsafe { add_chain::int_blocks(p, blocks) };
    let tail = a[blocks * add_chain::INT_BLOCK / 8..]
        .iter()
        .fold(0u32, |t, w| {
            let w = load(w);
            t.wrapping_add(w as u32).wrapping_add((w >> 32) as u32)
        });
    bulk.wrapping_add(tail as i32 as i64 as u64)
}

/// fwr: stores 1 into every 4-byte int, lmbench's way: the 128 ints of
/// each 512-byte block from the top of the block down, block after block
/// ([`block_store::fill_int_blocks`], `asm!` on x86-64, which says why the
/// order matters). A tail shorter than a block (the buffers are multiples
/// of 64 bytes) is stored the same way, top down.
#[inline(never)]
pub fn fwr(a: &mut [u32]) {
    let blocks = a.len() * 4 / block_store::BLOCK;
    // SAFETY: a u32 slice's bytes, 4-aligned; blocks * 512 <= its length.
    unsafe { block_store::fill_int_blocks(a.as_mut_ptr().cast(), blocks) };
    for w in a[blocks * block_store::BLOCK / 4..].iter_mut().rev() {
        store(w, 1);
    }
}

/// fwr_up (not in lmbench): stores every u64 word, upward, eight per
/// 64-byte step. Beside [`fwr`] it shows what the store order and width
/// are worth on this CPU: upward stores can be streamed where lmbench's
/// top-down 4-byte stores cannot (about 4x on an AMD EPYC guest).
#[inline(never)]
pub fn fwr_up(a: &mut [u64]) {
    assert!(a.len().is_multiple_of(8));
    let p = a.as_mut_ptr();
    let mut i = 0;
    while i < a.len() {
        // SAFETY: i + 7 < a.len() since a.len() is a multiple of 8.
        unsafe {
            for k in 0..8 {
                write_volatile(p.add(i + k), k as u64);
            }
        }
        i += 8;
    }
}

/// fcp: copies every 4-byte int from `src` to `dst`, lmbench's way: a
/// 4-byte load and a 4-byte store per int, upward
/// ([`block_store::copy_int_blocks`], `asm!` on x86-64). lmbench's fcp moves
/// 4-byte ints, so this does too (8-byte words would take half the
/// instructions per byte). A tail shorter than a block is copied the same
/// way.
#[inline(never)]
pub fn fcp(src: &[u32], dst: &mut [u32]) {
    assert_eq!(src.len(), dst.len());
    let blocks = src.len() * 4 / block_store::BLOCK;
    // SAFETY: two u32 slices of equal length (two borrows: no overlap),
    // 4-aligned; blocks * 512 <= their length.
    unsafe { block_store::copy_int_blocks(src.as_ptr().cast(), dst.as_mut_ptr().cast(), blocks) };
    let bulk = blocks * block_store::BLOCK / 4;
    for (d, s) in dst[bulk..].iter_mut().zip(&src[bulk..]) {
        store(d, load(s));
    }
}

/// A volatile sum of a few words (a tail shorter than a chunk).
#[inline]
pub fn sum_tail(words: &[u64]) -> u64 {
    words.iter().fold(0u64, |s, w| s.wrapping_add(load(w)))
}

/// bzero: libc's memset to 0 (`fill(0)` is a call to memset). lmbench
/// calls libc's bzero, which is memset to 0.
#[inline(never)]
pub fn bzero(a: &mut [u8]) {
    a.fill(0);
}

/// bcopy: libc's memcpy (`copy_from_slice` is a call to memcpy; the
/// buffers cannot overlap: two borrows). lmbench calls libc's bcopy, a
/// memmove; for buffers that do not overlap, glibc's memmove and memcpy
/// take the same copy loop.
#[inline(never)]
pub fn bcopy(src: &[u8], dst: &mut [u8]) {
    assert_eq!(src.len(), dst.len());
    dst.copy_from_slice(src);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// frd of `len` bytes of 0x01: each 512-byte block's ints sum to
    /// 128 * 0x01010101 in 32 bits, negative as an i32, sign-extended.
    fn frd_of_ones(len: usize) -> u64 {
        let block = 0x0101_0101u32.wrapping_mul(128) as i32 as i64 as u64;
        block.wrapping_mul((len / 512) as u64)
    }

    #[test]
    fn kernels_touch_what_they_claim() {
        let mut a = Buf::new(4096, 1).unwrap();
        assert_eq!(a.as_ptr_addr() % ALIGN, 0);
        // rd: one 0x01010101 per 16 bytes.
        assert_eq!(rd(a.as_u32()), 0x0101_0101u32.wrapping_mul(256));
        assert_eq!(frd(a.as_u64()), frd_of_ones(4096));
        wr(a.as_u32_mut());
        assert_eq!(
            a.as_u32()[..5],
            [1, 0x0101_0101, 0x0101_0101, 0x0101_0101, 1]
        );
        fwr_up(a.as_u64_mut());
        assert_eq!(a.as_u64()[..9], [0, 1, 2, 3, 4, 5, 6, 7, 0]);
        let mut b = Buf::new(4096, 9).unwrap();
        fcp(a.as_u32(), b.as_u32_mut());
        assert_eq!(a.as_bytes(), b.as_bytes());
        bzero(b.as_bytes_mut());
        assert!(b.as_bytes().iter().all(|&x| x == 0));
        cp(a.as_u32(), b.as_u32_mut());
        // cp copies ints 0, 4, 8...: a is [0, 0, 1, 0, 2, ...] after fwr_up.
        assert_eq!(b.as_u32()[..5], [0, 0, 0, 0, 2]);
        fwr(a.as_u32_mut());
        assert!(a.as_u32().iter().all(|&x| x == 1));
        bcopy(a.as_bytes(), b.as_bytes_mut());
        assert_eq!(a.as_bytes(), b.as_bytes());
        assert!(rdwr(b.as_u32_mut()) > 0);
        assert_eq!(b.as_u32()[0], 1);
        assert!(Buf::new(100, 0).is_err());
    }

    #[test]
    fn fwr_and_fcp_cover_a_tail_shorter_than_a_block() {
        // 4096 + 64 bytes: eight whole blocks and a 64-byte tail.
        let mut a = Buf::new(4096 + 64, 7).unwrap();
        fwr(a.as_u32_mut());
        assert!(a.as_u32().iter().all(|&x| x == 1));
        for (i, w) in a.as_u32_mut().iter_mut().enumerate() {
            *w = i as u32;
        }
        let mut b = Buf::new(4096 + 64, 0).unwrap();
        fcp(a.as_u32(), b.as_u32_mut());
        assert_eq!(a.as_bytes(), b.as_bytes());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_huge_buffer_is_aligned_filled_and_says_its_huge_bytes() {
        let h = Buf::huge(2 * HUGE_PAGE, 1).unwrap();
        assert_eq!(h.as_ptr_addr() % HUGE_PAGE, 0);
        assert_eq!(h.len(), 2 * HUGE_PAGE);
        assert_eq!(frd(h.as_u64()), frd_of_ones(2 * HUGE_PAGE));
        // 0 where THP is off or no huge page was free, never more than the
        // buffer; the heap's answer is not the buffer's own.
        let huge = h.huge_bytes().expect("smaps has the mapping");
        assert!(huge <= h.len() as u64, "{huge}");
        assert_eq!(Buf::new(4096, 0).unwrap().huge_bytes(), None);
        assert!(Buf::huge(HUGE_PAGE + 4096, 0).is_err());
        assert!(Buf::huge(0, 0).is_err());
    }
}
