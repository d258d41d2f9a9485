//! The timed loops of benches whose other end is a peer or a socket: a
//! round trip through `lmbench-peer echo`, a pipe's or socket's read
//! bandwidth, a request the peer times itself, and a bench pinned to one
//! CPU.

use std::time::{Duration, Instant};

use criterion::Criterion;

use super::{check, failed, Class, Group};
use crate::catalog::{Metric, Program};

/// The whole of a socket round-trip bench (lat_unix, lat_udp, lat_tcp):
/// our end of `pair` talks to `lmbench-peer echo`, which owns the other;
/// each iteration writes `len` bytes (a sequence number's low bytes) and
/// reads the checked echo. A silent peer fails the bench within seconds
/// through the deadline timer armed once per timed call (`stall::Stall`,
/// as lat_pipe), not SO_RCVTIMEO: a receive timeout makes every blocking
/// receive arm and cancel a kernel timer, about 0.35 us of a 9 us pinned
/// AF_UNIX round trip here, a cost lmbench's loop does not have. A dead
/// peer gives EOF (or ECONNREFUSED for UDP).
pub fn socket_echo(
    c: &mut Criterion,
    program: &'static Program,
    metric: &'static Metric,
    pair: std::io::Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)>,
    peer_bin: &str,
    len: usize,
) {
    use crate::ipc;
    use std::os::fd::AsRawFd;

    let (ours, theirs) = check(metric, "socket pair", pair);
    let peer = check(
        metric,
        "start the echo peer",
        ipc::spawn_with_fds(peer_bin, &["echo"], &[theirs.as_raw_fd()]),
    );
    drop(theirs);
    let fd = std::os::fd::AsFd::as_fd(&ours);
    let deadline = check(metric, "deadline timer", crate::stall::Stall::new());
    let first = ipc::echo_loop(fd, fd, len, 1, Some(&deadline));
    check(metric, "untimed round trip", first);

    let mut g = Group::new(c, program, Class::Fast);
    g.bench(metric, |iters| {
        check(
            metric,
            "round trip",
            ipc::echo_loop(fd, fd, len, iters, Some(&deadline)),
        )
    });
    g.finish();
    drop(ours);
    drop(peer);
}

/// Runs `bench` with this process, and the peers it starts, bound to one
/// CPU (`child::OneCpu`), then unbinds; where that is impossible `metrics`
/// (what `bench` measures) are declared skipped. For the one-CPU rows of the local latencies: on a VM,
/// waking a peer on the other vCPU is a placement lottery (58-77 us for a
/// pipe round trip here against 4-10 us on one CPU).
pub fn on_one_cpu(
    c: &mut Criterion,
    program: &'static Program,
    metrics: &[&'static Metric],
    bench: impl FnOnce(&mut Criterion),
) {
    match crate::child::OneCpu::pin() {
        Ok(pin) => {
            bench(c);
            drop(pin);
        }
        Err(e) => {
            let mut g = Group::new(c, program, Class::Fast);
            for metric in metrics {
                g.skip(metric, format_args!("cannot bind to one CPU: {e}"));
            }
            g.finish();
        }
    }
}

/// The whole of a stream-bandwidth bench over a local pair (bw_pipe,
/// bw_unix): `lmbench-peer bw_write fd1 64K` owns the write end of `pair`
/// as its stdout and writes forever; timed, per iteration, reading
/// `bw::MOVE` bytes in reads of up to `bw::XFER` into a buffer offset 128
/// bytes from page alignment (as lmbench). A short read is fine; end of
/// stream or an error fails the bench with the metric id.
pub fn stream_read_bw(
    c: &mut Criterion,
    program: &'static Program,
    metric: &'static Metric,
    pair: std::io::Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)>,
    peer_bin: &str,
) {
    use crate::bw::{self, kernels::Buf};
    use std::os::fd::AsRawFd;

    let (rd, wr) = check(metric, "pipe or socketpair", pair);
    let chunk = bw::XFER.to_string();
    let writer = bw::spawn_writer(peer_bin, &["fd1", &chunk], Some(wr));
    let _writer = check(metric, "start writer", writer);
    let mut buf = check(metric, "buffer", Buf::new(bw::XFER + 4096, 0));
    let buf = &mut buf.as_bytes_mut()[128..128 + bw::XFER];
    let fd = rd.as_raw_fd();
    // Checked once before timing: the writer is up and delivers.
    check(metric, "untimed transfer", timed_transfer(fd, buf));

    let mut g = Group::new(c, program, Class::Bandwidth);
    g.bytes_per_iter(bw::MOVE as u64);
    g.bench(metric, |iters| timed_reads(metric, fd, buf, iters));
    g.finish();
}

