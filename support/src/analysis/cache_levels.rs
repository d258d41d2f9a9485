//! The cache levels a run shows: each level's size (the OS's, else where
//! the curve rises), the sweep point each level column reads inside its
//! level, the figures there, and the notes under the memory-latency
//! tables: the sizes used, the cap, and lmbench's "Guesses" (levels the
//! curve does not confirm).
use super::mem_curve::{curve_ends, in_page_mem, latencies_by_size, main_mem, run_top, LEVEL_FN};
use crate::catalog::lat_mem_rd::{self as lm, INPAGE_FN, TABLE_FN};
use crate::catalog::Lookup;
use crate::size::human as human_size;

const LEVELS: [&str; 3] = ["L1", "L2", "L3"];
const FACTS: [&str; 3] = ["cache_l1d", "cache_l2", "cache_l3"];

/// Cache sizes by level: the OS's where it says, else the curve's next end.
pub fn levels(run: &dyn Lookup) -> [Option<(u64, &'static str)>; 3] {
    let os = FACTS.map(|k| run.fact(k).and_then(|s| s.trim().parse::<u64>().ok()));
    let ends = curve_ends(run);
    let mut out = [None; 3];
    let mut prev = 0u64;
    for i in 0..3 {
        out[i] = match os[i] {
            Some(b) => Some((b, "OS")),
            None => ends
                .iter()
                .find(|&&(e, _)| e > prev * 3 / 2)
                .map(|&(e, _)| (e, "curve")),
        };
        if let Some((b, _)) = out[i] {
            prev = b;
        }
    }
    out
}

/// The stride-128 sweep size each level's column uses, with the level's
/// size and where that came from: half the level, or the geometric middle
/// between it and the level below when half would be too close to that.
pub fn level_points(run: &dyn Lookup) -> [Option<(u64, (u64, &'static str))>; 3] {
    level_points_of(run, TABLE_FN)
}

/// [`level_points`] on the sweep of chain shape `function`.
pub fn level_points_of(
    run: &dyn Lookup,
    function: &str,
) -> [Option<(u64, (u64, &'static str))>; 3] {
    let lv = levels(run);
    let sizes: Vec<u64> = lm::metrics_by_size(function)
        .into_iter()
        .map(|(s, _)| s)
        .collect();
    let mut out = [None; 3];
    let mut lo = 0u64;
    for i in 0..3 {
        let Some((hi, src)) = lv[i] else { continue };
        let mut target = hi / 2;
        if target < 2 * lo {
            target = ((lo as f64) * (hi as f64)).sqrt() as u64;
        }
        out[i] = sizes
            .iter()
            .copied()
            .filter(|&s| s > lo && s <= target)
            .max()
            .map(|s| (s, (hi, src)));
        lo = hi;
    }
    out
}

/// Level `i`'s figure (0 is L1) on the stride-128 sweep, at its
/// [`level_points`] size.
pub fn level_value(run: &dyn Lookup, i: usize) -> Option<f64> {
    let (size, _) = level_points(run)[i]?;
    run.value(lm::point(TABLE_FN, size)?)
}

/// Level `i`'s figure (0 is L1) on the random-in-level chain, at its
/// [`level_points_of`] size on that chain.
pub fn in_level_value(run: &dyn Lookup, i: usize) -> Option<f64> {
    let (size, _) = level_points_of(run, INPAGE_FN)[i]?;
    run.value(lm::point(INPAGE_FN, size)?)
}

/// Lines printed under the table: the sizes used, the cap, where the curve
/// says levels end, and lmbench's "Guesses" (levels not confirmed).
pub fn mem_notes(run: &dyn Lookup) -> Vec<String> {
    let mut notes = Vec::new();
    let points = level_points(run);
    let used: Vec<String> = points
        .iter()
        .zip(LEVELS)
        .map(|(p, name)| match p {
            Some((s, (lv, src))) => {
                format!(
                    "{name} $ at {} ({src} {name} {})",
                    human_size(*s),
                    human_size(*lv)
                )
            }
            None => format!("{name} $ -"),
        })
        .collect();
    let top = run_top(run);
    notes.push(format!(
        "Points (stride 128): {}; Main mem and Rand mem at {}.",
        used.join(", "),
        top.map_or("-".into(), human_size)
    ));
    notes.push(
        "Rand mem: lmbench's chain, every line once, consecutive loads on different pages (TLB misses included)."
            .into(),
    );
    let last = levels(run).iter().flatten().map(|(b, _)| *b).max();
    if let (Some(top), Some(llc)) = (top, last) {
        if 4 * llc > top {
            notes.push(format!(
                "Capped: the sweep stops at {}, only {:.1}x the {} last-level cache (lmbench wants 4x+), so Main mem may still be partly cached.",
                human_size(top),
                top as f64 / llc as f64,
                human_size(llc)
            ));
        }
    }
    let ends = curve_ends(run);
    if !latencies_by_size(run, LEVEL_FN).is_empty() {
        let e: Vec<String> = ends
            .iter()
            .map(|&(a, b)| format!("{}-{}", human_size(a), human_size(b)))
            .collect();
        notes.push(format!(
            "Curve: stride-1024 latency rises 30%+ between {}.",
            if e.is_empty() {
                "no size".to_string()
            } else {
                e.join(", ")
            }
        ));
        notes.push(format!("Guesses: {}", guesses(run, &ends).join("; ")));
    }
    let values = [0, 1, 2].map(|i| level_value(run, i));
    notes.extend(not_faster_than_memory(&points, values, main_mem(run)));
    notes
}

/// A note for each cache level whose figure is not below the memory's: at
/// that size the machine did not keep the working set in the level the
/// OS reports (on a guest, the host's other tenants share or evict the
/// last-level cache, and 4 KiB pages under nested paging run out of TLB
/// reach), so the figure is not that cache's latency. The figure stays,
/// with the reason beside it.
fn not_faster_than_memory(
    points: &[Option<(u64, (u64, &'static str))>; 3],
    values: [Option<f64>; 3],
    memory: Option<f64>,
) -> Vec<String> {
    let Some(mem) = memory else {
        return Vec::new();
    };
    points
        .iter()
        .zip(values)
        .zip(LEVELS)
        .filter_map(|((p, v), name)| {
            let (size, (level, src)) = (*p)?;
            let v = v?;
            (v >= mem).then(|| {
                format!(
                    "{name} $: {v:.1} ns at {} is not below Main mem's {mem:.1} ns: at this size the {src} {name} ({}) did not hold the working set (shared with or evicted by other tenants, or past the TLB's reach); it is not the cache's latency (see `lmbench plot`).",
                    human_size(size),
                    human_size(level)
                )
            })
        })
        .collect()
}

/// Lines printed under the "random in level" table: the sizes used.
pub fn rand_notes(run: &dyn Lookup) -> Vec<String> {
    let used: Vec<String> = level_points_of(run, INPAGE_FN)
        .iter()
        .zip(LEVELS)
        .map(|(p, name)| match p {
            Some((s, (lv, src))) => format!(
                "{name} $ at {} ({src} {name} {})",
                human_size(*s),
                human_size(*lv)
            ),
            None => format!("{name} $ -"),
        })
        .collect();
    let mut notes = vec![
        format!(
            "Points (random lines within random pages, middle of each level): {}; Main mem and TLB/page walk at {}.",
            used.join(", "),
            run_top(run).map_or("-".into(), human_size)
        ),
        "TLB/page walk: one load per 4 KB page, pages in random order (1/64 of the lines: mostly cached data, a TLB miss per load).".into(),
    ];
    let values = [0, 1, 2].map(|i| in_level_value(run, i));
    notes.extend(not_faster_than_memory(
        &level_points_of(run, INPAGE_FN),
        values,
        in_page_mem(run),
    ));
    notes
}

/// lmbench's "Guesses": for each level the OS gives, whether a rise of the
/// curve (`ends`) confirms it; each level within 20 % of the one below;
/// L3 within 20 % of memory. "none" when nothing is in doubt.
fn guesses(run: &dyn Lookup, ends: &[(u64, u64)]) -> Vec<String> {
    let mut g = Vec::new();
    let lv = levels(run);
    let vals: Vec<Option<f64>> = (0..3).map(|i| level_value(run, i)).collect();
    let mut lo = 0u64;
    for i in 0..3 {
        let Some((size, src)) = lv[i] else { continue };
        let name = LEVELS[i];
        if src == "OS" {
            // Confirmed by a rise that starts below the size and tops out
            // at or above it.
            match ends
                .iter()
                .find(|&&(a, b)| a >= lo && a < size && size <= b)
            {
                Some(_) => g.push(format!("{name} {} confirmed", human_size(size))),
                None => match ends.iter().find(|&&(a, _)| a >= lo && a < size) {
                    Some(&(a, b)) => g.push(format!(
                        "OS says {} {name} but latency rises at {}-{}",
                        human_size(size),
                        human_size(a),
                        human_size(b)
                    )),
                    None => g.push(format!("{name} {} not seen in the curve", human_size(size))),
                },
            }
        }
        if i > 0 {
            if let (Some(a), Some(b)) = (vals[i - 1], vals[i]) {
                if b < 1.2 * a {
                    g.push(format!(
                        "{name} $ within 20% of {} $: no {name}, or prefetched?",
                        LEVELS[i - 1]
                    ));
                }
            }
        }
        lo = size;
    }
    if let (Some(l3), Some(main)) = (vals[2], main_mem(run)) {
        if main < 1.2 * l3 {
            g.push("L3 $ within 20% of Main mem: its point is past the L3 the curve shows".into());
        }
    }
    if g.is_empty() {
        g.push("none".into());
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::FakeCaches;

    #[test]
    fn a_level_not_below_memory_is_said_so() {
        // The fake's 128M L3 point reads 90 ns, as memory does at 1 GiB.
        let run = FakeCaches::old();
        let n = mem_notes(&run);
        let l3: Vec<&String> = n.iter().filter(|l| l.starts_with("L3 $: ")).collect();
        assert_eq!(l3.len(), 1, "{n:?}");
        assert!(
            l3[0].starts_with("L3 $: 90.0 ns at 128M is not below Main mem's 90.0 ns"),
            "{}",
            l3[0]
        );
        // L1 and L2 are below memory: no note.
        assert!(!n
            .iter()
            .any(|l| l.starts_with("L1 $: ") || l.starts_with("L2 $: ")));
        assert_eq!(
            not_faster_than_memory(&level_points(&run), [Some(1.0); 3], Some(90.0)),
            Vec::<String>::new()
        );
        assert!(rand_notes(&run).iter().any(|l| l.starts_with("L3 $: ")));
    }

    #[test]
    fn points_sit_inside_each_level() {
        let p = level_points(&FakeCaches::old());
        assert_eq!(p[0].map(|x| x.0), Some(24 << 10));
        assert_eq!(p[1].map(|x| x.0), Some(1 << 20));
        assert_eq!(p[2].map(|x| x.0), Some(128 << 20));
        assert_eq!(level_value(&FakeCaches::old(), 0), Some(1.0));
        assert_eq!(level_value(&FakeCaches::old(), 1), Some(20.0));
    }

    #[test]
    fn random_in_level_sits_at_the_middle_of_each_level() {
        let run = FakeCaches::old();
        let p = level_points_of(&run, INPAGE_FN);
        assert_eq!(p[0].map(|x| x.0), Some(16 << 10));
        assert_eq!(p[1].map(|x| x.0), Some(1 << 20));
        assert_eq!(p[2].map(|x| x.0), Some(128 << 20));
        assert_eq!(in_level_value(&run, 0), Some(1.0));
        let n = rand_notes(&run).join("\n");
        assert!(n.contains("L1 $ at 16K (OS L1 48K)"), "{n}");
    }

    #[test]
    fn notes_say_the_runs_top_size_and_whether_it_is_capped() {
        let old = FakeCaches::old();
        let new = FakeCaches::topped_at(2 << 30);
        // 1G is 3.4x a 300M cache, 2G 6.8x: only the old run is capped.
        let (o, n) = (mem_notes(&old).join("\n"), mem_notes(&new).join("\n"));
        assert!(
            o.contains("Main mem and Rand mem at 1G.") && o.contains("Capped"),
            "{o}"
        );
        assert!(
            n.contains("Main mem and Rand mem at 2G.") && !n.contains("Capped"),
            "{n}"
        );
        let r = rand_notes(&new).join("\n");
        assert!(r.contains("Main mem and TLB/page walk at 2G."), "{r}");
    }

    #[test]
    fn notes_flag_unconfirmed_levels_and_the_cap() {
        let n = mem_notes(&FakeCaches::old()).join("\n");
        assert!(n.contains("L1 48K confirmed"), "{n}");
        assert!(
            n.contains("OS says 2M L2 but latency rises at 512K-1M"),
            "{n}"
        );
        assert!(
            n.contains("OS says 300M L3 but latency rises at 16M-32M"),
            "{n}"
        );
        assert!(n.contains("Capped"), "{n}");
        assert!(n.contains("between 32K-64K, 512K-1M, 16M-32M"), "{n}");
    }

    #[test]
    fn a_level_the_os_does_not_give_comes_from_the_curve() {
        let lv = levels(&FakeCaches::without_l3());
        assert_eq!(lv[2], Some((16 << 20, "curve")));
        assert_eq!(
            curve_ends(&FakeCaches::without_l3())[0],
            (32 << 10, 64 << 10)
        );
    }

    /// Every chain reads 10 ns at every size; the OS gives the caches named.
    struct Flat(&'static [(&'static str, u64)]);
    impl Lookup for Flat {
        fn value(&self, _: &crate::catalog::Metric) -> Option<f64> {
            Some(10.0)
        }
        fn fact(&self, key: &str) -> Option<String> {
            self.0
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, b)| b.to_string())
        }
    }

    #[test]
    fn a_flat_curve_confirms_no_level_and_each_is_within_20_percent() {
        let run = Flat(&[
            ("cache_l1d", 32 << 10),
            ("cache_l2", 1 << 20),
            ("cache_l3", 8 << 20),
        ]);
        assert!(curve_ends(&run).is_empty());
        assert_eq!(
            guesses(&run, &curve_ends(&run)),
            [
                "L1 32K not seen in the curve",
                "L2 1M not seen in the curve",
                "L2 $ within 20% of L1 $: no L2, or prefetched?",
                "L3 8M not seen in the curve",
                "L3 $ within 20% of L2 $: no L3, or prefetched?",
                "L3 $ within 20% of Main mem: its point is past the L3 the curve shows",
            ]
        );
        // No level from the OS, none from the curve: nothing to doubt.
        assert_eq!(levels(&Flat(&[])), [None; 3]);
        assert_eq!(guesses(&Flat(&[]), &[]), ["none"]);
    }
}
