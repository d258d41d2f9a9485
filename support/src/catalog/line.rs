//! line (lmbench's `line` answers the same question, by latency): the
//! coherence line, from two CPUs writing words a distance apart. Ids:
//! `line/shared/<distance>`. While the two words share a cache line, every
//! atomic add must take the line from the other CPU; from the line size on,
//! each CPU keeps its own line and an add costs what it costs alone. So
//! the step is at the line itself, where the latency detector
//! (`lat_mem_rd/line*`) may read the pair an adjacent-line prefetcher
//! fetches (on a 2-vCPU Intel Xeon KVM guest, 128 B apart cost what 4 KiB
//! apart does).
use super::{Metric, Program, Unit};

macro_rules! distance {
    ($name:ident, $d:literal) => {
        pub static $name: Metric = Metric::median(
            concat!("line/shared/", $d),
            Unit::Nanos,
            concat!(
                "one atomic 8-byte add on one CPU while another CPU adds to the word ",
                $d,
                " bytes after it"
            ),
        );
    };
}

distance!(D8, "8");
distance!(D16, "16");
distance!(D32, "32");
distance!(D64, "64");
distance!(D128, "128");
distance!(D256, "256");
distance!(D4K, "4k");

pub static PROGRAM: Program = Program {
    name: "line",
    about: "the coherence line: an atomic add while another CPU adds to a word d bytes away (ns)",
    metrics: &[&D8, &D16, &D32, &D64, &D128, &D256, &D4K],
};

/// The distance in bytes of a metric of this program.
pub fn distance_of(m: &Metric) -> Option<u64> {
    crate::size::parse(m.function_and_parameter().1?).ok()
}

/// The figures a run holds, by distance, ascending.
pub fn curve(run: &dyn super::Lookup) -> Vec<(u64, f64)> {
    PROGRAM
        .metrics
        .iter()
        .filter_map(|m| Some((distance_of(m)?, run.value(m)?)))
        .collect()
}

/// The coherence line a curve shows: the smallest distance from which
/// every add costs less than the geometric middle of the nearest pair's
/// (the first distance) and the farthest pair's (a word on another page),
/// when the nearest costs at least [`CONTENDED`] times the farthest (else
/// the two CPUs did not contend: one CPU, or no overlap in time). The
/// middle tolerates a partial cost at twice the line (an adjacent-line
/// prefetcher that steals the neighbour now and then).
pub fn line_of(curve: &[(u64, f64)]) -> Option<u64> {
    let (&(_, near), &(_, far)) = (curve.first()?, curve.last()?);
    if curve.len() < 3 || !(near >= CONTENDED * far && far > 0.0) {
        return None;
    }
    let middle = (near * far).sqrt();
    let first_free = curve.iter().position(|&(_, ns)| ns < middle)?;
    curve[first_free..]
        .iter()
        .all(|&(_, ns)| ns < middle)
        .then_some(curve[first_free].0)
}

/// How much dearer the nearest pair's add must be than the farthest's for
/// the curve to show contention at all. Measured on a 2-vCPU Intel Xeon
/// KVM guest: 32-42 ns up to 48 B apart, 5.3-5.5 ns from 64 B (7x).
pub const CONTENDED: f64 = 3.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_are_sizes_in_ascending_order() {
        let d: Vec<u64> = PROGRAM
            .metrics
            .iter()
            .filter_map(|m| distance_of(m))
            .collect();
        assert_eq!(d, [8, 16, 32, 64, 128, 256, 4096]);
    }

    #[test]
    fn the_line_is_where_adds_stop_contending() {
        let xeon = [
            (8, 41.9),
            (16, 41.2),
            (32, 39.5),
            (64, 5.5),
            (128, 5.4),
            (256, 5.5),
            (4096, 5.4),
        ];
        assert_eq!(line_of(&xeon), Some(64));
        // A 128 B line, and a 64 B line whose neighbour is stolen now and
        // then (twice the free cost, under the middle).
        let wide = [
            (8, 80.0),
            (16, 80.0),
            (32, 80.0),
            (64, 78.0),
            (128, 6.0),
            (256, 6.0),
            (4096, 6.0),
        ];
        assert_eq!(line_of(&wide), Some(128));
        let pair = [
            (8, 40.0),
            (16, 40.0),
            (32, 40.0),
            (64, 11.0),
            (128, 5.5),
            (256, 5.5),
            (4096, 5.5),
        ];
        assert_eq!(line_of(&pair), Some(64));
    }

    #[test]
    fn no_contention_or_no_clean_step_is_no_line() {
        // One CPU: the partner never overlaps.
        let flat = [
            (8, 6.0),
            (16, 6.0),
            (32, 6.0),
            (64, 5.9),
            (128, 5.9),
            (256, 6.0),
            (4096, 6.0),
        ];
        assert_eq!(line_of(&flat), None);
        // A dear point past the first free one: no single step.
        let noisy = [
            (8, 40.0),
            (16, 40.0),
            (32, 5.0),
            (64, 38.0),
            (128, 5.0),
            (256, 5.0),
            (4096, 5.0),
        ];
        assert_eq!(line_of(&noisy), None);
        assert_eq!(line_of(&[(8, 40.0), (4096, 5.0)]), None);
        assert_eq!(line_of(&[]), None);
    }
}
