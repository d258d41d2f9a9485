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
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

    use lmbench_support::catalog::{lat_poll as cat, Metric};
    use lmbench_support::harness::{check, timed_loop, Group};
    use lmbench_support::kpath;

    fn eventfd(count: u32) -> io::Result<OwnedFd> {
        // SAFETY: eventfd returns a new descriptor we own, or -1.
        let fd = unsafe { libc::eventfd(count, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fd is fresh and nobody else owns it.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// N eventfds, the last one readable.
    fn fds(n: usize) -> io::Result<Vec<OwnedFd>> {
        (0..n).map(|i| eventfd(u32::from(i + 1 == n))).collect()
    }

    fn epoll_with(fds: &[OwnedFd]) -> io::Result<OwnedFd> {
        // SAFETY: epoll_create1 returns a new descriptor we own, or -1.
        let ep = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        if ep < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: ep is fresh and nobody else owns it.
        let ep = unsafe { OwnedFd::from_raw_fd(ep) };
        for fd in fds {
            ctl(ep.as_raw_fd(), libc::EPOLL_CTL_ADD, fd.as_raw_fd())?;
        }
        Ok(ep)
    }

    #[inline]
    fn ctl(ep: i32, op: i32, fd: i32) -> io::Result<()> {
        let mut ev = libc::epoll_event {
            events: libc::EPOLLIN as u32,
            u64: fd as u64,
        };
        // SAFETY: ev is a valid epoll_event for the call's duration.
        if unsafe { libc::epoll_ctl(ep, op, fd, &mut ev) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    #[inline]
    fn poll_once(set: &mut [libc::pollfd]) -> Result<(), String> {
        // SAFETY: set is a valid array of set.len() pollfds.
        match unsafe { libc::poll(set.as_mut_ptr(), set.len() as libc::nfds_t, 0) } {
            1 => Ok(()),
            n if n < 0 => Err(io::Error::last_os_error().to_string()),
            n => Err(format!("poll reported {n} ready, want 1")),
        }
    }

    #[inline]
    fn wait_once(ep: i32, evs: &mut [libc::epoll_event; 8]) -> Result<(), String> {
        // SAFETY: evs has room for 8 events.
        match unsafe { libc::epoll_wait(ep, evs.as_mut_ptr(), 8, 0) } {
            1 => Ok(()),
            n if n < 0 => Err(io::Error::last_os_error().to_string()),
            n => Err(format!("epoll_wait reported {n} ready, want 1")),
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
            let mut pfds: Vec<libc::pollfd> = set
                .iter()
                .map(|f| libc::pollfd {
                    fd: f.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                })
                .collect();
            check(pm, "untimed poll", poll_once(&mut pfds));
            let ready = pfds.last().map(|p| p.revents);
            if ready != Some(libc::POLLIN) {
                harness_fail(pm, format!("the last fd reports {ready:?}, want POLLIN"));
            }
            check(pm, "one thread", kpath::require_one_thread());
            g.bench(pm, |iters| timed_loop(pm, iters, || poll_once(&mut pfds)));

            let ep = check(em, "epoll set", epoll_with(&set));
            let mut evs = [libc::epoll_event { events: 0, u64: 0 }; 8];
            check(
                em,
                "untimed epoll_wait",
                wait_once(ep.as_raw_fd(), &mut evs),
            );
            let want = set.last().map(|f| f.as_raw_fd() as u64);
            let got = evs[0].u64;
            if Some(got) != want {
                harness_fail(em, format!("fd {got} reported ready, want {want:?}"));
            }
            let epfd = ep.as_raw_fd();
            g.bench(em, |iters| {
                timed_loop(em, iters, || wait_once(epfd, &mut evs))
            });
            last = Some((set, ep));
        }

        let m = &cat::EPOLL_CTL;
        let (_set, ep) = last.expect("the 1000-fd case ran");
        let extra = check(m, "eventfd", eventfd(0));
        let (epfd, fd) = (ep.as_raw_fd(), extra.as_raw_fd());
        g.bench(m, |iters| {
            timed_loop(m, iters, || {
                ctl(epfd, libc::EPOLL_CTL_ADD, fd)?;
                ctl(epfd, libc::EPOLL_CTL_DEL, fd)
            })
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