/// One transfer of `bw::MOVE` bytes under the same deadline as the timed
/// ones, for the untimed check before timing.
pub fn timed_transfer(fd: std::os::fd::RawFd, buf: &mut [u8]) -> std::io::Result<()> {
    let stall = crate::stall::Stall::new()?;
    stall.arm(crate::bw::STALL);
    let r = crate::bw::read_total(fd, buf, crate::bw::MOVE);
    stall.disarm();
    r
}

/// The timed body of the stream bandwidth benches (bw_pipe, bw_unix,
/// bw_tcp): `iters` times, read `bw::MOVE` bytes from `fd`. Each iteration
/// has a deadline of `bw::STALL` (one timer_settime(2) per 10 MB), so a
/// writer that stops fails the bench with the metric id instead of hanging
/// it, with no thread and nothing added to the reads themselves.
pub fn timed_reads(
    metric: &Metric,
    fd: std::os::fd::RawFd,
    buf: &mut [u8],
    iters: u64,
) -> Duration {
    let stall = check(metric, "deadline timer", crate::stall::Stall::new());
    let t = Instant::now();
    for _ in 0..iters {
        stall.arm(crate::bw::STALL);
        if let Err(e) = crate::bw::read_total(fd, buf, crate::bw::MOVE) {
            stall.disarm();
            failed(metric, e);
        }
    }
    let took = t.elapsed();
    stall.disarm();
    took
}

/// Benches `metric` as `verb N arg` requests to a peer that times its own
/// N operations (lat_proc, lat_spawn): one untimed request first, so a
/// failure is reported before timing; the peer's nanoseconds are the
/// sample (the request's formatting is outside its clock).
pub fn bench_peer_op(
    g: &mut Group,
    peer: &mut crate::child::Peer,
    metric: &'static Metric,
    verb: &str,
    arg: &str,
) {
    let request = |n: u64| format!("{verb} {n} {arg}");
    check(
        metric,
        "one untimed creation",
        peer.call_timed(&request(1), 1),
    );
    bench_peer_requests(g, peer, metric, request);
}

/// Benches `metric` as requests `request(N)` to a peer that times its own
/// N operations and replies their nanoseconds: the sample.
pub fn bench_peer_requests(
    g: &mut Group,
    peer: &mut crate::child::Peer,
    metric: &'static Metric,
    request: impl Fn(u64) -> String,
) {
    g.bench(metric, |iters| {
        let ns = check(metric, "peer", peer.call_timed(&request(iters), iters));
        Duration::from_nanos(ns)
    });
}

/// Benches `metric` as `run N` requests to a peer that times its own N
/// operations (lat_wake, line), after one untimed `run 1`. A peer that
/// cannot measure here (its replies start with [`crate::peer::UNAVAILABLE`])
/// skips the metric with its reason; any other error fails it.
pub fn bench_peer_runs(g: &mut Group, peer: &mut crate::child::Peer, metric: &'static Metric) {
    // A first request is quick; a peer silent this long is stuck.
    match peer.call("run 1", Duration::from_secs(10)) {
        Ok(_) => {}
        Err(e) if e.to_string().contains(crate::peer::UNAVAILABLE) => {
            g.skip(metric, e);
            return;
        }
        Err(e) => failed(metric, format_args!("untimed request: {e}")),
    }
    bench_peer_requests(g, peer, metric, |n| format!("run {n}"));
}
