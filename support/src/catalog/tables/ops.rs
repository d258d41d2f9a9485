use crate::catalog::{Column, Source, Table, Unit};

pub static OPS_INT: Table = Table {
    key: "ops_int",
    title: "Basic integer operations - times in nanoseconds - smaller is better",
    unit: Unit::Nanos,
    columns: &[
        Column::new("intgr", "bit", 6, Source::Pending),
        Column::new("intgr", "add", 6, Source::Pending),
        Column::new("intgr", "mul", 6, Source::Pending),
        Column::new("intgr", "div", 6, Source::Pending),
        Column::new("intgr", "mod", 6, Source::Pending),
    ],
};

pub static OPS_INT64: Table = Table {
    key: "ops_int64",
    title: "Basic uint64 operations - times in nanoseconds - smaller is better",
    unit: Unit::Nanos,
    columns: &[
        Column::new("int64", "bit", 6, Source::Pending),
        Column::new("int64", "add", 6, Source::Pending),
        Column::new("int64", "mul", 6, Source::Pending),
        Column::new("int64", "div", 6, Source::Pending),
        Column::new("int64", "mod", 6, Source::Pending),
    ],
};

pub static OPS_FLOAT: Table = Table {
    key: "ops_float",
    title: "Basic float operations - times in nanoseconds - smaller is better",
    unit: Unit::Nanos,
    columns: &[
        Column::new("float", "add", 6, Source::Pending),
        Column::new("float", "mul", 6, Source::Pending),
        Column::new("float", "div", 6, Source::Pending),
        Column::new("float", "bogo", 6, Source::Pending),
    ],
};

pub static OPS_DOUBLE: Table = Table {
    key: "ops_double",
    title: "Basic double operations - times in nanoseconds - smaller is better",
    unit: Unit::Nanos,
    columns: &[
        Column::new("double", "add", 6, Source::Pending),
        Column::new("double", "mul", 6, Source::Pending),
        Column::new("double", "div", 6, Source::Pending),
        Column::new("double", "bogo", 6, Source::Pending),
    ],
};
