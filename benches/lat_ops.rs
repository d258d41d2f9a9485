//! lat_ops: the latency of basic arithmetic.
//! Run: `cargo bench --bench lat_ops` (or `lmbench run lat_ops`).
//!
//! Method: each metric is a chain `x = op(x)` of dependent operations
//! (`lmbench_support::ops`), 100 per unrolled block; one iteration is one
//! operation, so ns per iteration is the operation's latency. After every
//! step the value passes through an empty inline-asm statement that
//! pretends to rewrite it, so the compiler cannot fold the chain (lmbench's
//! own C chains are folded by modern compilers: its int add reads 0.00 ns).
//! The final value is checked against the chain's known fixed point or
//! range; a wrong value fails the bench. Each sample reports its fastest
//! chunk of 50K operations (times its count), so time slices of other
//! processes on a shared machine do not inflate the figure.
//!
//! bogomflops is lmbench's: not a chain but the throughput of
//! `x[i] = (1 + x[i]) * (1.5 - x[i]) / x[i]` over 1000 independent
//! elements (scalar volatile loads and stores); one iteration is one
//! element update, and the array's sum must stay 1000 (every element at
//! the expression's fixed point 1.0).
//!
//! Differences from lmbench: "mod" is timed as `N % x + C` and the table
//! subtracts the add chain. The clock is the mhz program's.

use std::time::Duration;

use criterion::Criterion;
use lmbench_support::catalog::lat_ops::{self as cat, PROGRAM};
use lmbench_support::catalog::Metric;
use lmbench_support::harness::{config, failed, Class, Group};
use lmbench_support::ops::Op;

#[path = "common/mod.rs"]
mod common;
use common::bench_op;

/// Operations per timed chunk (see `fastest_chunk`): 20-500 us.
const CHUNK: u64 = 50_000;

const OPS: [(&Metric, Op); 18] = [
    (&cat::INT_BIT, Op::IntBit),
    (&cat::INT_ADD, Op::IntAdd),
    (&cat::INT_MUL, Op::IntMul),
    (&cat::INT_DIV, Op::IntDiv),
    (&cat::INT_MOD, Op::IntMod),
    (&cat::INT64_BIT, Op::Int64Bit),
    (&cat::INT64_ADD, Op::Int64Add),
    (&cat::INT64_MUL, Op::Int64Mul),
    (&cat::INT64_DIV, Op::Int64Div),
    (&cat::INT64_MOD, Op::Int64Mod),
    (&cat::FLOAT_ADD, Op::FloatAdd),
    (&cat::FLOAT_MUL, Op::FloatMul),
    (&cat::FLOAT_DIV, Op::FloatDiv),
    (&cat::FLOAT_BOGO, Op::FloatBogo),
    (&cat::DOUBLE_ADD, Op::DoubleAdd),
    (&cat::DOUBLE_MUL, Op::DoubleMul),
    (&cat::DOUBLE_DIV, Op::DoubleDiv),
    (&cat::DOUBLE_BOGO, Op::DoubleBogo),
];

fn lat_ops(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    // Steady, sub-ns ops: shorter than Criterion's defaults (and no
    // per-op plots, which cost more than the measurement) keep the
    // program near half a minute.
    g.criterion()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for (metric, op) in OPS {
        let v = op.run(1000);
        if !op.plausible(v) {
            failed(metric, format_args!("{op:?} chain ended at {v}"));
        }
        bench_op(&mut g, metric, op, CHUNK);
    }
    g.finish();
}

lmbench_support::bench_main!(config = config().without_plots(); lat_ops);
