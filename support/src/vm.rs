//! Virtual-memory system calls for the VM benches (lat_mmap,
//! lat_pagefault, lat_vm, lat_sig's protection fault): thin `#[inline]`
//! wrappers, `MAP_FAILED`/`-1` become `io::Error`, so a timed loop pays the
//! syscall and a compare.
//!
//! [`Region`] is an anonymous mapping as a safe type (lat_vm's regions):
//! nix's mman calls behind a type that never lends a reference into the
//! memory, so changing its protection or discarding its pages cannot break
//! a Rust reference. `map`/`unmap` stay raw `libc` calls with raw pointers:
//! lat_mmap, lat_pagefault and lat_vm's munmap time exactly those calls,
//! on ranges the caller carves up itself.

use std::ffi::c_void;
use std::io;
use std::num::NonZeroUsize;
use std::os::fd::RawFd;
use std::ptr::NonNull;

use nix::errno::Errno;
use nix::sys::mman::{self, MapFlags};
pub use nix::sys::mman::{MmapAdvise, ProtFlags};

/// `mmap(2)` of `len` bytes of `fd` from offset 0 (fd -1 with
/// MAP_ANONYMOUS). The caller unmaps it.
#[inline]
pub fn map(len: usize, prot: libc::c_int, flags: libc::c_int, fd: RawFd) -> io::Result<*mut u8> {
    // SAFETY: a NULL hint lets the kernel choose a fresh range; nothing
    // existing is replaced (no MAP_FIXED).
    let p = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, flags, fd, 0) };
    if p == libc::MAP_FAILED {
        Err(io::Error::last_os_error())
    } else {
        Ok(p.cast())
    }
}

/// `munmap(2)`.
///
/// # Safety
/// `[p, p + len)` must be a mapping of ours that nothing refers to anymore.
#[inline]
pub unsafe fn unmap(p: *mut u8, len: usize) -> io::Result<()> {
    // SAFETY: the caller's contract.
    Errno::result(unsafe { libc::munmap(p.cast(), len) })?;
    Ok(())
}

/// The non-null start of a range, as nix's mman calls take it.
#[inline]
fn start(p: *mut u8) -> io::Result<NonNull<c_void>> {
    NonNull::new(p.cast()).ok_or_else(|| Errno::EINVAL.into())
}

/// `mprotect(2)` of a range we mapped.
#[inline]
pub fn protect(p: *mut u8, len: usize, prot: libc::c_int) -> io::Result<()> {
    let prot = ProtFlags::from_bits_retain(prot);
    // SAFETY: changes protection only (no Rust reference is made here); an
    // invalid range is an error return.
    unsafe { mman::mprotect(start(p)?, len, prot) }.map_err(Into::into)
}

/// `madvise(2)` on a range we mapped, hints only: advice that discards
/// contents (MADV_DONTNEED, MADV_FREE, MADV_REMOVE) is refused, as a raw
/// range may hold referenced data ([`Region::advise`] takes any).
#[inline]
pub fn advise(p: *mut u8, len: usize, advice: MmapAdvise) -> io::Result<()> {
    if discards(advice) {
        return Err(io::Error::other(format!(
            "{advice:?} discards memory: use vm::Region"
        )));
    }
    // SAFETY: hints (checked above) change no memory contents; an invalid
    // range is an error return.
    unsafe { mman::madvise(start(p)?, len, advice) }.map_err(Into::into)
}

/// Advice after which the range may read back as zeroes.
#[inline]
fn discards(advice: MmapAdvise) -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if advice == MmapAdvise::MADV_REMOVE {
        return true;
    }
    matches!(advice, MmapAdvise::MADV_DONTNEED | MmapAdvise::MADV_FREE)
}

/// Fresh private anonymous read-write memory, unmapped on drop: `len`
/// bytes from an `align`-aligned start (the mapping is `len + align`
/// bytes; the part before the start and after the end stays unused).
///
/// Only addresses leave it, never a reference into the memory, so
/// [`Region::protect`] and [`Region::advise`] (MADV_DONTNEED included)
/// are safe: the worst a misuse can do is a SIGSEGV on a touch of a page
/// made read-only, never a changed value behind a reference.
#[derive(Debug)]
pub struct Region {
    map: NonNull<c_void>,
    map_len: usize,
    start: NonNull<u8>,
    len: usize,
}

