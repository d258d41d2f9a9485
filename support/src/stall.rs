//! A deadline for blocking reads that have no timeout of their own (a
//! pipe: SO_RCVTIMEO is for sockets), without a second thread in the timed
//! process: a POSIX timer aimed at this thread (Linux `SIGEV_THREAD_ID`)
//! sends SIGALRM, whose no-op handler is installed without SA_RESTART, so a
//! read blocked past the deadline returns EINTR. Arming costs one
//! timer_settime(2) per call, outside any per-operation loop; the read
//! path itself is untouched. Elsewhere than Linux it does nothing.

use std::io;
use std::time::Duration;

/// A per-thread deadline timer; see the module doc.
pub struct Stall {
    #[cfg(target_os = "linux")]
    timer: libc::timer_t,
}

#[cfg(target_os = "linux")]
extern "C" fn on_alarm(_: libc::c_int) {}

impl Stall {
    /// A disarmed timer for the calling thread.
    pub fn new() -> io::Result<Stall> {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: zeroed sigaction/sigevent are valid starting points;
            // the handler does nothing, so it is async-signal-safe.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = on_alarm as *const () as usize;
                sa.sa_flags = 0; // no SA_RESTART: the blocked read returns EINTR
                libc::sigemptyset(&mut sa.sa_mask);
                if libc::sigaction(libc::SIGALRM, &sa, std::ptr::null_mut()) != 0 {
                    return Err(io::Error::last_os_error());
                }
                let mut ev: libc::sigevent = std::mem::zeroed();
                ev.sigev_notify = libc::SIGEV_THREAD_ID;
                ev.sigev_signo = libc::SIGALRM;
                ev.sigev_notify_thread_id = libc::gettid();
                let mut timer: libc::timer_t = std::mem::zeroed();
                if libc::timer_create(libc::CLOCK_MONOTONIC, &mut ev, &mut timer) != 0 {
                    return Err(io::Error::last_os_error());
                }
                Ok(Stall { timer })
            }
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
            let ts = libc::timespec {
                tv_sec: t.as_secs() as libc::time_t,
                tv_nsec: t.subsec_nanos() as libc::c_long,
            };
            let spec = libc::itimerspec {
                it_interval: ts,
                it_value: ts,
            };
            // SAFETY: our timer and a valid itimerspec.
            unsafe { libc::timer_settime(self.timer, 0, &spec, std::ptr::null_mut()) };
        }
    }
}

impl Drop for Stall {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        // SAFETY: our timer, deleted once.
        unsafe {
            libc::timer_delete(self.timer);
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
