//! lat_tcp: round trip over a loopback TCP connection.
use super::{Metric, Program, Unit::Micros};

pub static TCP: Metric = Metric::median(
    "lat_tcp/tcp",
    Micros,
    "write 1 byte on a connected loopback TCP socket (connected untimed) to an echo peer, read its 1-byte answer",
);

pub static REMOTE: Metric = Metric::median(
    "lat_tcp/remote",
    Micros,
    "write 1 byte on a TCP connection (connected untimed) to `lmbench serve` at LMBENCH_REMOTE, which echoes it; read the 1-byte answer",
);

pub static PINNED: Metric = Metric::median(
    "lat_tcp/pinned",
    Micros,
    "as lat_tcp/tcp, with the bench and its echo peer bound to one CPU: one round trip over a connected loopback TCP socket as two switches on that CPU",
);

pub static PROGRAM: Program = Program {
    name: "lat_tcp",
    about: "TCP latency: one 1-byte round trip to an echo process on 127.0.0.1 (and to a remote peer with LMBENCH_REMOTE)",
    metrics: &[&TCP, &PINNED, &REMOTE],
};
