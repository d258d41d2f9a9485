//! Two machines: `lmbench serve` (the peer server), its control protocol,
//! and the benches' client side. lmbench's *Remote* tables come from the
//! remote modes of lat_udp, lat_rpc, lat_tcp, lat_connect and bw_tcp,
//! which run when `LMBENCH_REMOTE=HOST:PORT` names a server and declare
//! themselves skipped otherwise.
//!
//! - [`proto`]: the control protocol as plain functions over bytes.
//! - [`server`]: the server (one client at a time, one thread).
//! - [`client`]: sessions, data sockets and the remote timed loops.
//! - [`bench`] (feature `harness`): the remote modes' Criterion bodies.

pub mod client;
pub mod proto;
pub mod server;

#[cfg(feature = "harness")]
pub mod bench;

/// The file, in a program's directory of Criterion's output, that names the
/// peer its remote metrics were measured against (written by the bench,
/// read by the CLI's `criterion_files` module).
pub const PEER_FILE: &str = "lmbench-remote-peer.json";
