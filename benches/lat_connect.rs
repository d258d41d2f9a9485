//! lat_connect: TCP connection set-up on loopback.
//! Run: `cargo bench --bench lat_connect` (or `lmbench run lat_connect`).
//!
//! Method (lmbench's lat_connect): each iteration is socket(2) +
//! connect(2) to 127.0.0.1 + close(2). The server, a fresh small process
//! (`lmbench-peer accept`), accepts and closes each connection.
//!
//! TIME_WAIT, handled deliberately: the server waits for our close (its
//! read sees EOF), then closes with SO_LINGER {on, 0}, a reset. We close
//! first, so our socket waits in FIN_WAIT2 until the reset and then
//! vanishes; the server never sends a FIN. Neither side keeps a TIME_WAIT
//! socket, so hundreds of thousands of connects neither exhaust the
//! ephemeral ports nor fill the TIME_WAIT table, and our timed region
//! holds exactly lmbench's three calls (no extra setsockopt). lmbench lets
//! TIME_WAIT pile up, one reason its figure is bimodal run to run.
//!
//! A server that dies refuses the next connect at once. One that stops
//! accepting would make connect wait for SYN retransmits once the backlog
//! fills, so a `Stall` timer (no second thread in the timed process)
//! interrupts a connect blocked for 3 s, which then gets 3 s more to
//! finish before the bench fails with its id.
//!
//! Remote mode (lmbench's *Remote* table), when `LMBENCH_REMOTE=HOST:PORT`
//! names a running `lmbench serve` (and `LMBENCH_TOKEN` its token, if it
//! has one); declared skipped otherwise. `lat_connect/remote`: the same
//! socket + connect + close to the server's `accept` service, which waits
//! for our close and resets, as above (so no TIME_WAIT on either machine).
//! No deadline timer: a server that dies refuses at once, and a lost
//! network makes connect(2) fail after the kernel's SYN retries (about two
//! minutes), which fails the bench with its id. The session and the
//! connection are made untimed; the server answers from a plain blocking
//! loop, as the local peer does.

use std::os::fd::AsRawFd;
use std::time::Instant;

use criterion::Criterion;
use lmbench_support::catalog::lat_connect::{self as cat, PROGRAM};
use lmbench_support::harness::{check, failed, Class, Group};
use lmbench_support::ipc;
use lmbench_support::remote;
use lmbench_support::stall::Stall;

const PEER: &str = env!("CARGO_BIN_EXE_lmbench-peer");

fn lat_connect(c: &mut Criterion) {
    let m = &cat::TCP;
    let (listener, port) = check(m, "listen on 127.0.0.1", ipc::tcp_listener());
    let server = check(
        m,
        "start the accept server",
        ipc::spawn_with_fds(PEER, &["accept"], &[listener.as_raw_fd()]),
    );
    drop(listener);
    let deadline = check(m, "deadline timer", Stall::new());
    let connect = || -> std::io::Result<()> {
        let fd = ipc::tcp_socket()?;
        ipc::connect(&fd, port)?;
        drop(fd); // close(2)
        Ok(())
    };
    check(m, "untimed connect", connect());

    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    g.bench(m, |iters| {
        deadline.arm(ipc::ANSWER_TIMEOUT);
        let start = Instant::now();
        for _ in 0..iters {
            if let Err(e) = connect() {
                failed(m, format_args!("connect to 127.0.0.1:{port}: {e}"));
            }
        }
        let took = start.elapsed();
        deadline.disarm();
        took
    });
    g.finish();
    drop(server);
}

fn lat_connect_remote(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    if let Some(mut s) = remote::bench::session(&mut g, &PROGRAM, &[&cat::REMOTE]) {
        remote::bench::connect(&mut g, &cat::REMOTE, &mut s);
    }
    g.finish();
}

lmbench_support::bench_main!(lat_connect, lat_connect_remote);
