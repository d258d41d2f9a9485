//! lat_rpc: ONC RPC calls (program 404040 v1, procedure 1: a char in and out).
use super::{Metric, Program, Unit::Micros};

pub static UDP: Metric = Metric::median(
    "lat_rpc/udp",
    Micros,
    "one ONC RPC call of procedure 1 (a char, echoed) over a connected loopback UDP socket to our server process; reply xid and char checked",
);
pub static TCP: Metric = Metric::median(
    "lat_rpc/tcp",
    Micros,
    "one ONC RPC call of procedure 1 (a char, echoed), record-marked, over a loopback TCP connection made once; reply xid and char checked",
);

pub static PINNED_UDP: Metric = Metric::median(
    "lat_rpc/pinned_udp",
    Micros,
    "as lat_rpc/udp, with the bench and its server bound to one CPU: one call as two switches on that CPU",
);
pub static PINNED_TCP: Metric = Metric::median(
    "lat_rpc/pinned_tcp",
    Micros,
    "as lat_rpc/tcp, with the bench and its server bound to one CPU: one call as two switches on that CPU",
);

pub static REMOTE_UDP: Metric = Metric::median(
    "lat_rpc/remote_udp",
    Micros,
    "one ONC RPC call of procedure 1 (a char, echoed) over UDP to `lmbench serve` at LMBENCH_REMOTE; reply xid and char checked",
);
pub static REMOTE_TCP: Metric = Metric::median(
    "lat_rpc/remote_tcp",
    Micros,
    "one ONC RPC call of procedure 1 (a char, echoed), record-marked, over a TCP connection made once to `lmbench serve` at LMBENCH_REMOTE; reply xid and char checked",
);

pub static PROGRAM: Program = Program {
    name: "lat_rpc",
    about: "ONC (Sun) RPC latency over UDP and TCP on 127.0.0.1 (and to a remote peer with LMBENCH_REMOTE)",
    metrics: &[&UDP, &TCP, &PINNED_UDP, &PINNED_TCP, &REMOTE_UDP, &REMOTE_TCP],
};
