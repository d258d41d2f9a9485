//! lat_ops: the latency of basic arithmetic, as dependency chains the
//! compiler cannot fold (see `ops.rs`), and lmbench's bogomflops (a
//! throughput; ids `bogomflops`, which replaced a dependent multiply-add
//! chain under ids `bogo`). Ids: `lat_ops/<type>/<op>`.
use super::{Metric, Program, Unit::Nanos};

macro_rules! op {
    ($name:ident, $id:literal, $timed:literal) => {
        pub static $name: Metric = Metric::median($id, Nanos, $timed);
    };
}

op!(
    INT_BIT,
    "lat_ops/int/bit",
    "one 32-bit int x = x ^ k, each step fed by the last"
);
op!(
    INT_ADD,
    "lat_ops/int/add",
    "one 32-bit int x = x + k, each step fed by the last"
);
op!(
    INT_MUL,
    "lat_ops/int/mul",
    "one 32-bit int x = x * k, each step fed by the last"
);
op!(
    INT_DIV,
    "lat_ops/int/div",
    "one 32-bit int x = N / x (fixed point sqrt N), each step fed by the last"
);
op!(
    INT_MOD,
    "lat_ops/int/mod",
    "one 32-bit int x = N % x + C, each step fed by the last (the table subtracts int add)"
);
op!(
    INT64_BIT,
    "lat_ops/int64/bit",
    "one 64-bit x = x ^ k, each step fed by the last (1 cycle)"
);
op!(
    INT64_ADD,
    "lat_ops/int64/add",
    "one 64-bit x = x + k, each step fed by the last (1 cycle)"
);
op!(
    INT64_MUL,
    "lat_ops/int64/mul",
    "one 64-bit x = x * k, each step fed by the last"
);
op!(
    INT64_DIV,
    "lat_ops/int64/div",
    "one 64-bit x = N / x with x > 2^32 (fixed point), each step fed by the last"
);
op!(
    INT64_MOD,
    "lat_ops/int64/mod",
    "one 64-bit x = N % x + C, each step fed by the last (the table subtracts int64 add)"
);
op!(
    FLOAT_ADD,
    "lat_ops/float/add",
    "one f32 x = x + 1.0, each step fed by the last"
);
op!(
    FLOAT_MUL,
    "lat_ops/float/mul",
    "one f32 x = x * 1.0, each step fed by the last"
);
op!(
    FLOAT_DIV,
    "lat_ops/float/div",
    "one f32 x = 2.0 / x, each step fed by the last"
);
op!(
    FLOAT_BOGO,
    "lat_ops/float/bogomflops",
    "lmbench's bogomflops: one f32 element update x[i] = (1 + x[i]) * (1.5 - x[i]) / x[i] over 1000 independent elements (throughput, scalar)"
);
op!(
    DOUBLE_ADD,
    "lat_ops/double/add",
    "one f64 x = x + 1.0, each step fed by the last"
);
op!(
    DOUBLE_MUL,
    "lat_ops/double/mul",
    "one f64 x = x * 1.0, each step fed by the last"
);
op!(
    DOUBLE_DIV,
    "lat_ops/double/div",
    "one f64 x = 2.0 / x, each step fed by the last"
);
op!(
    DOUBLE_BOGO,
    "lat_ops/double/bogomflops",
    "lmbench's bogomflops: one f64 element update x[i] = (1 + x[i]) * (1.5 - x[i]) / x[i] over 1000 independent elements (throughput, scalar)"
);

pub static PROGRAM: Program = Program {
    name: "lat_ops",
    about: "basic arithmetic as dependency chains (ns per operation)",
    metrics: &[
        &INT_BIT,
        &INT_ADD,
        &INT_MUL,
        &INT_DIV,
        &INT_MOD,
        &INT64_BIT,
        &INT64_ADD,
        &INT64_MUL,
        &INT64_DIV,
        &INT64_MOD,
        &FLOAT_ADD,
        &FLOAT_MUL,
        &FLOAT_DIV,
        &FLOAT_BOGO,
        &DOUBLE_ADD,
        &DOUBLE_MUL,
        &DOUBLE_DIV,
        &DOUBLE_BOGO,
    ],
};
