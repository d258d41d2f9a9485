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
//! - catch_siginfo: catch with the handler kind the protection fault
//!   needs (SA_SIGINFO|SA_ONSTACK, three arguments; Rust's runtime gives
//!   the main thread an alternate stack, so it runs there), so "Prot
//!   Fault" subtracts the delivery it actually pays.
//!
//! - prot (Linux, `lmbench_support::protfault`): a protection fault. One
//!   page mapped read-only (read once, so its entry is present); a SIGSEGV
//!   handler (SA_SIGINFO) counts the faults on that page and returns, so
//!   the store is retried and faults again. One timed interval of N
//!   iterations is ONE store instruction that faults N times. How the
//!   handler leaves the loop: at the N-th fault it mprotect(2)s the page
//!   read/write, so the N-th retry succeeds and the store completes. The
//!   count is checked to be N after each interval, and the page is made
//!   read-only again (untimed). lmbench instead ends the interval from
//!   inside the handler; a siglongjmp out of the handler is not expressible
//!   in Rust (setjmp returns twice). The handler is async-signal-safe:
//!   atomics, mprotect and sigaction, plain system calls with no user-space
//!   state (POSIX lists sigaction but not mprotect; on Linux both are bare
//!   syscalls). A SIGSEGV at any other address is a real crash: the
//!   handler puts the previous disposition back (Rust's stack-overflow
//!   reporter, or the default) and returns, the instruction faults again
//!   and is reported as it would have been (a test checks the process dies
//!   of SIGSEGV). The previous disposition is restored when the bench ends,
//!   also on panic. If mprotect failed, the handler does the same, so the
//!   bench crashes loudly instead of looping.
//!   The summary's "Prot Fault" is prot minus the signal handling figure
//!   of the same handler kind (catch_siginfo - kill): the fault replaces
//!   kill as the way into the kernel, so only the delivery, handler and
//!   sigreturn are subtracted; prot minus catch would also subtract a
//!   kill syscall the fault never made.
//!
//! The bench's process has one thread (Criterion times on the main thread
//! and starts none; `LMBENCH_CHECK_THREADS=1` makes the harness check it
//! around every timed call), so a process-directed signal is delivered to
//! the thread that sent it, and the count check catches the case where it
//! did not arrive at all.

use std::sync::atomic::{AtomicU64, Ordering};

use criterion::Criterion;
use lmbench_support::catalog::lat_sig::{self as cat, PROGRAM};
use lmbench_support::harness::{check, failed, timed_loop, Class, Group};
use lmbench_support::sys;

static CAUGHT: AtomicU64 = AtomicU64::new(0);

extern "C" fn count(_sig: libc::c_int) {
    // Async-signal-safe: one relaxed atomic add.
    CAUGHT.fetch_add(1, Ordering::Relaxed);
}

extern "C" fn count_info(_sig: libc::c_int, _: *mut libc::siginfo_t, _: *mut libc::c_void) {
    CAUGHT.fetch_add(1, Ordering::Relaxed);
}

/// Installs [`count_info`] for SIGUSR1 as protfault installs its SIGSEGV
/// handler: SA_SIGINFO|SA_ONSTACK, empty mask.
fn install_info() -> std::io::Result<()> {
    use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};
    // SigHandler::SigAction adds SA_SIGINFO.
    let sa = SigAction::new(
        SigHandler::SigAction(count_info),
        SaFlags::SA_ONSTACK,
        SigSet::empty(),
    );
    // SAFETY: the handler has the three-argument signature SA_SIGINFO
    // expects and is async-signal-safe (one atomic add).
    unsafe { sigaction(Signal::SIGUSR1, &sa) }?;
    Ok(())
}

/// `iters` self-signals of SIGUSR1, each checked to have run the handler.
fn catch(
    metric: &'static lmbench_support::catalog::Metric,
    me: libc::pid_t,
    iters: u64,
) -> std::time::Duration {
    let before = CAUGHT.load(Ordering::Relaxed);
    let t = timed_loop(metric, iters, || sys::kill(me, libc::SIGUSR1));
    let caught = CAUGHT.load(Ordering::Relaxed) - before;
    if caught != iters {
        failed(
            metric,
            format_args!("sent {iters} signals, handler ran {caught} times"),
        );
    }
    t
}

fn lat_sig(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Fast);

    g.bench_loop(&cat::INSTALL, || sys::sigaction(libc::SIGUSR1, count));

    check(
        &cat::CATCH,
        "install handler",
        sys::sigaction(libc::SIGUSR1, count),
    );
    let me = sys::getpid();
    g.bench(&cat::CATCH, |iters| catch(&cat::CATCH, me, iters));
    check(&cat::CATCH_SIGINFO, "install handler", install_info());
    g.bench(&cat::CATCH_SIGINFO, |iters| {
        catch(&cat::CATCH_SIGINFO, me, iters)
    });

    g.bench_loop(&cat::KILL, || sys::kill(me, 0));
    check(
        &cat::CATCH,
        "restore SIGUSR1",
        sys::signal_default(libc::SIGUSR1),
    );
    #[cfg(target_os = "linux")]
    prot::bench(&mut g);
    g.finish();
}

/// The protection-fault bench (see lmbench_support::protfault).
#[cfg(target_os = "linux")]
mod prot {
    use lmbench_support::catalog::lat_sig as cat;
    use lmbench_support::harness::{check, failed, Group};
    use lmbench_support::protfault::ProtPage;

    pub fn bench(g: &mut Group<'_>) {
        let m = &cat::PROT;
        let page = check(
            m,
            "map a page, install the SIGSEGV handler",
            ProtPage::arm(),
        );
        g.bench(m, |iters| {
            let (t, counted) = check(m, "make the page read-only", page.fault(iters));
            if counted != iters {
                failed(
                    m,
                    format_args!(
                        "{iters} protection faults expected, the handler counted {counted}"
                    ),
                );
            }
            t
        });
        // Dropping `page` restores the previous SIGSEGV disposition.
    }
}

lmbench_support::bench_main!(lat_sig);
