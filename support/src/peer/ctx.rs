//! `lmbench-peer ctx P K [pin]`: lmbench's lat_ctx ring, run from this
//! small process. It makes P pipes and forks P-1 ring members (this process
//! is member 0, the driver); pipe i carries the token from member i to
//! member i+1 mod P. Every member owns a private K KB working set (zeroed
//! once) and, on each receipt of the 4-byte token, sums it one 8-byte
//! word at a time (scalar, volatile loads: as lmbench, never vectorised)
//! before passing the token on. With `pin` (Linux), this process binds
//! itself to one CPU before forking, so every member runs on that CPU.
//!
//! Requests: `pair B M` → M rounds, each an overhead block (B*P passes:
//! write the token to a private pipe, read it back, sum the K KB set; no
//! switch, lmbench's overhead) and a ring block (B trips round the ring,
//! B*P hand-offs), each block after one untimed pass/trip; odd rounds run
//! the ring block first (ABBA), so a drift in time weighs on both alike.
//! Replies `RING_NS OVERHEAD_NS` (see [`Paired`]): the ring's hand-offs and
//! their own overhead, measured moments apart in the same process with the
//! same placement. `run N` → N trips round the ring (N*P hand-offs),
//! replying the nanoseconds; `overhead N` → N overhead passes, replying the
//! nanoseconds (both unpaired: kept for direct use and older bench
//! binaries); `ping` → `pong cpu=C|any`.
//!
//! A member that dies closes its pipe ends, so its successor reads EOF and
//! exits too; the driver then reads EOF and answers `err`. Members get
//! PR_SET_PDEATHSIG, and the driver kills and reaps them when it exits.

use std::hint::black_box;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::time::Duration;

use crate::catalog::lat_ctx::NOT_POSITIVE_NS;
use crate::{ipc, sys};

const TOKEN: [u8; 4] = *b"ctx!";

pub fn main(args: &[String]) -> io::Result<()> {
    let bad = || io::Error::other(format!("bad arguments {args:?}; want P K [pin]"));
    let (p, k, pin) = match args {
        [p, k] => (p, k, false),
        [p, k, pin] if pin == "pin" => (p, k, true),
        _ => return Err(bad()),
    };
    let p: usize = p
        .parse()
        .ok()
        .filter(|&p| (1..=64).contains(&p))
        .ok_or_else(bad)?;
    let k: usize = k.parse().ok().filter(|&k| k <= 64 * 1024).ok_or_else(bad)?;
    let cpu = if pin { Some(pin_to_one_cpu()?) } else { None };
    let ring = Ring::start(p, k)?;
    let (self_r, self_w) = ipc::pipe()?;
    let mut set = WorkingSet::new(k);
    super::serve(|words| match words {
        ["ping"] => Ok(match cpu {
            Some(c) => format!("pong cpu={c}"),
            None => "pong cpu=any".into(),
        }),
        ["run", n] => {
            let n: u64 = n.parse().map_err(|_| bad())?;
            ring.trips(n, &mut set).map(|ns| ns.to_string())
        }
        ["overhead", n] => {
            let n: u64 = n.parse().map_err(|_| bad())?;
            overhead(n, &self_w, &self_r, &mut set).map(|ns| ns.to_string())
        }
        ["pair", b, m] => {
            let b: u64 = b.parse().ok().filter(|&b| b > 0).ok_or_else(bad)?;
            let m: u64 = m.parse().ok().filter(|&m| m > 0).ok_or_else(bad)?;
            let (mut ring_ns, mut ovh_ns) = (0, 0);
            for round in 0..m {
                let ovh_first = round % 2 == 0;
                if ovh_first {
                    ovh_ns += overhead_block(b * p as u64, &self_w, &self_r, &mut set)?;
                }
                ring_ns += ring.trips(b, &mut set)?;
                if !ovh_first {
                    ovh_ns += overhead_block(b * p as u64, &self_w, &self_r, &mut set)?;
                }
            }
            Ok(format!("{ring_ns} {ovh_ns}"))
        }
        _ => Err(io::Error::other(format!("bad request {words:?}"))),
    })
}

/// `n` overhead passes (token through a private pipe, then the sum);
/// returns nanoseconds.
fn overhead(n: u64, w: &OwnedFd, r: &OwnedFd, set: &mut WorkingSet) -> io::Result<u64> {
    let start = sys::now_ns();
    for _ in 0..n {
        pass(w.as_raw_fd(), r.as_raw_fd(), set)?;
    }
    Ok(sys::now_ns() - start)
}

/// One untimed overhead pass (the block starts as warm as a ring block,
/// which is preceded by one untimed trip), then `n` timed ones.
fn overhead_block(n: u64, w: &OwnedFd, r: &OwnedFd, set: &mut WorkingSet) -> io::Result<u64> {
    pass(w.as_raw_fd(), r.as_raw_fd(), set)?;
    overhead(n, w, r, set)
}

