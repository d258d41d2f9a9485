//! Protection faults for `lat_sig prot`: one read-only page and a counting
//! SIGSEGV handler. Linux only (other systems report such a store as
//! SIGBUS, or put the address elsewhere).
//!
//! How the handler leaves the loop: one timed store instruction faults N
//! times. The handler counts each fault on our page and returns, so the
//! store is retried and faults again; at the N-th fault it mprotect(2)s the
//! page read/write, so the N-th retry succeeds and the store completes.
//! (lmbench ends the interval from inside the handler; a siglongjmp out of
//! the handler is not expressible in Rust, where setjmp returning twice is
//! undefined behaviour.)
//!
//! Async-signal-safety: the handler only loads and adds atomics and makes
//! two plain system calls, mprotect and sigaction, which keep no user-space
//! state (POSIX lists sigaction; mprotect is not in its list but is a bare
//! syscall on Linux). A SIGSEGV at any other address is a real crash: the
//! handler puts the previous disposition back (Rust's stack-overflow
//! reporter, or the default) and returns, so the instruction faults again
//! and is reported as it would have been. If mprotect failed, it does the
//! same, so the bench crashes loudly instead of looping forever. The
//! previous disposition is restored when the [`ProtPage`] drops (also
//! during a panic's unwinding).

use std::cell::UnsafeCell;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use crate::vm;

/// One ProtPage at a time: the handler's state is process-wide.
static ARMED: AtomicBool = AtomicBool::new(false);
/// The read-only page (0: none) and its length.
static PAGE: AtomicUsize = AtomicUsize::new(0);
static PAGE_LEN: AtomicUsize = AtomicUsize::new(0);
/// Faults on PAGE so far in this interval, and how many end it.
static FAULTS: AtomicU64 = AtomicU64::new(0);
static TARGET: AtomicU64 = AtomicU64::new(0);

/// The SIGSEGV disposition before ours: written by the sigaction call that
/// installs our handler, before the handler can run; only read afterwards.
struct Prev(UnsafeCell<std::mem::MaybeUninit<libc::sigaction>>);
// SAFETY: written once before any reader can run (see above); ARMED keeps
// a second writer out while a ProtPage lives.
unsafe impl Sync for Prev {}
static PREV: Prev = Prev(UnsafeCell::new(std::mem::MaybeUninit::uninit()));

fn restore_previous() {
    // SAFETY: PREV was filled when our handler was installed (the handler
    // and the guard run only after that); sigaction is async-signal-safe.
    unsafe {
        libc::sigaction(
            libc::SIGSEGV,
            (*PREV.0.get()).as_ptr(),
            std::ptr::null_mut(),
        )
    };
}

extern "C" fn on_segv(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: with SA_SIGINFO the kernel passes a valid siginfo.
    let addr = unsafe { (*info).si_addr() } as usize;
    let page = PAGE.load(Relaxed);
    let len = PAGE_LEN.load(Relaxed);
    if page == 0 || addr < page || addr >= page + len {
        // Not our page: a real crash. Return to it under the old handler.
        restore_previous();
        return;
    }
    let n = FAULTS.fetch_add(1, Relaxed) + 1;
    if n >= TARGET.load(Relaxed) {
        // The interval's last fault: let the retried store succeed.
        let rw = libc::PROT_READ | libc::PROT_WRITE;
        // SAFETY: our mapping; only its protection changes.
        if unsafe { libc::mprotect(page as *mut libc::c_void, len, rw) } != 0 {
            restore_previous();
        }
    }
}

/// A read-only page with our SIGSEGV handler installed, until drop: then
/// the previous disposition is back and the page unmapped.
pub struct ProtPage {
    page: *mut u8,
    len: usize,
}

