//! `lmbench-peer wake KIND [pin]`: wake-up round trips between this small
//! process and a partner it forks (or, for `futex_thread`, a thread it
//! starts): the partner sleeps until woken, wakes this process back, and
//! sleeps again. KIND: `eventfd` (two eventfds, blocking reads), `futex`
//! (a FUTEX_WAIT/FUTEX_WAKE hand-off on a word of shared memory),
//! `dgram` (a 1-byte datagram each way on a UNIX datagram socketpair),
//! `mqueue` (a 1-byte POSIX message each way on two queues, unlinked at
//! once), `futex_thread` (the futex hand-off with a thread of this process,
//! private futexes). With `pin`, this process binds itself to its first
//! allowed CPU before starting the partner, which inherits it: every wake-up
//! is then a switch on one CPU. Linux-only.
//!
//! Requests: `ping` → `pong`; `run N` → N round trips, replying the
//! nanoseconds. Where KIND cannot be set up (no POSIX queues in this kernel),
//! every request answers `err unavailable: REASON`, which the bench reports as
//! a skip. A partner process gets PR_SET_PDEATHSIG and is killed and reaped
//! when this process ends.

linux_only_main!();

#[cfg(any(target_os = "linux", target_os = "android"))]
mod linux {
    use std::io;
    use std::os::fd::{AsRawFd, OwnedFd, RawFd};
    use std::sync::atomic::AtomicU32;
    use std::sync::Arc;

    use nix::mqueue;

    use crate::vm::SharedAtomics;
    use crate::{kpath, sys};

    pub fn main(args: &[String]) -> io::Result<()> {
        let bad = || io::Error::other(format!("bad arguments {args:?}; want KIND [pin]"));
        let (kind, pin) = match args {
            [k] => (k.as_str(), false),
            [k, p] if p == "pin" => (k.as_str(), true),
            _ => return Err(bad()),
        };
        if pin {
            let cpus = kpath::allowed_cpus()?;
            kpath::pin_to(*cpus.first().ok_or_else(|| io::Error::other("no CPU"))?)?;
        }
        match Pair::start(kind) {
            Ok(mut pair) => super::super::serve(|words| match words {
                ["ping"] => Ok("pong".into()),
                ["run", n] => {
                    let n: u64 = n.parse().map_err(|_| bad())?;
                    let start = sys::now_ns();
                    for _ in 0..n {
                        pair.trip()?;
                    }
                    Ok((sys::now_ns() - start).to_string())
                }
                _ => Err(io::Error::other(format!("bad request {words:?}"))),
            }),
            Err(e) if e.kind() == io::ErrorKind::InvalidInput => Err(e),
            Err(e) => super::super::serve_unavailable(e),
        }
    }

    /// A forked partner, killed and reaped on drop.
    type Partner = kpath::Forked;

    /// Forks a partner that runs `body` until it fails.
    fn fork_partner(body: impl FnOnce() -> io::Result<()>) -> io::Result<Partner> {
        // SAFETY: this process is single-threaded (the futex_thread kind
        // starts its thread without forking).
        unsafe { kpath::fork_child(body) }
    }

    /// The futex hand-off: the driver posts odd values and waits for the
    /// next even one; the partner waits for odd and posts even.
    fn futex_partner(w: &AtomicU32, shared: bool) -> io::Result<()> {
        let mut seq = 0u32;
        loop {
            kpath::futex_await(w, seq.wrapping_add(1), shared)?;
            seq = seq.wrapping_add(2);
            kpath::futex_post(w, seq, shared)?;
        }
    }

    fn eventfd() -> io::Result<OwnedFd> {
        use nix::sys::eventfd::{EfdFlags, EventFd};
        Ok(EventFd::from_flags(EfdFlags::EFD_CLOEXEC)?.into())
    }

    #[inline]
    fn ev_signal(fd: RawFd) -> io::Result<()> {
        match sys::write(fd, &1u64.to_ne_bytes())? {
            8 => Ok(()),
            n => Err(io::Error::other(format!("eventfd write of {n} bytes"))),
        }
    }

    #[inline]
    fn ev_wait(fd: RawFd) -> io::Result<()> {
        let mut b = [0u8; 8];
        match sys::read(fd, &mut b)? {
            8 if u64::from_ne_bytes(b) == 1 => Ok(()),
            n => Err(io::Error::other(format!("eventfd read {n} bytes {b:?}"))),
        }
    }

    #[inline]
    fn echo_byte(w: RawFd, r: RawFd, byte: u8) -> io::Result<()> {
        if sys::write(w, &[byte])? != 1 {
            return Err(io::Error::other("short datagram send"));
        }
        let mut got = [0u8; 1];
        match sys::read(r, &mut got)? {
            1 if got[0] == byte => Ok(()),
            n => Err(io::Error::other(format!(
                "datagram of {n} bytes {got:?}, want [{byte}]"
            ))),
        }
    }

    /// A POSIX message queue, closed on drop (nix's `MqdT` is not).
    struct Queue(Option<mqueue::MqdT>);

