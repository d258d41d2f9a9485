//! lat_unix: round trip over an AF_UNIX stream socketpair.
use super::{Metric, Program, Unit::Micros};

pub static STREAM: Metric = Metric::median(
    "lat_unix/stream",
    Micros,
    "write 1 byte on an AF_UNIX stream socketpair to an echo peer, read its 1-byte answer",
);

pub static PINNED: Metric = Metric::median(
    "lat_unix/pinned",
    Micros,
    "as lat_unix/stream, with the bench and its echo peer bound to one CPU: one round trip over an AF_UNIX stream socketpair as two switches on that CPU",
);

pub static PROGRAM: Program = Program {
    name: "lat_unix",
    about: "AF_UNIX stream socket latency: one round trip to an echo process",
    metrics: &[&STREAM, &PINNED],
};
