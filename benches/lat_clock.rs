//! lat_clock (beyond lmbench): the cost of reading the monotonic clock.
//! Run: `cargo bench --bench lat_clock` (or `lmbench run lat_clock`).
//!
//! Each iteration reads the clock once; every return value is checked.
//! - vdso: `clock_gettime(CLOCK_MONOTONIC)` through libc, which reads the
//!   clocksource from the vDSO without entering the kernel when it can.
//! - syscall: the same clock as a raw `syscall(SYS_clock_gettime)`.
//! - coarse: `CLOCK_MONOTONIC_COARSE` through libc (the last tick's time).
//!
//! vdso close to syscall means the clocksource (machine fact
//! `clocksource`) cannot be read from user space and the vDSO falls back
//! to the system call: news for anyone timing anything on this machine.

use criterion::Criterion;
use lmbench_support::catalog::lat_clock::{self as cat, PROGRAM};
use lmbench_support::harness::{check, Class, Group};
use lmbench_support::kpath;

fn lat_clock(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    check(&cat::VDSO, "one thread", kpath::require_one_thread());
    g.bench_loop(&cat::VDSO, || kpath::clock_libc(libc::CLOCK_MONOTONIC));
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        g.bench_loop(&cat::SYSCALL, || {
            kpath::clock_syscall(libc::CLOCK_MONOTONIC)
        });
        g.bench_loop(&cat::COARSE, || {
            kpath::clock_libc(libc::CLOCK_MONOTONIC_COARSE)
        });
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        g.skip(
            &cat::SYSCALL,
            "the raw clock_gettime syscall is Linux-only here",
        );
        g.skip(&cat::COARSE, "CLOCK_MONOTONIC_COARSE is Linux-only");
    }
    g.finish();
}

lmbench_support::bench_main!(lat_clock);
