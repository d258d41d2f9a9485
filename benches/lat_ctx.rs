//! lat_ctx: context switching, a token passed round a ring of processes.
//! Run: `cargo bench --bench lat_ctx` (or `lmbench run lat_ctx`).
//!
//! Method (lmbench's lat_ctx), run inside `lmbench-peer ctx P K`: that
//! small process forks P-1 ring members and is itself member 0; P pipes
//! form the ring. Each member owns a private K KB working set (zeroed
//! once) and sums it one 8-byte word at a time (scalar: volatile loads, as
//! lmbench's C loop, never vectorised) every time the 4-byte token reaches it,
//! then passes the token on. One timed iteration = one trip round the ring
//! = P hand-offs; one untimed trip precedes each interval.
//! - overhead/K: in one process, write the token to a pipe, read it back,
//!   sum the K KB set: the cost of a hand-off minus the switch.
//! - unpinned/Pp_Kk: lmbench's placement (the scheduler's choice).
//! - pinned/Pp_Kk: (Linux) the ring's process binds itself to one CPU
//!   before forking, so every member runs there: each hand-off is a real
//!   switch on one CPU, not a wake-up of a process on another CPU.
//!
//! The saved figures are RAW ring trips; the summary tables compute
//! lmbench's figure, trip / P - overhead(K) (see `catalog::tables::ctx`).
//! Why in the helper: ring members should be small fresh processes (as
//! lmbench's forked children are), not forks of Criterion's big process.
//! A member that dies breaks the ring: the helper answers `err` and the
//! bench fails with the metric id; a silent helper fails after 10 s.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use lmbench_support::catalog::lat_ctx::{self as cat, PROGRAM, SHAPES};
use lmbench_support::catalog::Metric;
use lmbench_support::harness::{check, config, Class, Group};
use lmbench_support::proc::Peer;

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");
/// One request runs one sampling interval; none lasts anywhere near this.
const TIMEOUT: Duration = Duration::from_secs(10);

fn ring(g: &mut Group, metric: &'static Metric, args: &[&str], verb: &str) {
    let mut peer = check(metric, "start lmbench-peer ctx", Peer::spawn(PEER, args));
    check(metric, "ring ready", peer.call("ping", TIMEOUT));
    check(
        metric,
        "untimed pass",
        peer.call(&format!("{verb} 1"), TIMEOUT),
    );
    g.bench(metric, |iters| {
        let ns = check(
            metric,
            "ring",
            peer.call_u64(&format!("{verb} {iters}"), TIMEOUT),
        );
        Duration::from_nanos(ns)
    });
}

fn lat_ctx(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    // 17 benchmarks: shorter intervals than Criterion's default keep the
    // group to about a minute.
    g.criterion()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for (k, metric) in [(0, &cat::OVH_0K), (16, &cat::OVH_16K), (64, &cat::OVH_64K)] {
        ring(&mut g, metric, &["ctx", "1", &k.to_string()], "overhead");
    }
    for (p, k, unpinned, pinned, _) in SHAPES {
        let (p, k) = (p.to_string(), k.to_string());
        ring(&mut g, unpinned, &["ctx", &p, &k], "run");
        if cfg!(target_os = "linux") {
            ring(&mut g, pinned, &["ctx", &p, &k, "pin"], "run");
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = lat_ctx
}
criterion_main!(benches);
