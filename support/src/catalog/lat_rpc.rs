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

pub static PROGRAM: Program = Program {
    name: "lat_rpc",
    about: "ONC (Sun) RPC latency over UDP and TCP on 127.0.0.1",
    metrics: &[&UDP, &TCP],
};
