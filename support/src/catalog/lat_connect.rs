//! lat_connect: TCP connection set-up on loopback.
use super::{Metric, Program, Unit::Micros};

pub static TCP: Metric = Metric::median(
    "lat_connect/tcp",
    Micros,
    "socket(2) + connect(2) to a 127.0.0.1 server that accepts and closes (with a reset, so no TIME_WAIT) + close(2)",
);

pub static REMOTE: Metric = Metric::median(
    "lat_connect/remote",
    Micros,
    "socket(2) + connect(2) to `lmbench serve`'s accept-and-close listener at LMBENCH_REMOTE (it resets, so no TIME_WAIT) + close(2)",
);

pub static PROGRAM: Program = Program {
    name: "lat_connect",
    about:
        "TCP connection latency: socket, connect, close against a loopback accept-and-close server (and a remote one with LMBENCH_REMOTE)",
    metrics: &[&TCP, &REMOTE],
};
