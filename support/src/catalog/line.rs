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
}
