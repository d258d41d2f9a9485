//! Where a boot's host time goes: to the guest's init, to the settle
//! wait, to each program, and to sending the results back. Under icount
//! the figures are instructions, but the sitting's length is host time,
//! and this says which part of a boot to shorten.

use std::time::{Duration, Instant};

/// The host's clock over one boot, fed by the guest's console events.
pub struct Timeline {
    start: Instant,
    init: Option<Duration>,
    settled: Option<Duration>,
    steps: Vec<(String, Duration)>,
    current: Option<(String, Instant)>,
    last_step_end: Option<Duration>,
}

impl Timeline {
    pub fn start() -> Timeline {
        Timeline {
            start: Instant::now(),
            init: None,
            settled: None,
            steps: Vec::new(),
            current: None,
            last_step_end: None,
        }
    }

    pub fn init(&mut self) {
        self.init = Some(self.start.elapsed());
    }

    pub fn settled(&mut self) {
        self.settled = Some(self.start.elapsed());
    }

    pub fn step(&mut self, name: &str) {
        self.end_step();
        self.current = Some((name.to_string(), Instant::now()));
    }

    /// Ends the running step; returns its host time.
    pub fn end_step(&mut self) -> Option<Duration> {
        let (name, at) = self.current.take()?;
        let took = at.elapsed();
        self.steps.push((name, took));
        self.last_step_end = Some(self.start.elapsed());
        Some(took)
    }

    /// The boot's host time outside its programs (to init, settling,
    /// sending the results and powering off): what every boot costs,
    /// whatever it measures.
    pub fn outside_programs(&mut self) -> Duration {
        self.end_step();
        let in_steps: Duration = self.steps.iter().map(|(_, d)| *d).sum();
        self.start.elapsed().saturating_sub(in_steps)
    }

    /// One line: the boot's host time by phase, and its slowest programs.
    pub fn summary(&mut self) -> String {
        self.end_step();
        let total = self.start.elapsed();
        let init = self.init.unwrap_or(total);
        let settled = self.settled.unwrap_or(init).max(init);
        let in_steps: Duration = self.steps.iter().map(|(_, d)| *d).sum();
        let after = self
            .last_step_end
            .map_or(Duration::ZERO, |end| total.saturating_sub(end));
        let mut slowest: Vec<&(String, Duration)> = self.steps.iter().collect();
        slowest.sort_by_key(|s| std::cmp::Reverse(s.1));
        let slowest: Vec<String> = slowest
            .iter()
            .take(3)
            .map(|(n, d)| format!("{n} {:.1}", d.as_secs_f64()))
            .collect();
        format!(
            "{:.1} s on the host: {:.1} to init, {:.1} settling, {:.1} in {} program{}{}, {:.1} sending results and powering off",
            total.as_secs_f64(),
            init.as_secs_f64(),
            (settled - init).as_secs_f64(),
            in_steps.as_secs_f64(),
            self.steps.len(),
            if self.steps.len() == 1 { "" } else { "s" },
            if slowest.is_empty() {
                String::new()
            } else {
                format!(" (slowest: {})", slowest.join(", "))
            },
            after.as_secs_f64(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_add_up_and_name_the_slowest() {
        let mut t = Timeline::start();
        t.init();
        t.settled();
        t.step("lat_syscall");
        std::thread::sleep(Duration::from_millis(30));
        t.step("lat_pipe");
        std::thread::sleep(Duration::from_millis(5));
        let line = t.summary();
        assert!(line.contains("in 2 programs"), "{line}");
        assert!(line.contains("(slowest: lat_syscall 0."), "{line}");
        assert_eq!(t.steps.len(), 2);
        assert!(t.steps[0].1 > t.steps[1].1);
        let outside = t.outside_programs();
        assert!(outside < t.start.elapsed() - t.steps[0].1, "{outside:?}");
    }
}
