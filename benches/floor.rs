//! floor: the bare operations of the suite as plain loops, the floor each
//! metric is judged against (`lmbench summary --floors`).
//! Run: `cargo bench --bench floor` (or `lmbench run floor`).
//!
//! Method: every loop runs in `lmbench-peer floor`, a small process that
//! never has a second thread. Asked `OP N`, it sets the operation up, reads
//! the clock, runs N operations in a plain loop (each result checked, as a
//! C loop would), reads the clock and replies the nanoseconds; Criterion
//! gets those through `iter_custom` (`harness::bench_peer_op`), so a floor
//! is a metric like any other (run.json, summary, compare) while its timed
//! region holds no Criterion closure, no per-sample bookkeeping and no
//! thread of the bench process. The request's line on a pipe is outside
//! the peer's clock. Why a long-lived peer rather than a fresh program per
//! sample: setup (scratch file, dups, echo child) is then done once per
//! request outside the clock, the round-trip echo child stays warm, and
//! no process start sits between samples; it is also how lat_proc and
//! lat_ctx already time themselves.
//!
//! Each floor does what its metric's catalog line says, with the same
//! setup: a 1-byte scratch file directly in the scratch root, as
//! lat_syscall's (`fs::ScratchFile::in_root`: the path depth of lmbench's
//! $FILE; created here, removed on drop) for stat, fstat, open and
//! select; 100 dups of it for select; for the round trips
//! an echo child forked by the peer, the peer started while this process
//! is bound to one CPU (`harness::on_one_cpu`, as lat_pipe/pinned and
//! lat_unix/pinned) so both ends share that CPU; for fork and exec the
//! same exec targets as lat_proc. lat_proc is itself timed in the same
//! kind of peer, so its ratio to the floor should be 1 by construction;
//! the floor there checks the request path adds nothing.
//!
//! The memory floors chase lat_mem_rd's random chains past the caches
//! in the same kind of peer (`peer::floor::chase`: its own shuffle,
//! a `Vec`, its own loop unrolled by 100 as lmbench's), sampled as
//! lat_mem_rd samples (many short flat samples, each its fastest 16K-load
//! chunk; the headline is the minimum), in a peer of their own so a
//! 1 GiB buffer never sits in the process that times fork. The 2 GiB
//! floors run where lat_mem_rd's top size is 2 GiB (its summary columns
//! read there). A chain is built (seconds at 1 GiB) only for
//! a selected floor; in Criterion's test mode they are skipped, as
//! lat_mem_rd skips its points above 1 MiB.
//!
//! Reading a ratio (metric / floor): near 1.0 the figure is the operating
//! system's; above 1 the excess is the suite's (its loop, its process, a
//! second thread); below 1 means run-to-run noise between the two
//! measurements (they are taken at different moments), which bounds how
//! far any ratio can be trusted.

use std::time::Duration;

use criterion::Criterion;
use lmbench_support::catalog::floor::{self as cat, PROGRAM};
use lmbench_support::catalog::Metric;
use lmbench_support::chase::criterion_listing;
use lmbench_support::child::Peer;
use lmbench_support::fs::ScratchFile;
use lmbench_support::harness::{bench_peer_op, check, on_one_cpu, test_mode, Class, Group};

#[path = "common/mod.rs"]
mod common;
use common::{sweep_group, Selection};

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");
/// Built by build.rs, as for lat_proc (EXIT is empty where it cannot be).
const HELLO: &str = env!("LMBENCH_EXEC_HELLO");
const EXIT: &str = env!("LMBENCH_EXEC_EXIT");

fn start(m: &'static Metric, file: &ScratchFile) -> Peer {
    let path = check(
        m,
        "scratch path",
        file.path()
            .to_str()
            .ok_or_else(|| format!("{} is not UTF-8", file.path().display())),
    );
    check(
        m,
        "start lmbench-peer floor",
        Peer::spawn(PEER, &["floor", path]),
    )
}

fn floor(c: &mut Criterion) {
    let file = check(&cat::STAT, "create scratch file", ScratchFile::in_root(1));

    let mut peer = start(&cat::NULL, &file);
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    for (m, op, arg) in [
        (&cat::NULL, "null", ""),
        (&cat::READ, "read", ""),
        (&cat::WRITE, "write", ""),
        (&cat::STAT, "stat", ""),
        (&cat::FSTAT, "fstat", ""),
        (&cat::OPEN, "open", ""),
        (&cat::SELECT_100, "select", "100"),
    ] {
        bench_peer_op(&mut g, &mut peer, m, op, arg);
    }
    g.finish();

    // Process creation: sampled as lat_proc is (Class::Slow).
    let mut g = Group::new(c, &PROGRAM, Class::Slow);
    bench_peer_op(&mut g, &mut peer, &cat::FORK, "fork", "");
    bench_peer_op(&mut g, &mut peer, &cat::EXEC, "exec", HELLO);
    if EXIT.is_empty() {
        g.skip(&cat::EXEC_STATIC, "no static exec target on this platform");
    } else {
        bench_peer_op(&mut g, &mut peer, &cat::EXEC_STATIC, "exec", EXIT);
    }
    g.finish();
    drop(peer);

    // Round trips with both ends on one CPU: a peer started while bound.
    for (m, op) in [(&cat::PIPE_PINNED, "pipe"), (&cat::UNIX_PINNED, "unix")] {
        on_one_cpu(c, &PROGRAM, &[m], |c| {
            let mut peer = start(m, &file);
            let mut g = Group::new(c, &PROGRAM, Class::Fast);
            bench_peer_op(&mut g, &mut peer, m, op, "");
            g.finish();
        });
    }
    chases(c, &file);
    drop(file);
}

/// The memory floors, each beside its lat_mem_rd point.
fn chases(c: &mut Criterion, file: &ScratchFile) {
    let (selected, listing) = (Selection::from_args(), criterion_listing());
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    sweep_group(&mut g);
    let mut peer = None;
    let top = lmbench_support::chase::machine_top_size().0;
    for m in [
        &cat::THRASH_1G,
        &cat::PAGE_1G,
        &cat::INPAGE_1G,
        &cat::THRASH_2G,
        &cat::PAGE_2G,
        &cat::INPAGE_2G,
        &cat::INPAGE_16M,
    ] {
        // `floor/<shape>/<size>`: the peer's request is `<shape> <size>`.
        let (shape, size_id) = m.function_and_parameter();
        let size_id = size_id.expect("a memory floor names its size");
        let size = lmbench_support::size::parse(size_id).expect("catalog sizes parse");
        let chain = format!("{shape} {size_id}");
        if listing {
            g.bench(m, |_| Duration::ZERO); // listed, never run
        } else if test_mode() {
            g.skip(m, "test mode");
        } else if size > top {
            g.skip(m, "above this machine's lat_mem_rd top size");
        } else if selected.wants(m.id) {
            let peer = peer.get_or_insert_with(|| start(m, file));
            bench_peer_op(&mut g, peer, m, "chase", &chain);
        }
    }
    g.finish();
}

lmbench_support::bench_main!(floor);
