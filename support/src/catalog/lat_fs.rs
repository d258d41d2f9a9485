//! lat_fs: file creation and deletion on the file system under test
//! (`LMBENCH_FSDIR`, default the system temp directory).
use super::{Metric, Program, Unit::Micros};

pub static CREATE_0K: Metric = Metric::median(
    "lat_fs/create/0k",
    Micros,
    "per file, 100 files per fresh directory: openat(O_CREAT|O_WRONLY|O_TRUNC) + close, no data",
);
pub static CREATE_1K: Metric = Metric::median(
    "lat_fs/create/1k",
    Micros,
    "per file, 100 files per fresh directory: openat(O_CREAT|O_WRONLY|O_TRUNC) + write(1 KB) + close",
);
pub static CREATE_4K: Metric = Metric::median(
    "lat_fs/create/4k",
    Micros,
    "per file, 100 files per fresh directory: openat(O_CREAT|O_WRONLY|O_TRUNC) + write(4 KB) + close",
);
pub static CREATE_10K: Metric = Metric::median(
    "lat_fs/create/10k",
    Micros,
    "per file, 100 files per fresh directory: openat(O_CREAT|O_WRONLY|O_TRUNC) + write(10 KB) + close",
);
pub static DELETE_0K: Metric = Metric::median(
    "lat_fs/delete/0k",
    Micros,
    "per file: unlinkat of one of 100 empty files just created in a fresh directory",
);
pub static DELETE_1K: Metric = Metric::median(
    "lat_fs/delete/1k",
    Micros,
    "per file: unlinkat of one of 100 1 KB files just created in a fresh directory",
);
pub static DELETE_4K: Metric = Metric::median(
    "lat_fs/delete/4k",
    Micros,
    "per file: unlinkat of one of 100 4 KB files just created in a fresh directory",
);
pub static DELETE_10K: Metric = Metric::median(
    "lat_fs/delete/10k",
    Micros,
    "per file: unlinkat of one of 100 10 KB files just created in a fresh directory",
);

pub static PROGRAM: Program = Program {
    name: "lat_fs",
    about: "file create (creat + write + close) and delete (unlink), per file",
    metrics: &[
        &CREATE_0K,
        &CREATE_1K,
        &CREATE_4K,
        &CREATE_10K,
        &DELETE_0K,
        &DELETE_1K,
        &DELETE_4K,
        &DELETE_10K,
    ],
};