impl Region {
    /// Maps `len + align` bytes (a non-zero `len`; `align` a power of two,
    /// or 0 for none) and keeps the `len` bytes from the first
    /// `align`-aligned address.
    pub fn anon(len: usize, align: usize) -> io::Result<Region> {
        let align = align.max(1);
        if len == 0 || !align.is_power_of_two() {
            return Err(io::Error::other(format!(
                "region of {len} bytes aligned to {align}: want a non-zero size and a power of two"
            )));
        }
        let map_len = len
            .checked_add(align)
            .and_then(NonZeroUsize::new)
            .ok_or_else(|| io::Error::other(format!("region of {len} bytes: too large")))?;
        // SAFETY: a fresh private anonymous mapping at a kernel-chosen
        // address (no hint, no MAP_FIXED): nothing existing changes.
        let map = unsafe {
            mman::mmap_anonymous(
                None,
                map_len,
                ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                MapFlags::MAP_PRIVATE,
            )
        }?;
        let skip = (map.as_ptr() as usize).next_multiple_of(align) - map.as_ptr() as usize;
        // skip < align, so start..start + len is inside the mapping.
        let start = NonNull::new(map.as_ptr().cast::<u8>().wrapping_add(skip))
            .ok_or_else(|| io::Error::other("mmap returned the last page of the address space"))?;
        Ok(Region {
            map,
            map_len: map_len.get(),
            start,
            len,
        })
    }

    /// Bytes usable from [`Region::addr`].
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never: a region has at least one byte.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The aligned start.
    pub fn addr(&self) -> *mut u8 {
        self.start.as_ptr()
    }

    /// `madvise(2)` of the whole region, any advice (MADV_DONTNEED gives
    /// back zeroed pages: nothing refers to their old contents).
    #[inline]
    pub fn advise(&self, advice: MmapAdvise) -> io::Result<()> {
        // SAFETY: the range is this region, inside our own mapping; no
        // reference into it exists (see the type's doc).
        unsafe { mman::madvise(self.start.cast(), self.len, advice) }.map_err(Into::into)
    }

    /// `mprotect(2)` of the whole region.
    #[inline]
    pub fn protect(&self, prot: ProtFlags) -> io::Result<()> {
        // SAFETY: as in advise: our own range, no reference into it.
        unsafe { mman::mprotect(self.start.cast(), self.len, prot) }.map_err(Into::into)
    }

    /// Writes 1 (volatile) to the first byte.
    #[inline]
    pub fn touch(&self) {
        // SAFETY: a region has at least one byte; see touch_every.
        unsafe { self.start.as_ptr().write_volatile(1) };
    }

    /// Writes 1 (volatile) to `n` bytes `step` apart from the start: the
    /// first write to a page faults it in. Panics unless all `n` are
    /// inside the region (checked once, before the first write).
    #[inline]
    pub fn touch_every(&self, step: usize, n: usize) {
        if n == 0 {
            return;
        }
        let last = (n - 1).checked_mul(step);
        assert!(
            last.is_some_and(|l| l < self.len),
            "{n} touches {step} bytes apart overrun a {}-byte region",
            self.len
        );
        let p = self.start.as_ptr();
        for i in 0..n {
            // SAFETY: i * step <= (n - 1) * step < len (asserted): inside
            // the region, which is mapped read-write unless the caller made
            // it read-only (then the write is a SIGSEGV, not a wrong value).
            unsafe { p.add(i * step).write_volatile(1) };
        }
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: exactly the mapping made in `anon`; only addresses were
        // lent out, and they die with the region.
        let _ = unsafe { mman::munmap(self.map, self.map_len) };
    }
}

/// Zeroed anonymous memory shared with the processes this one forks
/// (MAP_SHARED), lent out only as atomics, unmapped on drop: the futex
/// word of lat_wake's pair, the contended words and flags of the line
/// probe. A process that forks must drop its children (kill and reap)
/// before the memory they write goes away.
#[derive(Debug)]
pub struct SharedAtomics {
    p: NonNull<u8>,
    len: usize,
}

/// The types [`SharedAtomics::at`] lends: atomics, valid for any bits and
/// shared between processes as between threads.
pub trait SharedAtomic: Sync {}
impl SharedAtomic for std::sync::atomic::AtomicU32 {}
impl SharedAtomic for std::sync::atomic::AtomicU64 {}

impl SharedAtomics {
    /// Maps `len` bytes (a whole number of pages is what the kernel gives).
    pub fn new(len: usize) -> io::Result<SharedAtomics> {
        let p = map(
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
        )?;
        let p = NonNull::new(p).ok_or_else(|| io::Error::other("mmap returned address 0"))?;
        Ok(SharedAtomics { p, len })
    }

