//! lat_tcp: round trip over a loopback TCP connection.
use super::{Metric, Program, Unit::Micros};

pub static TCP: Metric = Metric::median(
    "lat_tcp/tcp",
    Micros,
    "write 1 byte on a connected loopback TCP socket (connected untimed) to an echo peer, read its 1-byte answer",
);

pub static PROGRAM: Program = Program {
    name: "lat_tcp",
    about: "TCP latency: one 1-byte round trip to an echo process on 127.0.0.1",
    metrics: &[&TCP],
};
