//! bw_tcp: loopback TCP bandwidth from a writer process.
use super::{Metric, Program, Unit::MBps};

pub static READ_64K: Metric = Metric::median(
    "bw_tcp/read/64k",
    MBps,
    "read(2) of 10 MB from a loopback TCP socket (buffers 1 MB) in reads of up to 64 KB; the peer writes 64 KB messages",
);
pub static READ_10M: Metric = Metric::median(
    "bw_tcp/read/10m",
    MBps,
    "read(2) of 10 MB from a loopback TCP socket (buffers 1 MB) in reads of up to 10 MB; the peer writes 10 MB messages",
);

pub static PROGRAM: Program = Program {
    name: "bw_tcp",
    about: "loopback TCP bandwidth, socket buffers 1 MB, 64 KB and 10 MB messages",
    metrics: &[&READ_64K, &READ_10M],
};
