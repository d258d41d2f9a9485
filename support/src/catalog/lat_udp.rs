//! lat_udp: round trip of a datagram over loopback.
use super::{Metric, Program, Unit::Micros};

pub static UDP: Metric = Metric::median(
    "lat_udp/udp",
    Micros,
    "send a 4-byte datagram carrying a sequence number on a connected loopback UDP socket, receive the echo and check its number",
);

pub static REMOTE: Metric = Metric::median(
    "lat_udp/remote",
    Micros,
    "send a 4-byte datagram carrying a sequence number to `lmbench serve` at LMBENCH_REMOTE, receive the echo and check its number (a datagram unanswered for 100 ms is sent again and counted)",
);

pub static PINNED: Metric = Metric::median(
    "lat_udp/pinned",
    Micros,
    "as lat_udp/udp, with the bench and its echo peer bound to one CPU: one round trip over a connected loopback UDP socket as two switches on that CPU",
);

pub static PROGRAM: Program = Program {
    name: "lat_udp",
    about: "UDP latency: one datagram round trip to an echo process on 127.0.0.1 (and to a remote peer with LMBENCH_REMOTE)",
    metrics: &[&UDP, &PINNED, &REMOTE],
};
