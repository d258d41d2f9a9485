//! lat_pipe: round trip through a pair of pipes to an echo process.
use super::{Metric, Program, Unit::Micros};

pub static PIPE: Metric = Metric::median(
    "lat_pipe/pipe",
    Micros,
    "write 1 byte into a pipe to an echo peer (another small process), read its 1-byte answer from a second pipe",
);

pub static PINNED: Metric = Metric::median(
    "lat_pipe/pinned",
    Micros,
    "as lat_pipe/pipe, with the bench and its echo peer bound to one CPU: one round trip over two pipes as two switches on that CPU",
);

pub static PROGRAM: Program = Program {
    name: "lat_pipe",
    about: "pipe latency: one round trip to an echo process",
    metrics: &[&PIPE, &PINNED],
};
