//! Virtual-memory system calls for the VM benches (lat_mmap,
//! lat_pagefault, lat_sig's protection fault): thin `#[inline]` wrappers,
//! `MAP_FAILED`/`-1` become `io::Error`, so a timed loop pays the syscall
//! and a compare.

use std::io;
use std::os::fd::RawFd;

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
    if unsafe { libc::munmap(p.cast(), len) } != 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// `mprotect(2)` of a range we mapped.
#[inline]
pub fn protect(p: *mut u8, len: usize, prot: libc::c_int) -> io::Result<()> {
    // SAFETY: changes protection only; an invalid range is an error return.
    if unsafe { libc::mprotect(p.cast(), len, prot) } != 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// `madvise(2)` on a range we mapped (advice that never discards data).
#[inline]
pub fn advise(p: *mut u8, len: usize, advice: libc::c_int) -> io::Result<()> {
    // SAFETY: the benches pass only hints (MADV_RANDOM...), which change
    // no memory contents; an invalid range is an error return.
    if unsafe { libc::madvise(p.cast(), len, advice) } != 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// The page size in bytes.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no memory arguments.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 {
        n as usize
    } else {
        4096
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

/// Page faults of the calling thread so far, minor and major (getrusage
/// RUSAGE_THREAD; RUSAGE_SELF where threads are not counted apart).
///
/// Both, because Linux counts a fault it had to retry (FAULT_FLAG_TRIED:
/// the per-VMA lock fell back to mmap_lock, or the folio was locked) as
/// major even when no I/O happened: counting minor faults alone once read
/// "1 touches took no fault" for a touch of a fresh mapping of a cached
/// file (lat_pagefault/per_fault, default preset).
pub fn faults() -> io::Result<u64> {
    #[cfg(target_os = "linux")]
    let who = libc::RUSAGE_THREAD;
    #[cfg(not(target_os = "linux"))]
    let who = libc::RUSAGE_SELF;
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: ru is valid for one struct rusage.
    if unsafe { libc::getrusage(who, ru.as_mut_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: getrusage succeeded and filled it.
    let ru = unsafe { ru.assume_init() };
    Ok(ru.ru_minflt as u64 + ru.ru_majflt as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_touch_count_unmap() {
        let page = page_size();
        let p = map(
            4 * page,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
        )
        .unwrap();
        let before = faults().unwrap();
        for i in 0..4 {
            // SAFETY: inside the 4-page mapping.
            unsafe { p.add(i * page).write_volatile(1) };
        }
        assert!(faults().unwrap() > before);
        advise(p, 4 * page, libc::MADV_RANDOM).unwrap();
        protect(p, 4 * page, libc::PROT_READ).unwrap();
        // SAFETY: nothing refers to the mapping anymore.
        unsafe { unmap(p, 4 * page) }.unwrap();
        assert!(map(
            0,
            libc::PROT_READ,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1
        )
        .is_err());
    }
}
