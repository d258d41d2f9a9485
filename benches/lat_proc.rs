//! lat_proc: process creation (fork, fork+exec, fork+/bin/sh -c).
//! Run: `cargo bench --bench lat_proc` (or `lmbench run lat_proc`).
//!
//! Method (lmbench's lat_proc), timed inside `lmbench-peer proc`, a small
//! single-threaded helper started once per group, which reports the time
//! of N creations back over a pipe:
//! - fork: fork(2); the child calls the C library's exit(3) at once, as
//!   lmbench's does (its stdio and exit-handler walk writes to pages fork
//!   shared copy-on-write: on a 2-vCPU AMD EPYC guest a bare C loop read
//!   163-200 us with exit(3) and 139-172 with _exit(2), alternated); the
//!   parent waitpid(2)s.
//! - exec: fork; the child, stdout on /dev/null, execve(2)s
//!   `lmbench-exec-hello` with an empty environment; the parent waits. The
//!   target is as small as lmbench's C hello: `no_std`, `no_main`, linked
//!   against libc only, one write(2) (exec_targets/hello.rs, built by
//!   build.rs). A Rust std target added its runtime start-up: 1.48x the C
//!   suite's exec on the same machine.
//! - exec_static: the same with `lmbench-exec-exit`, static and libc-free
//!   (a raw exit syscall; Linux x86_64/aarch64, skipped elsewhere): the
//!   kernel's exec alone; exec minus exec_static is dynamic loading.
//! - shell: fork; the child execve(2)s `/bin/sh -c lmbench-exec-hello`
//!   with an empty environment; the parent waits.
//!
//! Why in the helper: fork copies the parent's page tables, so its cost
//! grows with the parent's address space; Criterion's process is large and
//! multi-threaded (and its child could only make async-signal-safe calls).
//! lmbench forks from its small benchmark process; so do we. Every child's
//! exit status is checked; a failed child fails the bench. A helper that
//! stops answering fails it too, after ten times the time its request
//! should take plus 10 s (`Peer::call_timed`).

use criterion::Criterion;
use lmbench_support::catalog::{lat_proc as cat, Metric};
use lmbench_support::child::Peer;
use lmbench_support::harness::{bench_peer_op, check, Class, Group};

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");
/// Built by build.rs (see there): libc-only hello, and the static exit
/// target (empty where it cannot be built).
const HELLO: &str = env!("LMBENCH_EXEC_HELLO");
const EXIT: &str = env!("LMBENCH_EXEC_EXIT");

fn lat_proc(c: &mut Criterion) {
    let mut peer = check(
        &cat::FORK,
        "start lmbench-peer",
        Peer::spawn(PEER, &["proc"]),
    );
    let mut g = Group::new(c, &cat::PROGRAM, Class::Slow);
    let cases: [(&'static Metric, String); 4] = [
        (&cat::FORK, "fork".to_string()),
        (&cat::EXEC, format!("exec {HELLO}")),
        (&cat::EXEC_STATIC, format!("exec {EXIT}")),
        (&cat::SHELL, format!("shell {HELLO}")),
    ];
    for (metric, op) in &cases {
        if op.ends_with(' ') {
            g.skip(metric, "no static exec target on this platform");
            continue;
        }
        // Checked once before timing: the peer creates and reaps one child.
        let (verb, arg) = op.split_once(' ').unwrap_or((op, ""));
        bench_peer_op(&mut g, &mut peer, metric, verb, arg);
    }
    g.finish();
}

lmbench_support::bench_main!(lat_proc);
