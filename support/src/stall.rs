//! A deadline for blocking reads that have no timeout of their own (a
//! pipe: SO_RCVTIMEO is for sockets), without a second thread in the timed
//! process: a POSIX timer aimed at this thread (Linux `SIGEV_THREAD_ID`)
//! sends SIGALRM, whose no-op handler is installed without SA_RESTART, so a
//! read blocked past the deadline returns EINTR. Arming costs one
//! timer_settime(2) per call, outside any per-operation loop; the read
//! path itself is untouched. Elsewhere than Linux it does nothing.

use std::io;
use std::time::Duration;

#[cfg(target_os = "linux")]
use nix::sys::{signal, timer};

/// A per-thread deadline timer; see the module doc.
pub struct Stall {
    /// `set` takes `&mut`; arming through `&self` keeps [`Stall`] usable
    /// from the closures that borrow it (one flag check per arm, outside
    /// any per-operation loop).
    #[cfg(target_os = "linux")]
    timer: std::cell::RefCell<timer::Timer>,
}

#[cfg(target_os = "linux")]
extern "C" fn on_alarm(_: libc::c_int) {}

impl Stall {
    /// A disarmed timer for the calling thread.
    pub fn new() -> io::Result<Stall> {
        #[cfg(target_os = "linux")]
        {
            use signal::{SaFlags, SigAction, SigEvent, SigHandler, SigSet, SigevNotify, Signal};
            // No SA_RESTART: the blocked read returns EINTR.
            let sa = SigAction::new(
                SigHandler::Handler(on_alarm),
                SaFlags::empty(),
                SigSet::empty(),
            );
            // SAFETY: the handler does nothing, so it is async-signal-safe.
            unsafe { signal::sigaction(Signal::SIGALRM, &sa) }?;
            let ev = SigEvent::new(SigevNotify::SigevThreadId {
                signal: Signal::SIGALRM,
                thread_id: nix::unistd::gettid().as_raw(),
                si_value: 0,
            });
            let timer = timer::Timer::new(nix::time::ClockId::CLOCK_MONOTONIC, ev)?;
            Ok(Stall {
                timer: std::cell::RefCell::new(timer),
            })
        }
        #[cfg(not(target_os = "linux"))]
        Ok(Stall {})
    }

    /// Interrupts this thread's blocking call if it is still blocked after
    /// `after` (and again every `after` until [`disarm`](Self::disarm)).
    #[inline]
    pub fn arm(&self, after: Duration) {
        self.set(after);
    }

    pub fn disarm(&self) {
        self.set(Duration::ZERO);
    }

    #[cfg_attr(not(target_os = "linux"), allow(unused_variables))]
    fn set(&self, t: Duration) {
        #[cfg(target_os = "linux")]
        {
            // Zero in both fields disarms (one timer_settime(2) either way).
            let ts = nix::sys::time::TimeSpec::from_duration(t);
            let spec = timer::Expiration::Interval(ts);
            let _ = self
                .timer
                .borrow_mut()
                .set(spec, timer::TimerSetTimeFlags::empty());
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn a_blocked_pipe_read_is_interrupted() {
        let (r, _w) = crate::ipc::pipe().unwrap();
        let stall = Stall::new().unwrap();
        stall.arm(Duration::from_millis(100));
        let start = std::time::Instant::now();
        let err = crate::sys::read(r.as_raw_fd(), &mut [0u8; 8]).unwrap_err();
        stall.disarm();
        assert_eq!(err.kind(), io::ErrorKind::Interrupted);
        assert!(start.elapsed() < Duration::from_secs(2));
    }
}