impl ProtPage {
    /// Maps the page, reads it (its entry is then present, as for a page
    /// in use), installs the handler. Fails if another ProtPage lives.
    pub fn arm() -> io::Result<ProtPage> {
        if ARMED.swap(true, Relaxed) {
            return Err(io::Error::other("a ProtPage is already armed"));
        }
        let len = vm::page_size();
        let anon = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
        let page = match vm::map(len, libc::PROT_READ, anon, -1) {
            Ok(p) => p,
            Err(e) => {
                ARMED.store(false, Relaxed);
                return Err(e);
            }
        };
        // SAFETY: the page is mapped readable.
        unsafe { page.read_volatile() };
        PAGE_LEN.store(len, Relaxed);
        PAGE.store(page as usize, Relaxed);
        // SAFETY: a zeroed sigaction is "no flags, empty mask"; on_segv has
        // the three-argument SA_SIGINFO signature; PREV is written by this
        // call, before our handler can run.
        let r = unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_segv as *const () as usize;
            // SA_ONSTACK: on a thread's alternate stack when it has one, so
            // a real stack overflow still reaches Rust's reporter.
            sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(libc::SIGSEGV, &sa, (*PREV.0.get()).as_mut_ptr())
        };
        if r != 0 {
            let e = io::Error::last_os_error();
            PAGE.store(0, Relaxed);
            // SAFETY: our page, unused.
            let _ = unsafe { vm::unmap(page, len) };
            ARMED.store(false, Relaxed);
            return Err(e);
        }
        Ok(ProtPage { page, len })
    }

    /// Makes the page read-only (untimed), then times one store that
    /// faults `n` times. Returns the time and the faults the handler
    /// counted (the caller checks it is `n`).
    pub fn fault(&self, n: u64) -> io::Result<(Duration, u64)> {
        vm::protect(self.page, self.len, libc::PROT_READ)?;
        FAULTS.store(0, Relaxed);
        TARGET.store(n.max(1), Relaxed);
        let start = Instant::now();
        // SAFETY: a mapped page; the store faults until on_segv makes the
        // page writable, then completes.
        unsafe { self.page.write_volatile(1) };
        let t = start.elapsed();
        Ok((t, FAULTS.load(Relaxed)))
    }
}

impl Drop for ProtPage {
    fn drop(&mut self) {
        restore_previous();
        PAGE.store(0, Relaxed);
        // SAFETY: our page; the handler no longer claims it.
        let _ = unsafe { vm::unmap(self.page, self.len) };
        ARMED.store(false, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn current_handler() -> usize {
        // SAFETY: a NULL new action only queries the current one.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            assert_eq!(
                libc::sigaction(libc::SIGSEGV, std::ptr::null(), &mut old),
                0
            );
            old.sa_sigaction
        }
    }

    const CHILD: &str = "LMBENCH_PROTFAULT_CRASH_CHILD";

    #[test]
    fn counts_faults_and_restores_the_previous_handler() {
        if std::env::var_os(CHILD).is_some() {
            return; // the crash child runs the other test only
        }
        let before = current_handler();
        let p = ProtPage::arm().unwrap();
        assert!(ProtPage::arm().is_err(), "one at a time");
        assert_eq!(current_handler(), on_segv as *const () as usize);
        for n in [1, 7, 1000] {
            let (_, counted) = p.fault(n).unwrap();
            assert_eq!(counted, n);
        }
        drop(p);
        assert_eq!(current_handler(), before);
    }

    /// A SIGSEGV elsewhere while armed still kills the process with
    /// SIGSEGV. Runs itself as a child process to watch it die.
    #[test]
    fn a_real_crash_elsewhere_is_still_a_crash() {
        if std::env::var_os(CHILD).is_some() {
            let _armed = ProtPage::arm().unwrap();
            let len = vm::page_size();
            let anon = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
            let other = vm::map(len, libc::PROT_NONE, anon, -1).unwrap();
            // SAFETY: none: this is the crash under test.
            unsafe { other.read_volatile() };
            std::process::exit(0); // not reached if the crash is reported
        }
        use std::os::unix::process::ExitStatusExt;
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "protfault::tests::a_real_crash_elsewhere_is_still_a_crash",
                "--test-threads=1",
            ])
            .env(CHILD, "1")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert_eq!(status.signal(), Some(libc::SIGSEGV), "{status:?}");
    }
}
