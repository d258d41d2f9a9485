//! lmbench's four basic-operations tables. "mod" is the `N % x + C` chain
//! minus the add chain of the same type, so it reads the modulo alone.
use crate::catalog::lat_ops as m;
use crate::catalog::{no_notes, Column, Source, Table, Unit};

pub static OPS_INT: Table = Table {
    key: "ops_int",
    title: "Basic integer operations - times in nanoseconds - smaller is better",
    unit: Unit::Nanos,
    notes: no_notes,
    columns: &[
        Column::new("intgr", "bit", 6, Source::Metric(&m::INT_BIT)),
        Column::new("intgr", "add", 6, Source::Metric(&m::INT_ADD)),
        Column::new("intgr", "mul", 6, Source::Metric(&m::INT_MUL)),
        Column::new("intgr", "div", 6, Source::Metric(&m::INT_DIV)),
        Column::new("intgr", "mod", 6, Source::Minus(&m::INT_MOD, &m::INT_ADD)),
    ],
};

pub static OPS_INT64: Table = Table {
    key: "ops_int64",
    title: "Basic uint64 operations - times in nanoseconds - smaller is better",
    unit: Unit::Nanos,
    notes: no_notes,
    columns: &[
        Column::new("int64", "bit", 6, Source::Metric(&m::INT64_BIT)),
        Column::new("int64", "add", 6, Source::Metric(&m::INT64_ADD)),
        Column::new("int64", "mul", 6, Source::Metric(&m::INT64_MUL)),
        Column::new("int64", "div", 6, Source::Metric(&m::INT64_DIV)),
        Column::new(
            "int64",
            "mod",
            6,
            Source::Minus(&m::INT64_MOD, &m::INT64_ADD),
        ),
    ],
};

pub static OPS_FLOAT: Table = Table {
    key: "ops_float",
    title: "Basic float operations - times in nanoseconds - smaller is better",
    unit: Unit::Nanos,
    notes: no_notes,
    columns: &[
        Column::new("float", "add", 6, Source::Metric(&m::FLOAT_ADD)),
        Column::new("float", "mul", 6, Source::Metric(&m::FLOAT_MUL)),
        Column::new("float", "div", 6, Source::Metric(&m::FLOAT_DIV)),
        Column::new("float", "bogo", 6, Source::Metric(&m::FLOAT_BOGO)),
    ],
};

pub static OPS_DOUBLE: Table = Table {
    key: "ops_double",
    title: "Basic double operations - times in nanoseconds - smaller is better",
    unit: Unit::Nanos,
    notes: no_notes,
    columns: &[
        Column::new("double", "add", 6, Source::Metric(&m::DOUBLE_ADD)),
        Column::new("double", "mul", 6, Source::Metric(&m::DOUBLE_MUL)),
        Column::new("double", "div", 6, Source::Metric(&m::DOUBLE_DIV)),
        Column::new("double", "bogo", 6, Source::Metric(&m::DOUBLE_BOGO)),
    ],
};
