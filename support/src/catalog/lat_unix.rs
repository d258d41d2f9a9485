//! lat_unix: round trip over an AF_UNIX stream socketpair.
use super::{Metric, Program, Unit::Micros};

pub static STREAM: Metric = Metric::median(
    "lat_unix/stream",
    Micros,
    "write 1 byte on an AF_UNIX stream socketpair to an echo peer, read its 1-byte answer",
);

pub static PROGRAM: Program = Program {
    name: "lat_unix",
    about: "AF_UNIX stream socket latency: one round trip to an echo process",
    metrics: &[&STREAM],
};
