//! The core clock beside every sample: a few microseconds of a one-cycle
//! dependency chain, timed just before and just after each timed call
//! (outside its timing), give the cycle time the call most likely ran at.
//!
//! Why: a guest's host moves its core clock between turbo bins every few
//! tens of milliseconds. On a Xeon guest a null system call and a 1-cycle
//! add chain, measured in alternation for 90 s, went through five bins
//! from 0.245 to 0.279 ns a cycle (4.08 to 3.58 GHz) and the system call
//! followed them one for one (64.3 to 73.2 ns at the median of each bin;
//! log-log slope 1.00): the 4-7% that separates two idle sittings of a
//! CPU-bound metric is the clock, not the kernel. `lmbench compare` uses
//! these probes to compare such metrics per cycle.
//!
//! A probe is the fastest of [`PROBE_TRIES`] chains of [`PROBE_STEPS`] adds
//! (about 5 us each at 4 GHz), so an interrupt inside one chain does not
//! count; it uses registers only, so it leaves the caches as they were.

use std::time::Instant;

use crate::ops::Op;

/// Steps of one probe chain: long enough that the timer's own cost (tens
/// of ns on a guest) is under 1% of it.
pub const PROBE_STEPS: u64 = 20_000;
/// Chains per probe; the fastest counts.
pub const PROBE_TRIES: usize = 3;

/// Nanoseconds per cycle now: the fastest of [`PROBE_TRIES`] one-cycle
/// chains.
pub fn cycle_ns() -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..PROBE_TRIES {
        let t = Instant::now();
        std::hint::black_box(Op::Int64Add.run(PROBE_STEPS));
        best = best.min(t.elapsed().as_nanos() as f64);
    }
    best / PROBE_STEPS as f64
}

/// The probes around one timed call: what it returned (ns, the key that
/// matches it to Criterion's sample), and the cycle time before and after.
pub type CallClock = [f64; 3];

/// The cycle time of a sample whose probes before and after agree within
/// [`STEADY`]: their mean. A sample the clock changed speed inside has
/// none (it ran partly at each), nor has a sample without probes.
pub fn steady_cycle_ns(before: f64, after: f64) -> Option<f64> {
    let mean = (before + after) / 2.0;
    (before > 0.0 && after > 0.0 && (before - after).abs() <= STEADY * mean).then_some(mean)
}

/// The cycle time of any probed sample: the mean of its two probes,
/// steady or not. For a sample too long to run at one clock (a fork
/// loop's 150 ms spans several of the host's speed changes) the ends are
/// a rough estimate of the speed it averaged, but they follow the clock's
/// slower drift over minutes, which is what moves such a metric from run
/// to run.
pub fn probed_cycle_ns(before: f64, after: f64) -> Option<f64> {
    (before > 0.0 && after > 0.0).then_some((before + after) / 2.0)
}

/// The largest relative gap between a sample's two probes for it to count
/// as run at one clock: a change inside it then shifts it by at most half
/// this. Two quick 3-run sittings of 23 CPU-bound metrics on a Xeon guest
/// kept 7 of 10 samples a run at the median with 1% (2%: the same count,
/// a wider run-to-run spread; 0.25%: 5 of 10 and wider again).
pub const STEADY: f64 = 0.01;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_reads_a_plausible_cycle() {
        let ns = cycle_ns();
        // Not folded to nothing by the compiler (a step is a cycle or more;
        // the upper bound only catches a broken timer).
        assert!(ns > 0.05 && ns < 100.0, "{ns} ns a cycle");
    }

    #[test]
    fn only_agreeing_probes_give_a_cycle() {
        assert_eq!(steady_cycle_ns(0.25, 0.25), Some(0.25));
        assert!(steady_cycle_ns(0.250, 0.252).is_some());
        assert_eq!(steady_cycle_ns(0.245, 0.272), None);
        assert_eq!(steady_cycle_ns(0.0, 0.0), None);
    }
}
