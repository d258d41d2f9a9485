//! lat_uring (beyond lmbench): io_uring beside the classic system call.
//! Run: `cargo bench --bench lat_uring` (or `lmbench run lat_uring`).
//!
//! Setup (untimed): an 8-entry ring (no SQPOLL: no kernel thread, every
//! submission is an io_uring_enter of this process), a 64 KiB scratch file
//! written and read once, so its pages are cached, and a page-aligned
//! buffer. Each iteration:
//! - nop: queue one NOP, `submit_and_wait(1)`, reap its completion; its
//!   result must be 0.
//! - read_4k: queue one READ of 4 KiB at offset 0, submit and wait, reap;
//!   its result must be 4096 (a cached read completes inline).
//! - pread_4k: one pread(2) of the same 4 KiB; must return 4096.
//!
//! If the ring cannot be created or a NOP fails (kernel.io_uring_disabled,
//! seccomp, a kernel before 5.6), nop and read_4k are skipped with that
//! reason; pread_4k is measured anyway.

use criterion::Criterion;
use lmbench_support::catalog::lat_uring::{self as cat, PROGRAM};
use lmbench_support::fs::ScratchFile;
use lmbench_support::harness::{check, Class, Group};
use lmbench_support::kpath;

const LEN: usize = 4096;

#[cfg(target_os = "linux")]
mod uring {
    use std::io;

    use io_uring::{opcode, squeue, types, IoUring};

    /// Pushes `entry`, submits it, waits for its completion and returns
    /// its result.
    #[inline]
    pub fn once(ring: &mut IoUring, entry: &squeue::Entry) -> io::Result<i32> {
        // SAFETY: the entry's buffers (if any) outlive the completion,
        // which is reaped before returning.
        unsafe { ring.submission().push(entry) }
            .map_err(|_| io::Error::other("submission queue full"))?;
        ring.submit_and_wait(1)?;
        let cqe = ring
            .completion()
            .next()
            .ok_or_else(|| io::Error::other("no completion after waiting for one"))?;
        Ok(cqe.result())
    }

    /// The ring, or why io_uring cannot be used here.
    pub fn ring() -> Result<IoUring, String> {
        let disabled = std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled")
            .map(|s| format!("kernel.io_uring_disabled = {}", s.trim()))
            .unwrap_or_else(|_| "no kernel.io_uring_disabled sysctl".into());
        let mut ring = IoUring::new(8).map_err(|e| {
            format!("io_uring_setup failed: {e} ({disabled}; a seccomp filter or a kernel before 5.6 also refuse it)")
        })?;
        match once(&mut ring, &nop()) {
            Ok(0) => Ok(ring),
            Ok(r) => Err(format!("a NOP completed with {r} ({disabled})")),
            Err(e) => Err(format!("io_uring_enter failed: {e} ({disabled})")),
        }
    }

    pub fn nop() -> squeue::Entry {
        opcode::Nop::new().build()
    }

    pub fn read(fd: i32, buf: *mut u8, len: usize) -> squeue::Entry {
        opcode::Read::new(types::Fd(fd), buf, len as u32)
            .offset(0)
            .build()
    }
}

fn lat_uring(c: &mut Criterion) {
    use std::os::fd::AsRawFd;

    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    let file = check(&cat::PREAD_4K, "scratch file", ScratchFile::new(64 * 1024));
    let f = check(&cat::PREAD_4K, "open", std::fs::File::open(file.path()));
    let fd = f.as_raw_fd();
    let mut buf = vec![0u64; LEN / 8];
    let p = buf.as_mut_ptr().cast::<u8>();
    let pread = move || -> Result<(), String> {
        // SAFETY: p is valid for LEN bytes (buf outlives every call).
        match unsafe { libc::pread(fd, p.cast(), LEN, 0) } {
            n if n == LEN as isize => Ok(()),
            n if n < 0 => Err(std::io::Error::last_os_error().to_string()),
            n => Err(format!("pread returned {n}, want {LEN}")),
        }
    };
    check(&cat::PREAD_4K, "untimed pread", pread());
    check(&cat::PREAD_4K, "one thread", kpath::require_one_thread());

    #[cfg(target_os = "linux")]
    match uring::ring() {
        Ok(mut ring) => {
            let nop = uring::nop();
            g.bench_loop(&cat::NOP, || match uring::once(&mut ring, &nop) {
                Ok(0) => Ok(()),
                Ok(r) => Err(format!("NOP completed with {r}")),
                Err(e) => Err(e.to_string()),
            });
            let read = uring::read(fd, p, LEN);
            let m = &cat::READ_4K;
            check(m, "untimed read", uring::once(&mut ring, &read));
            g.bench_loop(m, || match uring::once(&mut ring, &read) {
                Ok(n) if n == LEN as i32 => Ok(()),
                Ok(r) => Err(format!("read completed with {r}, want {LEN}")),
                Err(e) => Err(e.to_string()),
            });
        }
        Err(why) => {
            g.skip(&cat::NOP, &why);
            g.skip(&cat::READ_4K, &why);
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        g.skip(&cat::NOP, "io_uring is Linux's");
        g.skip(&cat::READ_4K, "io_uring is Linux's");
    }

    g.bench_loop(&cat::PREAD_4K, pread);
    g.finish();
    drop(buf);
}

lmbench_support::bench_main!(lat_uring);
