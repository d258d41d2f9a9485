//! lat_spawn (beyond lmbench): thread and process creation beside
//! lat_proc's fork and exec.
//! Run: `cargo bench --bench lat_spawn` (or `lmbench run lat_spawn`).
//!
//! Timed inside `lmbench-peer spawn`, a small single-threaded helper (as
//! lat_proc): fork's cost grows with the parent, so creation is timed from a
//! small process, and the fork_256m case from a helper that first wrote
//! 256 MiB of private 4 KiB pages (`lmbench-peer spawn 256`).
//! - thread: pthread_create (default attributes: glibc reuses the cached
//!   stack) of a thread that returns at once, then pthread_join.
//! - posix_spawn: of `lmbench-exec-hello` (empty environment, stdout on
//!   /dev/null); glibc implements it with clone(CLONE_VM|CLONE_VFORK).
//! - vfork_exec: vfork, then execve of `lmbench-exec-hello` in the child.
//! - fork_256m: fork of the 256 MiB helper; the child _exits at once.
//!   Compare with lat_proc/fork (the same from a small process).
//!
//! Every child's exit status is checked; a failure fails the bench.

use std::time::Duration;

use criterion::Criterion;
use lmbench_support::catalog::lat_spawn::{self as cat, PROGRAM};
use lmbench_support::child::Peer;
use lmbench_support::harness::{bench_peer_op, check, Class, Group};

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");
// The same libc-only hello lat_proc execs (exec_targets/hello.rs), so
// posix_spawn and vfork+exec compare with lat_proc/exec.
const HELLO: &str = env!("LMBENCH_EXEC_HELLO");

fn lat_spawn(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Slow);
    g.criterion()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(4));
    let mut small = check(
        &cat::THREAD,
        "start lmbench-peer",
        Peer::spawn(PEER, &["spawn"]),
    );
    bench_peer_op(&mut g, &mut small, &cat::THREAD, "thread", "");
    bench_peer_op(&mut g, &mut small, &cat::POSIX_SPAWN, "posix_spawn", HELLO);
    if cfg!(any(target_os = "linux", target_os = "android")) {
        bench_peer_op(&mut g, &mut small, &cat::VFORK_EXEC, "vfork", HELLO);
    } else {
        g.skip(&cat::VFORK_EXEC, "vfork is measured on Linux only");
    }
    drop(small);
    let m = &cat::FORK_256M;
    let mut big = check(
        m,
        "start lmbench-peer spawn 256",
        Peer::spawn(PEER, &["spawn", "256"]),
    );
    check(
        m,
        "256 MiB written",
        big.call("ping", Duration::from_secs(60)),
    );
    bench_peer_op(&mut g, &mut big, m, "fork", "");
    g.finish();
}

lmbench_support::bench_main!(lat_spawn);
