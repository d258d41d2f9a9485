//! lat_poll (beyond lmbench): readiness over many descriptors.
//! Run: `cargo bench --bench lat_poll` (or `lmbench run lat_poll`).
//!
//! Setup (untimed): N eventfds (N = 10, 100, 1000), distinct files as a
//! server's sockets are; only the last has a count (readable). The bench
//! process has one thread (checked): a second one would put the fd table
//! on its shared path.
//! - poll/N: one `poll` of the N for POLLIN, zero timeout; must return 1.
//!   The kernel walks all N: its cost grows with N.
//! - epoll/N: one `epoll_wait` (room for 8 events, zero timeout) on an
//!   epoll instance watching the N level-triggered; must return 1. It
//!   reads the ready list: flat in N.
//! - epoll_ctl: EPOLL_CTL_ADD of one more eventfd to the instance
//!   watching 1000, then EPOLL_CTL_DEL of it.
//!
//! Linux-only (eventfd, epoll); elsewhere every metric is skipped, said.

use criterion::Criterion;
use lmbench_support::catalog::lat_poll::PROGRAM;
use lmbench_support::harness::{Class, Group};

#[cfg(any(target_os = "linux", target_os = "android"))]
mod linux {
    use std::io;
    use std::os::fd::{AsFd, AsRawFd};

    use lmbench_support::catalog::{lat_poll as cat, Metric};
    use lmbench_support::harness::{check, Group};
    use lmbench_support::kpath;
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    use nix::sys::epoll::{Epoll, EpollCreateFlags, EpollEvent, EpollFlags};
    use nix::sys::eventfd::{EfdFlags, EventFd};

    fn eventfd(count: u32) -> io::Result<EventFd> {
        let flags = EfdFlags::EFD_CLOEXEC | EfdFlags::EFD_NONBLOCK;
        Ok(EventFd::from_value_and_flags(count, flags)?)
    }

    /// N eventfds, the last one readable.
    fn fds(n: usize) -> io::Result<Vec<EventFd>> {
        (0..n).map(|i| eventfd(u32::from(i + 1 == n))).collect()
    }

    /// What epoll watches `fd` for (EPOLLIN), with its number as the data.
    fn event(fd: &EventFd) -> EpollEvent {
        EpollEvent::new(EpollFlags::EPOLLIN, fd.as_fd().as_raw_fd() as u64)
    }

    fn epoll_with(fds: &[EventFd]) -> io::Result<Epoll> {
        let ep = Epoll::new(EpollCreateFlags::EPOLL_CLOEXEC)?;
        for fd in fds {
            ep.add(fd, event(fd))?;
        }
        Ok(ep)
    }

    #[inline]
    fn poll_once(set: &mut [PollFd]) -> Result<(), String> {
        match poll(set, PollTimeout::ZERO) {
            Ok(1) => Ok(()),
            Ok(n) => Err(format!("poll reported {n} ready, want 1")),
            Err(e) => Err(e.to_string()),
        }
    }

    #[inline]
    fn wait_once(ep: &Epoll, evs: &mut [EpollEvent; 8]) -> Result<(), String> {
        match ep.wait(evs, PollTimeout::ZERO) {
            Ok(1) => Ok(()),
            Ok(n) => Err(format!("epoll_wait reported {n} ready, want 1")),
            Err(e) => Err(e.to_string()),
        }
    }

    pub fn run(g: &mut Group) {
        check(&cat::POLL_10, "open files", kpath::raise_nofile(4096));
        let cases: [(usize, &'static Metric, &'static Metric); 3] = [
            (10, &cat::POLL_10, &cat::EPOLL_10),
            (100, &cat::POLL_100, &cat::EPOLL_100),
            (1000, &cat::POLL_1000, &cat::EPOLL_1000),
        ];
        let mut last = None;
        for (n, pm, em) in cases {
            let set = check(pm, "eventfds", fds(n));
            let mut pfds: Vec<PollFd> = set
                .iter()
                .map(|f| PollFd::new(f.as_fd(), PollFlags::POLLIN))
                .collect();
            check(pm, "untimed poll", poll_once(&mut pfds));
            let ready = pfds.last().and_then(|p| p.revents());
            if ready != Some(PollFlags::POLLIN) {
                harness_fail(pm, format!("the last fd reports {ready:?}, want POLLIN"));
            }
            check(pm, "one thread", kpath::require_one_thread());
            g.bench_loop(pm, || poll_once(&mut pfds));
            drop(pfds);

            let ep = check(em, "epoll set", epoll_with(&set));
            let mut evs = [EpollEvent::empty(); 8];
            check(em, "untimed epoll_wait", wait_once(&ep, &mut evs));
            let want = set.last().map(|f| f.as_fd().as_raw_fd() as u64);
            let got = evs[0].data();
            if Some(got) != want {
                harness_fail(em, format!("fd {got} reported ready, want {want:?}"));
            }
            g.bench_loop(em, || wait_once(&ep, &mut evs));
            last = Some((set, ep));
        }

        let m = &cat::EPOLL_CTL;
        let (_set, ep) = last.expect("the 1000-fd case ran");
        let extra = check(m, "eventfd", eventfd(0));
        let ev = event(&extra);
        g.bench_loop(m, || {
            ep.add(&extra, ev)?;
            ep.delete(&extra)
        });
    }

    fn harness_fail(m: &Metric, why: String) -> ! {
        lmbench_support::harness::failed(m, why)
    }
}

fn lat_poll(c: &mut Criterion) {
    let mut g = Group::new(c, &PROGRAM, Class::Fast);
    #[cfg(any(target_os = "linux", target_os = "android"))]
    linux::run(&mut g);
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    for m in PROGRAM.metrics {
        g.skip(m, "eventfd and epoll are Linux-only");
    }
    g.finish();
}

lmbench_support::bench_main!(lat_poll);
