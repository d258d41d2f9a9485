//! lat_sig: signal handler installation and delivery.
//! Run: `cargo bench --bench lat_sig` (or `lmbench run lat_sig`).
//!
//! Method (lmbench's lat_sig):
//! - install: one sigaction(2) setting an empty handler for SIGUSR1.
//! - catch: kill(getpid(), SIGUSR1); the kernel delivers the signal on the
//!   way out of kill, the empty handler runs (it counts), sigreturn brings
//!   us back. The handler's count is checked after each interval, so a
//!   signal that was not delivered fails the bench instead of timing kill.
//! - kill: kill(getpid(), 0): the syscall without a signal. lmbench's
//!   "sig hndl" column is catch minus kill: the cost of delivery alone.
//!
//! Criterion's process is multi-threaded; a process-directed signal may be
//! delivered to any thread that does not block it. We block SIGUSR1 in no
//! thread, so delivery normally goes to the sending thread (Linux prefers
//! the current thread when it can take it), and the count check catches
//! the case where it did not arrive at all.

use std::sync::atomic::{AtomicU64, Ordering};

use criterion::{criterion_group, criterion_main, Criterion};
use lmbench_support::catalog::lat_sig::{self as cat, PROGRAM};
use lmbench_support::harness::{check, config, failed, timed_loop, Class, Group};
use lmbench_support::sys;

static CAUGHT: AtomicU64 = AtomicU64::new(0);

extern "C" fn count(_sig: libc::c_int) {
    // Async-signal-safe: one relaxed atomic add.
    CAUGHT.fetch_add(1, Ordering::Relaxed);
}

fn lat_sig(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Fast);

    g.bench(&cat::INSTALL, |iters| {
        timed_loop(&cat::INSTALL, iters, || {
            sys::sigaction(libc::SIGUSR1, count)
        })
    });

    check(
        &cat::CATCH,
        "install handler",
        sys::sigaction(libc::SIGUSR1, count),
    );
    let me = sys::getpid();
    g.bench(&cat::CATCH, |iters| {
        let before = CAUGHT.load(Ordering::Relaxed);
        let t = timed_loop(&cat::CATCH, iters, || sys::kill(me, libc::SIGUSR1));
        let caught = CAUGHT.load(Ordering::Relaxed) - before;
        if caught != iters {
            failed(
                &cat::CATCH,
                format_args!("sent {iters} signals, handler ran {caught} times"),
            );
        }
        t
    });

    g.bench(&cat::KILL, |iters| {
        timed_loop(&cat::KILL, iters, || sys::kill(me, 0))
    });
    check(
        &cat::CATCH,
        "restore SIGUSR1",
        sys::signal_default(libc::SIGUSR1),
    );
    g.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = lat_sig
}
criterion_main!(benches);