    impl Queue {
        fn open(tag: &str) -> io::Result<Queue> {
            use mqueue::{mq_open, mq_unlink, MQ_OFlag, MqAttr};
            use nix::sys::stat::Mode;
            let name = std::ffi::CString::new(format!("/lmbench-wake-{}-{tag}", sys::getpid()))
                .map_err(io::Error::other)?;
            // One message of up to 8 bytes.
            let attr = MqAttr::new(0, 1, 8, 0);
            let flags = MQ_OFlag::O_CREAT | MQ_OFlag::O_EXCL | MQ_OFlag::O_RDWR;
            let q = mq_open(
                name.as_c_str(),
                flags,
                Mode::from_bits_truncate(0o600),
                Some(&attr),
            )?;
            // Unlinked at once: nothing is left behind, whatever happens.
            let _ = mq_unlink(name.as_c_str());
            Ok(Queue(Some(q)))
        }
        #[inline]
        fn send(&self, byte: u8) -> io::Result<()> {
            let q = self.0.as_ref().expect("open until dropped");
            Ok(mqueue::mq_send(q, &[byte], 0)?)
        }
        #[inline]
        fn recv(&self, want: u8) -> io::Result<()> {
            let q = self.0.as_ref().expect("open until dropped");
            let mut buf = [0u8; 8];
            let mut prio = 0;
            match mqueue::mq_receive(q, &mut buf, &mut prio)? {
                1 if buf[0] == want => Ok(()),
                n => Err(io::Error::other(format!(
                    "message of {n} bytes {:?}",
                    &buf[..1]
                ))),
            }
        }
    }

    impl Drop for Queue {
        fn drop(&mut self) {
            if let Some(q) = self.0.take() {
                let _ = mqueue::mq_close(q);
            }
        }
    }

    // The Partner fields are held for their Drop (kill and reap).
    #[allow(dead_code)]
    enum Pair {
        Eventfd(OwnedFd, OwnedFd, Partner),
        Futex(u32, Partner, SharedAtomics),
        Dgram(OwnedFd, u8, Partner),
        Mqueue(Queue, Queue, u8, Partner),
        Thread(u32, Arc<AtomicU32>),
    }

    impl Pair {
        fn start(kind: &str) -> io::Result<Pair> {
            Ok(match kind {
                "eventfd" => {
                    let (to, from) = (eventfd()?, eventfd()?);
                    let (t, f) = (to.as_raw_fd(), from.as_raw_fd());
                    let p = fork_partner(|| loop {
                        ev_wait(t)?;
                        ev_signal(f)?;
                    })?;
                    Pair::Eventfd(to, from, p)
                }
                "futex" => {
                    let w = SharedAtomics::new(4096)?;
                    let p = fork_partner(|| futex_partner(w.at(0), true))?;
                    Pair::Futex(0, p, w)
                }
                "dgram" => {
                    use socket2::{Domain, Socket, Type};
                    let (ours, theirs) = Socket::pair(Domain::UNIX, Type::DGRAM, None)?;
                    let (ours, theirs) = (OwnedFd::from(ours), OwnedFd::from(theirs));
                    let fd = theirs.as_raw_fd();
                    let p = fork_partner(|| {
                        let mut b = [0u8; 1];
                        loop {
                            if sys::read(fd, &mut b)? != 1 || sys::write(fd, &b)? != 1 {
                                return Err(io::Error::other("short datagram"));
                            }
                        }
                    })?;
                    drop(theirs);
                    Pair::Dgram(ours, 0, p)
                }
                "mqueue" => {
                    let (to, from) = (Queue::open("a")?, Queue::open("b")?);
                    let p = fork_partner(|| {
                        let mut want = 0u8;
                        loop {
                            to.recv(want)?;
                            from.send(want)?;
                            want = want.wrapping_add(1);
                        }
                    })?;
                    Pair::Mqueue(to, from, 0, p)
                }
                "futex_thread" => {
                    let w = Arc::new(AtomicU32::new(0));
                    let theirs = Arc::clone(&w);
                    std::thread::Builder::new()
                        .name("wake-partner".into())
                        .spawn(move || futex_partner(&theirs, false))?;
                    Pair::Thread(0, w)
                }
                _ => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!(
                            "unknown kind {kind:?}; kinds: eventfd futex dgram mqueue futex_thread"
                        ),
                    ))
                }
            })
        }

        /// One round trip: wake the partner, sleep until it wakes us.
        #[inline]
        fn trip(&mut self) -> io::Result<()> {
            match self {
                Pair::Eventfd(to, from, _) => {
                    ev_signal(to.as_raw_fd())?;
                    ev_wait(from.as_raw_fd())
                }
                Pair::Futex(seq, _, w) => futex_trip(w.at(0), seq, true),
                Pair::Thread(seq, w) => futex_trip(w, seq, false),
                Pair::Dgram(fd, seq, _) => {
                    *seq = seq.wrapping_add(1);
                    echo_byte(fd.as_raw_fd(), fd.as_raw_fd(), *seq)
                }
                Pair::Mqueue(to, from, seq, _) => {
                    to.send(*seq)?;
                    from.recv(*seq)?;
                    *seq = seq.wrapping_add(1);
                    Ok(())
                }
            }
        }
    }

    #[inline]
    fn futex_trip(w: &AtomicU32, seq: &mut u32, shared: bool) -> io::Result<()> {
        kpath::futex_post(w, seq.wrapping_add(1), shared)?;
        *seq = seq.wrapping_add(2);
        kpath::futex_await(w, *seq, shared)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn every_kind_makes_round_trips() {
            for kind in ["eventfd", "futex", "dgram", "mqueue", "futex_thread"] {
                match Pair::start(kind) {
                    Ok(mut p) => {
                        for _ in 0..100 {
                            p.trip().unwrap_or_else(|e| panic!("{kind}: {e}"));
                        }
                    }
                    // No POSIX queues in this kernel: the bench skips it.
                    Err(e) if kind == "mqueue" => eprintln!("mqueue unavailable: {e}"),
                    Err(e) => panic!("{kind}: {e}"),
                }
            }
        }
    }
}
