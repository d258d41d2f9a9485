//! `lmbench-peer line D`: the coherence-line probe. This small process
//! maps shared memory, binds itself to its first allowed CPU and forks a
//! partner bound to the second. On `run N` the partner adds 1 to the word
//! D bytes after a page-aligned word, over and over, while this process
//! times N atomic adds to that page-aligned word; the reply is their
//! nanoseconds. While both words share a line the adds take the line from
//! each other (tens of ns each); once D reaches the line, each CPU keeps
//! its own line.
//!
//! On every request, outside the clock: the clock starts only once the
//! partner's word has moved (it is adding on its CPU), and the timed word
//! must grow by exactly N; either failing is an error reply, never a
//! figure. With fewer than two allowed CPUs, or off Linux (affinity and
//! futex calls), every request answers `err unavailable: REASON`, which the
//! bench reports as a skip. The partner gets PR_SET_PDEATHSIG and is killed
//! and reaped when this process ends.
//!
//! Layout: two data pages (D from 8 to 4096; 4096 puts the partner's word
//! on the next page), then a control page: the run word (a futex the
//! partner sleeps on between requests, odd while it should add) and its
//! acknowledgement, 256 bytes apart so neither shares a line pair with
//! the other or with the data.

linux_only_main!();

#[cfg(any(target_os = "linux", target_os = "android"))]
mod linux {
    use std::io;
    use std::sync::atomic::Ordering::{Acquire, Relaxed};
    use std::sync::atomic::{AtomicU32, AtomicU64};

    use crate::vm::SharedAtomics;
    use crate::{kpath, sys};

    const PAGE: usize = 4096;
    const LEN: usize = 3 * PAGE;
    const RUN: usize = 2 * PAGE;
    const ACK: usize = 2 * PAGE + 256;
    /// How long either side waits for the other before the request fails.
    const WAIT_NS: u64 = 5_000_000_000;

    pub fn main(args: &[String]) -> io::Result<()> {
        let d: usize = match args {
            [d] => crate::size::parse(d)
                .ok()
                .and_then(|d| usize::try_from(d).ok())
                .filter(|d| d.is_multiple_of(8) && (8..=PAGE).contains(d)),
            _ => None,
        }
        .ok_or_else(|| {
            io::Error::other(format!(
                "bad arguments {args:?}; want D, a multiple of 8 from 8 to 4096"
            ))
        })?;
        match Probe::start(d) {
            Ok(mut probe) => super::super::serve(|words| match words {
                ["ping"] => Ok("pong".into()),
                ["run", n] => {
                    let n = n
                        .parse()
                        .map_err(|_| io::Error::other(format!("bad count {n:?}")))?;
                    probe.run(n).map(|ns| ns.to_string())
                }
                _ => Err(io::Error::other(format!("bad request {words:?}"))),
            }),
            Err(e) => super::super::serve_unavailable(e),
        }
    }

    struct Probe {
        // Dropped first: the partner is killed and reaped before the
        // memory it writes is unmapped.
        _partner: kpath::Forked,
        shared: SharedAtomics,
        d: usize,
        /// The run word's last value: odd while the partner adds.
        seq: u32,
    }

    impl Probe {
        fn start(d: usize) -> io::Result<Probe> {
            let cpus = kpath::allowed_cpus()?;
            let [mine, theirs, ..] = cpus[..] else {
                return Err(io::Error::other(format!(
                    "{} allowed CPU(s): two CPUs must write at once",
                    cpus.len()
                )));
            };
            let shared = SharedAtomics::new(LEN)?;
            kpath::pin_to(mine)?;
            // SAFETY: this process is single-threaded (a peer mode). The
            // child runs the body and exits without dropping `shared`.
            let partner = unsafe {
                kpath::fork_child(|| {
                    kpath::pin_to(theirs)?;
                    partner(&shared, d)
                })?
            };
            Ok(Probe {
                _partner: partner,
                shared,
                d,
                seq: 0,
            })
        }

        /// Times `n` adds while the partner adds beside them.
        fn run(&mut self, n: u64) -> io::Result<u64> {
            let (run, ack) = (
                self.shared.at::<AtomicU32>(RUN),
                self.shared.at::<AtomicU32>(ACK),
            );
            let (mine, theirs) = (
                self.shared.at::<AtomicU64>(0),
                self.shared.at::<AtomicU64>(self.d),
            );
            self.seq = self.seq.wrapping_add(1);
            let partner_before = theirs.load(Relaxed);
            kpath::futex_post(run, self.seq, true)?;
            wait_for(ack, self.seq, "the partner to wake")?;
            // The clock starts once the partner is adding.
            wait_until(
                || theirs.load(Relaxed) != partner_before,
                "the partner's first add",
            )?;
            let before = mine.load(Relaxed);
            let start = sys::now_ns();
            for _ in 0..n {
                mine.fetch_add(1, Relaxed);
            }
            let ns = sys::now_ns() - start;
            let added = mine.load(Relaxed).wrapping_sub(before);
            self.seq = self.seq.wrapping_add(1);
            run.store(self.seq, Relaxed);
            wait_for(ack, self.seq, "the partner to stop")?;
            if added != n {
                return Err(io::Error::other(format!(
                    "{n} adds moved the word by {added}"
                )));
            }
            Ok(ns)
        }
    }

    /// The partner: asleep until the run word turns odd, then adds to the
    /// word `d` bytes on until it changes again.
    fn partner(shared: &SharedAtomics, d: usize) -> io::Result<()> {
        let (run, ack) = (shared.at::<AtomicU32>(RUN), shared.at::<AtomicU32>(ACK));
        let w = shared.at::<AtomicU64>(d);
        let mut seq = 0u32;
        loop {
            seq = seq.wrapping_add(1);
            kpath::futex_await(run, seq, true)?;
            ack.store(seq, std::sync::atomic::Ordering::Release);
            while run.load(Relaxed) == seq {
                w.fetch_add(1, Relaxed);
            }
            seq = seq.wrapping_add(1);
            ack.store(seq, std::sync::atomic::Ordering::Release);
        }
    }

    /// Spins until `flag` reads `want`.
    fn wait_for(flag: &AtomicU32, want: u32, what: &str) -> io::Result<()> {
        wait_until(|| flag.load(Acquire) == want, what)
    }

    /// Spins until `done` (the other side is on another CPU, and a sleep
    /// would cost more than the wait), failing after WAIT_NS.
    fn wait_until(done: impl Fn() -> bool, what: &str) -> io::Result<()> {
        let deadline = sys::now_ns() + WAIT_NS;
        loop {
            for _ in 0..4096 {
                if done() {
                    return Ok(());
                }
                std::hint::spin_loop();
            }
            if sys::now_ns() > deadline {
                return Err(io::Error::other(format!(
                    "waited {} s for {what}",
                    WAIT_NS / 1_000_000_000
                )));
            }
        }
    }
}
