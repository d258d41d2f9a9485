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
pub static PINNED_10M: Metric = Metric::median(
    "bw_tcp/pinned/10m",
    MBps,
    "as bw_tcp/read/10m, with the bench and its writer bound to one CPU",
);

pub static REMOTE_READ_10M: Metric = Metric::median(
    "bw_tcp/remote_read/10m",
    MBps,
    "ask `lmbench serve` at LMBENCH_REMOTE for 10 MB more (an 8-byte request, one ahead), read(2) 10 MB from the TCP connection (buffers 1 MB)",
);
pub static REMOTE_WRITE_10M: Metric = Metric::median(
    "bw_tcp/remote_write/10m",
    MBps,
    "write(2) 10 MB to a TCP connection (buffers 1 MB) whose far end, `lmbench serve` at LMBENCH_REMOTE, reads and discards",
);

pub static PROGRAM: Program = Program {
    name: "bw_tcp",
    about: "TCP bandwidth, socket buffers 1 MB: loopback with 64 KB and 10 MB messages; to and from a remote peer with LMBENCH_REMOTE",
    metrics: &[&READ_64K, &READ_10M, &PINNED_10M, &REMOTE_READ_10M, &REMOTE_WRITE_10M],
};
