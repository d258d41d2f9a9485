//! lat_rpc: ONC (Sun) RPC call latency over UDP and TCP on loopback.
//! Run: `cargo bench --bench lat_rpc` (or `lmbench run lat_rpc`).
//!
//! Method (lmbench's lat_rpc): program 404040 version 1, procedure 1 takes
//! a char and returns it; one call per iteration on a client made once
//! (the TCP connection is made untimed). The server is a fresh small
//! process (`lmbench-peer rpc`) speaking real ONC RPC (RFC 5531, XDR,
//! record marking on TCP; see `lmbench_support::rpc`), on 127.0.0.1 ports
//! the kernel picks, told to the client directly: no portmapper.
//!
//! `lat_rpc/pinned_udp` and `lat_rpc/pinned_tcp`: the same with the bench
//! and a server of its own bound to one CPU (the one-CPU table's row).
//!
//! Each reply's xid and char are checked. Where we differ from lmbench: a
//! UDP call unanswered for 100 ms is sent again and counted (printed after
//! the group) rather than failing after lmbench's 25 ms budget; a call
//! unanswered for 3 s, or a dead server, fails the bench with its id.
//!
//! Remote mode (lmbench's *Remote* table), when `LMBENCH_REMOTE=HOST:PORT`
//! names a running `lmbench serve` (and `LMBENCH_TOKEN` its token, if it
//! has one); declared skipped otherwise. `lat_rpc/remote_udp` and
//! `lat_rpc/remote_tcp`: the same client and calls, to the server's
//! `rpc_udp` and `rpc_tcp` services, which answer with the same ONC RPC
//! code as the local server (`rpc::serve_call`, `rpc::RecordBuf`). The session and the
//! connection are made untimed; the server answers from a plain blocking
//! loop, as the local peer does.

use std::os::fd::AsRawFd;
use std::time::Instant;

use criterion::Criterion;
use lmbench_support::catalog::lat_rpc::{self as cat, PROGRAM};
use lmbench_support::catalog::Metric;
use lmbench_support::harness::{check, failed, on_one_cpu, Class, Group};
use lmbench_support::{ipc, remote, rpc};

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

fn lat_rpc(c: &mut Criterion) {
    calls(c, &cat::UDP, &cat::TCP);
    // The same with the server on our CPU: the one-CPU row.
    on_one_cpu(c, &PROGRAM, &[&cat::PINNED_UDP, &cat::PINNED_TCP], |c| {
        calls(c, &cat::PINNED_UDP, &cat::PINNED_TCP)
    });
}

/// A fresh server, then one call per iteration over UDP (`udp`) and over
/// TCP (`tcp`); the server is killed and reaped after.
fn calls(c: &mut Criterion, udp_m: &'static Metric, tcp_m: &'static Metric) {
    let (udp, udp_port) = check(udp_m, "bind UDP on 127.0.0.1", ipc::udp_socket());
    let (listener, tcp_port) = check(tcp_m, "listen on 127.0.0.1", ipc::tcp_listener());
    let server = check(
        udp_m,
        "start the RPC server",
        ipc::spawn_with_fds(PEER, &["rpc"], &[udp.as_raw_fd(), listener.as_raw_fd()]),
    );
    drop((udp, listener));

    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    let clients: [(&'static Metric, rpc::Client); 2] = [
        (
            udp_m,
            check(udp_m, "UDP client", rpc::Client::udp(udp_port)),
        ),
        (
            tcp_m,
            check(tcp_m, "TCP client", rpc::Client::tcp(tcp_port)),
        ),
    ];
    for (metric, mut client) in clients {
        check(metric, "untimed call", client.call_char(b'!'));
        g.bench(metric, |iters| {
            let start = Instant::now();
            for i in 0..iters {
                if let Err(e) = client.call_char(i as u8) {
                    failed(metric, e);
                }
            }
            start.elapsed()
        });
        if client.retransmissions > 0 {
            eprintln!(
                "{}: {} UDP calls were sent again after 100 ms without an answer",
                metric.id, client.retransmissions
            );
        }
    }
    g.finish();
    drop(server);
}

fn lat_rpc_remote(c: &mut Criterion) {
    let (udp, tcp) = (&cat::REMOTE_UDP, &cat::REMOTE_TCP);
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    if let Some(mut s) = remote::bench::session(&mut g, &PROGRAM, &[udp, tcp]) {
        remote::bench::rpc(&mut g, udp, tcp, &mut s);
    }
    g.finish();
}

lmbench_support::bench_main!(lat_rpc, lat_rpc_remote);