/// The reply of `pair B M` for a ring of P: the ring blocks' and the
/// overhead blocks' nanoseconds, each over `hops` = B*M*P hand-offs or
/// passes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Paired {
    pub ring_ns: u64,
    pub overhead_ns: u64,
    pub hops: u64,
}

impl Paired {
    /// Parses `RING_NS OVERHEAD_NS` for a request of `b` trips per block,
    /// `m` rounds, a ring of `p`.
    pub fn parse(reply: &str, p: usize, b: u64, m: u64) -> io::Result<Paired> {
        let bad = || io::Error::other(format!("bad pair reply {reply:?}"));
        let mut it = reply.split_whitespace().map(|w| w.parse::<u64>());
        match (it.next(), it.next(), it.next()) {
            (Some(Ok(ring_ns)), Some(Ok(overhead_ns)), None) => Ok(Paired {
                ring_ns,
                overhead_ns,
                hops: b * m * p as u64,
            }),
            _ => Err(bad()),
        }
    }

    /// lmbench's figure from this one pair: nanoseconds per hand-off of
    /// the ring minus those of its own overhead. May be zero or negative
    /// when the switch is lost in the noise.
    pub fn switch_ns(&self) -> f64 {
        (self.ring_ns as f64 - self.overhead_ns as f64) / self.hops as f64
    }

    /// The Criterion sample of this pair for `iters` trips: the switch per
    /// hand-off times `iters`, whole nanoseconds. A switch at or below
    /// [`NOT_POSITIVE_NS`] is stored as that (a duration cannot be
    /// negative), which keeps every sample at least 1 ns: Criterion
    /// discards a benchmark with a zero-length sample.
    pub fn sample(&self, iters: u64) -> Duration {
        let ns = self.switch_ns().max(NOT_POSITIVE_NS) * iters.max(1) as f64;
        Duration::from_nanos(ns.round() as u64)
    }
}

/// A member's private working set, summed on every receipt of the token.
/// The same code sums it in the ring and in the overhead loop.
struct WorkingSet(Vec<u64>);

impl WorkingSet {
    fn new(kbytes: usize) -> WorkingSet {
        WorkingSet(vec![0u64; kbytes * 1024 / 8])
    }

    /// Sums the set one 8-byte word at a time, as lmbench's scalar C loop
    /// does. Each load is volatile, so the compiler can neither skip a pass
    /// nor vectorise the loop: a vectorised sum speeds up more in the warm
    /// overhead loop than after a switch, and the subtraction then takes
    /// too little away (64K overhead 1.40 us vectorised against the C
    /// suite's 1.94).
    #[inline]
    fn sum(&mut self) {
        let words = black_box(&mut self.0);
        let p = words.as_ptr();
        let mut s = 0u64;
        for i in 0..words.len() {
            // SAFETY: i < len: inside the vector.
            s = s.wrapping_add(unsafe { p.add(i).read_volatile() });
        }
        black_box(s);
    }
}

/// Writes the token to `w`, reads it from `r`, then sums the working set.
#[inline]
fn pass(w: RawFd, r: RawFd, set: &mut WorkingSet) -> io::Result<()> {
    if sys::write(w, &TOKEN)? != TOKEN.len() {
        return Err(io::Error::other("short token write"));
    }
    let mut got = [0u8; 4];
    match sys::read(r, &mut got)? {
        4 if got == TOKEN => {}
        0 => return Err(io::Error::other("a ring member died (pipe closed)")),
        n => return Err(io::Error::other(format!("bad token: {n} bytes {got:?}"))),
    }
    set.sum();
    Ok(())
}

struct Ring {
    /// The driver's ends: write to member 1, read from member P-1.
    to_next: OwnedFd,
    from_prev: OwnedFd,
    members: Vec<libc::pid_t>,
}

