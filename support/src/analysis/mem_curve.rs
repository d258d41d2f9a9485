//! The memory-latency sweeps (`lat_mem_rd`) read as curves: each chain
//! shape's measured latency by working-set size, where the curve rises
//! (the ends of cache levels), and the run's top size with each memory
//! column's figure there.
use crate::catalog::lat_mem_rd::{self as lm, INPAGE_FN, LOW_TOP, PAGE_FN, RAND_FN, TABLE_FN};
use crate::catalog::Lookup;

/// The measured curve of one chain shape: (bytes, ns per load), by
/// increasing size, at the sizes the run has a figure for.
pub fn latencies_by_size(run: &dyn Lookup, function: &str) -> Vec<(u64, f64)> {
    lm::metrics_by_size(function)
        .into_iter()
        .filter_map(|(s, m)| Some((s, run.value(m)?)))
        .collect()
}

/// The curve levels are read from: the widest stride, which the hardware
/// prefetchers follow least (stride 128 hides most of L2 and L3).
pub const LEVEL_FN: &str = lm::function::S1024;

/// A rise of the curve this large (over one or a few adjacent points)
/// marks the end of a level.
const RISE: f64 = 1.3;

/// Where the curve says cache levels end: each rise of at least 30 %, as
/// (last size before it, size where it tops out); a level's size lies
/// between the two (the curve has one point per doubling).
pub fn curve_ends(run: &dyn Lookup) -> Vec<(u64, u64)> {
    ends(&latencies_by_size(run, LEVEL_FN))
}

/// [`curve_ends`] of a curve (bytes, ns) by increasing size.
fn ends(c: &[(u64, f64)]) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < c.len() {
        if c[i + 1].1 > 1.1 * c[i].1 {
            // Follow the rise while it keeps rising.
            let mut j = i + 1;
            while j + 1 < c.len() && c[j + 1].1 > 1.1 * c[j].1 {
                j += 1;
            }
            // The new level must hold at the next point too (noise spikes
            // are single points).
            let holds = c.get(j + 1).is_none_or(|n| n.1 >= RISE * c[i].1);
            if c[j].1 >= RISE * c[i].1 && holds {
                out.push((c[i].0, c[j].0));
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// The working set a run's memory columns (Main mem, Rand mem and their
/// random-in-level counterparts) read at: the machine's top size when the
/// run was made (`lat_mem_rd::top_size`; 1 GiB in runs before it was per
/// machine), found as the largest size the Rand mem chain, else the
/// stride-128 chain, has a figure at.
pub fn run_top(run: &dyn Lookup) -> Option<u64> {
    [RAND_FN, TABLE_FN].iter().find_map(|f| {
        lm::metrics_by_size(f)
            .into_iter()
            .rev()
            .take_while(|(s, _)| *s >= LOW_TOP)
            .find(|(_, m)| run.value(m).is_some())
            .map(|(s, _)| s)
    })
}

/// Chain `function`'s figure at the run's top size.
fn at_top(run: &dyn Lookup, function: &str) -> Option<f64> {
    run.value(lm::point(function, run_top(run)?)?)
}

/// Main mem: the stride-128 chain at the run's top size.
pub fn main_mem(run: &dyn Lookup) -> Option<f64> {
    at_top(run, TABLE_FN)
}

/// Rand mem: lmbench's thrash chain at the run's top size.
pub fn rand_mem(run: &dyn Lookup) -> Option<f64> {
    at_top(run, RAND_FN)
}

/// Memory random in level: random lines within random pages at the run's
/// top size.
pub fn in_page_mem(run: &dyn Lookup) -> Option<f64> {
    at_top(run, INPAGE_FN)
}

/// TLB/page walk: one load per page at the run's top size.
pub fn page_walk(run: &dyn Lookup) -> Option<f64> {
    at_top(run, PAGE_FN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::FakeCaches;
    use crate::catalog::FakeRun;

    #[test]
    fn ends_follow_rises() {
        let c = [
            (16u64, 1.0),
            (32, 1.0),
            (48, 1.05),
            (64, 2.0),
            (96, 3.0),
            (128, 3.1),
            (256, 3.2),
            (512, 10.0),
            (768, 10.0),
            (1024, 30.0),
        ];
        assert_eq!(ends(&c), vec![(48, 96), (256, 512), (768, 1024)]);
        // A one-point spike is noise, not a level.
        assert!(ends(&[(1, 1.0), (2, 5.0), (3, 1.0), (4, 1.0)]).is_empty());
        assert!(ends(&[(1, 1.0), (2, 1.2), (3, 1.2)]).is_empty());
    }

    #[test]
    fn a_curve_has_the_sizes_the_run_measured_in_ascending_order() {
        let run = FakeRun(&[
            ("lat_mem_rd/s1024/8m", 30.0),
            ("lat_mem_rd/s1024/64k", 2.0),
            ("lat_mem_rd/s128/64k", 9.0),
        ]);
        assert_eq!(
            latencies_by_size(&run, LEVEL_FN),
            vec![(64 << 10, 2.0), (8 << 20, 30.0)]
        );
        assert!(latencies_by_size(&run, RAND_FN).is_empty());
    }

    #[test]
    fn memory_columns_read_at_the_runs_top_size() {
        let old = FakeCaches::old();
        let new = FakeCaches::topped_at(2 << 30);
        assert_eq!(run_top(&old), Some(1 << 30));
        assert_eq!(run_top(&new), Some(2 << 30));
        for f in [main_mem, rand_mem, in_page_mem, page_walk] {
            assert_eq!(f(&old), Some(90.0));
            assert_eq!(f(&new), Some(95.0));
        }
        // A run with no point at a top size (a filtered run) has no top.
        let small = FakeCaches::topped_at(32 << 20);
        assert_eq!((run_top(&small), rand_mem(&small)), (None, None));
    }
}