    #[inline]
    /// The atomic at byte `off` (page-aligned start: an offset aligned for
    /// `T` gives an aligned `T`). Panics when it is misaligned or outside.
    pub fn at<T: SharedAtomic>(&self, off: usize) -> &T {
        let size = std::mem::size_of::<T>();
        assert!(
            off.is_multiple_of(std::mem::align_of::<T>()) && off + size <= self.len,
            "{size}-byte atomic at {off} of {} shared bytes",
            self.len
        );
        // SAFETY: inside our live, zeroed, page-aligned mapping, aligned
        // for T (asserted); T is an atomic, valid for any bits, and only
        // shared references are lent.
        unsafe { &*self.p.as_ptr().add(off).cast::<T>() }
    }
}

impl Drop for SharedAtomics {
    fn drop(&mut self) {
        // SAFETY: exactly our mapping; only references bound to `self`
        // were lent, and they are gone.
        let _ = unsafe { unmap(self.p.as_ptr(), self.len) };
    }
}

/// The page size in bytes.
pub fn page_size() -> usize {
    match nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE) {
        Ok(Some(n)) if n > 0 => n as usize,
        _ => 4096,
    }
}

/// Memory the kernel says is available for new allocations (MemAvailable),
/// in bytes; `None` where it does not say.
pub fn mem_available() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let text = std::fs::read_to_string("/proc/meminfo").ok()?;
        let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// Bytes of the mapping that holds `addr` that the kernel backs with
/// anonymous transparent huge pages (its `AnonHugePages` line in
/// /proc/self/smaps): whether MADV_HUGEPAGE was granted, since THP may be
/// off (`never`) or the kernel may have no free 2 MiB page to give. None
/// where the OS does not say (not Linux, no smaps, no mapping at `addr`).
pub fn anon_huge_bytes(addr: *const u8) -> Option<u64> {
    smaps_bytes(addr, "AnonHugePages")
}

/// Bytes of the file mapping that holds `addr` that the kernel maps with
/// 2 MiB entries (its `FilePmdMapped` line in /proc/self/smaps): page-cache
/// large folios mapped whole, which give a reread through mmap the TLB
/// reach that THP gives anonymous memory. None where the OS does not say.
pub fn file_pmd_mapped_bytes(addr: *const u8) -> Option<u64> {
    smaps_bytes(addr, "FilePmdMapped")
}

/// The `field` (kB) of the mapping that holds `addr` in /proc/self/smaps,
/// in bytes.
fn smaps_bytes(addr: *const u8, field: &str) -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let text = std::fs::read_to_string("/proc/self/smaps").ok()?;
        smaps_field(&text, addr as u64, field)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (addr, field);
        None
    }
}

/// [`smaps_bytes`] from the text of an smaps file: the mapping whose
/// `start-end` header line covers `addr`, then its `field` (kB).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn smaps_field(smaps: &str, addr: u64, field: &str) -> Option<u64> {
    let mut inside = false;
    for line in smaps.lines() {
        let range = line.split_whitespace().next().and_then(|r| {
            let (a, b) = r.split_once('-')?;
            Some((
                u64::from_str_radix(a, 16).ok()?,
                u64::from_str_radix(b, 16).ok()?,
            ))
        });
        match range {
            // A mapping's header line (the field lines' first word ends in ':').
            Some((a, b)) if !line.starts_with(|c: char| c.is_ascii_uppercase()) => {
                inside = (a..b).contains(&addr);
            }
            _ if inside => {
                let value = line
                    .strip_prefix(field)
                    .and_then(|rest| rest.strip_prefix(':'));
                if let Some(kb) = value {
                    return kb
                        .trim()
                        .trim_end_matches("kB")
                        .trim()
                        .parse::<u64>()
                        .ok()
                        .map(|k| k * 1024);
                }
            }
            _ => {}
        }
    }
    None
}

/// Page faults of the calling thread so far, minor and major (getrusage
/// RUSAGE_THREAD; RUSAGE_SELF where threads are not counted apart).
///
/// Both, because Linux counts a fault it had to retry (FAULT_FLAG_TRIED:
/// the per-VMA lock fell back to mmap_lock, or the folio was locked) as
/// major even when no I/O happened: counting minor faults alone once read
/// "1 touches took no fault" for a touch of a fresh mapping of a cached
/// file (lat_pagefault/per_fault, default preset).
pub fn faults() -> io::Result<u64> {
    let ru = crate::sys::thread_usage()?;
    Ok(ru.minor_page_faults() as u64 + ru.major_page_faults() as u64)
}

#[cfg(test)]
mod tests;