impl Ring {
    fn start(p: usize, k: usize) -> io::Result<Ring> {
        let mut pipes: Vec<(OwnedFd, OwnedFd)> =
            (0..p).map(|_| ipc::pipe()).collect::<io::Result<_>>()?;
        let parent = sys::getpid();
        let mut members = Vec::new();
        for i in 1..p {
            // SAFETY: this process is single-threaded, so the child may run
            // any code (it allocates, loops and exits without returning).
            let pid = unsafe { libc::fork() };
            if pid < 0 {
                let e = io::Error::last_os_error();
                reap(&members);
                return Err(e);
            }
            if pid == 0 {
                let (from_prev, to_next) = (pipes[i - 1].0.as_raw_fd(), pipes[i].1.as_raw_fd());
                // Keep only our two ends: a member's death must close the
                // last copy of its write end, or its successor never sees EOF.
                for fd in pipes
                    .iter()
                    .flat_map(|(r, w)| [r.as_raw_fd(), w.as_raw_fd()])
                {
                    if fd != from_prev && fd != to_next {
                        // A descriptor this child never uses; its OwnedFd
                        // is never dropped here (we _exit).
                        let _ = nix::unistd::close(fd);
                    }
                }
                let code = member(parent, k, from_prev, to_next);
                // SAFETY: leave without running the parent's destructors.
                unsafe { libc::_exit(code) }
            }
            members.push(pid);
        }
        let (from_prev, _) = pipes.pop().map(|(r, w)| (r, drop(w))).expect("p >= 1");
        let to_next = if p == 1 {
            // A ring of one: the token comes straight back (unused by lat_ctx).
            let (r, w) = ipc::pipe()?;
            drop(r);
            w
        } else {
            let (r, w) = pipes.swap_remove(0);
            drop(r);
            w
        };
        drop(pipes);
        Ok(Ring {
            to_next,
            from_prev,
            members,
        })
    }

    /// One untimed trip, then `n` timed trips; returns nanoseconds.
    fn trips(&self, n: u64, set: &mut WorkingSet) -> io::Result<u64> {
        let (w, r) = (self.to_next.as_raw_fd(), self.from_prev.as_raw_fd());
        if self.members.is_empty() {
            return Err(io::Error::other("a ring of one process has no switches"));
        }
        pass(w, r, set)?;
        let start = sys::now_ns();
        for _ in 0..n {
            pass(w, r, set)?;
        }
        Ok(sys::now_ns() - start)
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        reap(&self.members);
    }
}

fn reap(pids: &[libc::pid_t]) {
    use nix::sys::signal::{kill, Signal};
    for &pid in pids {
        let pid = nix::unistd::Pid::from_raw(pid);
        let _ = kill(pid, Signal::SIGKILL);
        let _ = nix::sys::wait::waitpid(pid, None);
    }
}

/// A ring member's life, in the forked child: returns its exit code.
fn member(parent: libc::pid_t, k: usize, from_prev: RawFd, to_next: RawFd) -> i32 {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let _ = nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL);
    // The driver may have died before prctl took effect.
    if nix::unistd::getppid().as_raw() != parent {
        return 1;
    }
    // Only the driver talks on stdin/stdout: inherited descriptors this
    // process never uses.
    let _ = nix::unistd::close(0);
    let _ = nix::unistd::close(1);
    let mut set = WorkingSet::new(k);
    let mut tok = [0u8; 4];
    loop {
        match sys::read(from_prev, &mut tok) {
            Ok(4) => {}
            Ok(0) => return 0,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            _ => return 2,
        }
        set.sum();
        if sys::write(to_next, &tok).ok() != Some(4) {
            return 3;
        }
    }
}

/// Binds this process to one CPU (the last it may run on) for the rest
/// of its life; returns it.
fn pin_to_one_cpu() -> io::Result<usize> {
    let pin = crate::child::OneCpu::pin()?;
    let cpu = pin.cpu;
    // Never unbind: the ring members forked later must inherit it.
    std::mem::forget(pin);
    Ok(cpu)
}

#[cfg(test)]
mod tests {
    use super::Paired;

    #[test]
    fn a_pair_is_the_ring_minus_its_overhead_per_hand_off() {
        let p = Paired::parse("9000 3000", 2, 10, 3).unwrap();
        assert_eq!(p.hops, 60);
        assert_eq!(p.switch_ns(), 100.0);
        // A switch lost in the noise comes out negative, not clamped.
        assert!(Paired::parse("2900 3000", 2, 10, 3).unwrap().switch_ns() < 0.0);
        for bad in ["", "1", "1 2 3", "1 -2", "a b"] {
            assert!(Paired::parse(bad, 2, 1, 1).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_sample_is_never_zero_and_marks_a_switch_in_the_noise() {
        use super::NOT_POSITIVE_NS;
        use std::time::Duration;
        let p = Paired::parse("9000 3000", 2, 10, 3).unwrap();
        assert_eq!(p.sample(7), Duration::from_nanos(700));
        // Negative, zero and sub-nanosecond switches: the marker per trip,
        // at least 1 ns for one trip (Criterion drops zero samples).
        for reply in ["2900 3000", "3000 3000", "3001 3000"] {
            let p = Paired::parse(reply, 2, 10, 3).unwrap();
            for iters in [1, 3, 250, 100_000] {
                let s = p.sample(iters);
                assert_eq!(s.as_nanos() as f64, NOT_POSITIVE_NS * iters as f64);
                assert!(!s.is_zero());
            }
        }
    }
}
