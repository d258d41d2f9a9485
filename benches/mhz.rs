//! mhz: the processor clock, measured.
//! Run: `cargo bench --bench mhz` (or `lmbench run mhz`).
//!
//! Method: two dependency chains of instructions that take one cycle on
//! every CPU this suite targets, 64-bit add and xor (the lat_ops chains of
//! `lmbench_support::ops`, unfoldable by the compiler); one iteration is
//! one instruction, so ns per iteration is the cycle time. The headline is
//! the minimum over samples, each its fastest chunk of 50K steps: a chunk
//! the scheduler did not interrupt runs at the clock. The summary reports 1000 / ns as Mhz only
//! when the two chains agree within 15 % (else the OS's nominal figure);
//! lmbench fits more chains, to the same end.

use criterion::Criterion;
use lmbench_support::catalog::mhz::{self as cat, PROGRAM};
use lmbench_support::harness::{Class, Group};
use lmbench_support::ops::Op;

#[path = "common/mod.rs"]
mod common;
use common::{bench_op, sweep_config, sweep_group};

/// Steps per timed chunk (see `fastest_chunk`): about 20 us.
const CHUNK: u64 = 50_000;

fn mhz(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    sweep_group(&mut g);
    for (metric, op) in [(&cat::ADD, Op::Int64Add), (&cat::XOR, Op::Int64Bit)] {
        bench_op(&mut g, metric, op, CHUNK);
    }
    g.finish();
}

lmbench_support::bench_main!(config = sweep_config(); mhz);
