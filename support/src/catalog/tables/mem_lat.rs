//! "Memory latencies in nanoseconds", with an L3 column lmbench's table
//! predates. The L1/L2/L3 points are chosen inside each level from the
//! machine's cache sizes (the OS's; the curve's where the OS is silent),
//! not at lmbench's fixed 1 KB and 128 KB; `mem_notes` says which sizes
//! were used and which levels the curve does not confirm (lmbench's
//! "Guesses").
use crate::catalog::lat_mem_rd::{self as lm, INPAGE_FN, LOW_TOP, PAGE_FN, RAND_FN, TABLE_FN};
use crate::catalog::{Column, Lookup, Metric, Source, Table, Unit};
use crate::size::human as human_size;

pub static MEM_LAT: Table = Table {
    key: "mem_lat",
    title: "Memory latencies in nanoseconds - smaller is better",
    unit: Unit::Nanos,
    notes: mem_notes,
    columns: &[
        super::mhz_column(5),
        Column::new(
            "L1 $",
            "",
            6,
            Source::Computed(table_sweep, |r| level_value(r, 0)),
        ),
        Column::new(
            "L2 $",
            "",
            6,
            Source::Computed(table_sweep, |r| level_value(r, 1)),
        ),
        Column::new(
            "L3 $",
            "",
            6,
            Source::Computed(table_sweep, |r| level_value(r, 2)),
        ),
        Column::new(
            "Main mem",
            "",
            8,
            Source::Computed(|| top_points(TABLE_FN), main_mem),
        ),
        Column::new(
            "Rand mem",
            "",
            8,
            Source::Computed(|| top_points(RAND_FN), rand_mem),
        ),
    ],
};

/// The modern figures beside lmbench's: each level's latency from a chain
/// the prefetchers cannot follow (random lines within random pages, at the
/// middle of each level), memory's at the largest size, and the one-load-
/// per-page chain's (TLB misses and page walks, mostly cached lines).
pub static MEM_RAND: Table = Table {
    key: "mem_rand",
    title: "Memory latencies, random in level (not in lmbench) - times in nanoseconds",
    unit: Unit::Nanos,
    notes: rand_notes,
    columns: &[
        Column::new(
            "L1 $",
            "",
            6,
            Source::Computed(inpage_sweep, |r| in_level_value(r, 0)),
        ),
        Column::new(
            "L2 $",
            "",
            6,
            Source::Computed(inpage_sweep, |r| in_level_value(r, 1)),
        ),
        Column::new(
            "L3 $",
            "",
            6,
            Source::Computed(inpage_sweep, |r| in_level_value(r, 2)),
        ),
        Column::new(
            "Main mem",
            "",
            8,
            Source::Computed(|| top_points(INPAGE_FN), in_page_mem),
        ),
        Column::new(
            "TLB/page",
            "walk",
            8,
            Source::Computed(|| top_points(PAGE_FN), page_walk),
        ),
    ],
};

/// The points a level column may read: the whole stride-128 sweep (which
/// one depends on the machine's caches), and the curve that places the
/// levels the OS does not give.
fn table_sweep() -> Vec<&'static Metric> {
    lm::PROGRAM
        .function(TABLE_FN)
        .chain(lm::PROGRAM.function(LEVEL_FN))
        .collect()
}

/// The points a random-in-level column may read (as [`table_sweep`]).
fn inpage_sweep() -> Vec<&'static Metric> {
    lm::PROGRAM
        .function(INPAGE_FN)
        .chain(lm::PROGRAM.function(LEVEL_FN))
        .collect()
}

/// The points of chain `function` a run's top size can be at, then those
/// [`run_top`] reads to find it.
fn top_points(function: &str) -> Vec<&'static Metric> {
    let mut v: Vec<&'static Metric> = Vec::new();
    for f in [function, RAND_FN, TABLE_FN] {
        for (s, m) in lm::metrics_by_size(f) {
            if s >= LOW_TOP && !v.iter().any(|x| std::ptr::eq(*x, m)) {
                v.push(m);
            }
        }
    }
    v
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

fn in_level_value(run: &dyn Lookup, i: usize) -> Option<f64> {
    let (size, _) = level_points_of(run, INPAGE_FN)[i]?;
    run.value(lm::point(INPAGE_FN, size)?)
}

fn in_page_mem(run: &dyn Lookup) -> Option<f64> {
    at_top(run, INPAGE_FN)
}

fn page_walk(run: &dyn Lookup) -> Option<f64> {
    at_top(run, PAGE_FN)
}

const LEVELS: [&str; 3] = ["L1", "L2", "L3"];
const FACTS: [&str; 3] = ["cache_l1d", "cache_l2", "cache_l3"];
/// A rise of the curve this large (over one or a few adjacent points)
/// marks the end of a level.
const RISE: f64 = 1.3;

fn main_mem(run: &dyn Lookup) -> Option<f64> {
    at_top(run, TABLE_FN)
}

fn rand_mem(run: &dyn Lookup) -> Option<f64> {
    at_top(run, RAND_FN)
}

fn level_value(run: &dyn Lookup, i: usize) -> Option<f64> {
    let (size, _) = level_points(run)[i]?;
    run.value(lm::point(TABLE_FN, size)?)
}

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

/// Where the curve says cache levels end: each rise of at least 30 %, as
/// (last size before it, size where it tops out); a level's size lies
/// between the two (the curve has one point per doubling).
pub fn curve_ends(run: &dyn Lookup) -> Vec<(u64, u64)> {
    ends(&latencies_by_size(run, LEVEL_FN))
}

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

    /// A machine with 48K L1, 2M L2 (whose curve rises at 512K-1M) and a
    /// 300M L3 (whose curve rises at 16M-32M), in a run whose sweep stopped
    /// at `top` (1 GiB before top sizes were per machine).
    struct Fake {
        l3: bool,
        top: u64,
    }
    impl Fake {
        const OLD_TOP: u64 = 1 << 30;
    }
    impl Lookup for Fake {
        fn value(&self, m: &crate::catalog::Metric) -> Option<f64> {
            let size = lm::size_of(m).filter(|&s| s <= self.top)?;
            Some(match size {
                s if s <= 48 << 10 => 1.0,
                s if s <= 512 << 10 => 4.0,
                s if s <= 24 << 20 => 20.0,
                s if s <= 1 << 30 => 90.0,
                _ => 95.0,
            })
        }
        fn fact(&self, key: &str) -> Option<String> {
            match key {
                "cache_l1d" => Some((48 << 10).to_string()),
                "cache_l2" => Some((2 << 20).to_string()),
                "cache_l3" if self.l3 => Some((300 << 20).to_string()),
                _ => None,
            }
        }
    }

    #[test]
    fn a_level_not_below_memory_is_said_so() {
        // The fake's 128M L3 point reads 90 ns, as memory does at 1 GiB.
        let run = Fake {
            l3: true,
            top: Fake::OLD_TOP,
        };
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
        let p = level_points(&Fake {
            l3: true,
            top: Fake::OLD_TOP,
        });
        assert_eq!(p[0].map(|x| x.0), Some(24 << 10));
        assert_eq!(p[1].map(|x| x.0), Some(1 << 20));
        assert_eq!(p[2].map(|x| x.0), Some(128 << 20));
        assert_eq!(
            level_value(
                &Fake {
                    l3: true,
                    top: Fake::OLD_TOP
                },
                0
            ),
            Some(1.0)
        );
        assert_eq!(
            level_value(
                &Fake {
                    l3: true,
                    top: Fake::OLD_TOP
                },
                1
            ),
            Some(20.0)
        );
    }

    #[test]
    fn random_in_level_sits_at_the_middle_of_each_level() {
        let run = Fake {
            l3: true,
            top: Fake::OLD_TOP,
        };
        let p = level_points_of(&run, INPAGE_FN);
        assert_eq!(p[0].map(|x| x.0), Some(16 << 10));
        assert_eq!(p[1].map(|x| x.0), Some(1 << 20));
        assert_eq!(p[2].map(|x| x.0), Some(128 << 20));
        assert_eq!(in_level_value(&run, 0), Some(1.0));
        assert_eq!(in_page_mem(&run), Some(90.0));
        assert_eq!(page_walk(&run), Some(90.0));
        let n = rand_notes(&run).join("\n");
        assert!(n.contains("L1 $ at 16K (OS L1 48K)"), "{n}");
        // Rand mem reads lmbench's thrash chain, not the page walk.
        let top = top_points(RAND_FN);
        assert_eq!(top.first().map(|m| m.id), Some("lat_mem_rd/thrash/64m"));
        assert!(top.iter().any(|m| m.id == "lat_mem_rd/thrash/2g"));
    }

    #[test]
    fn memory_columns_read_at_the_runs_top_size() {
        let old = Fake {
            l3: true,
            top: Fake::OLD_TOP,
        };
        let new = Fake {
            l3: true,
            top: 2 << 30,
        };
        assert_eq!(run_top(&old), Some(1 << 30));
        assert_eq!(run_top(&new), Some(2 << 30));
        for f in [main_mem, rand_mem, in_page_mem, page_walk] {
            assert_eq!(f(&old), Some(90.0));
            assert_eq!(f(&new), Some(95.0));
        }
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
        // A run with no point at a top size (a filtered run) has no top.
        let small = Fake {
            l3: true,
            top: 32 << 20,
        };
        assert_eq!((run_top(&small), rand_mem(&small)), (None, None));
    }

    #[test]
    fn notes_flag_unconfirmed_levels_and_the_cap() {
        let n = mem_notes(&Fake {
            l3: true,
            top: Fake::OLD_TOP,
        })
        .join("\n");
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
        let lv = levels(&Fake {
            l3: false,
            top: Fake::OLD_TOP,
        });
        assert_eq!(lv[2], Some((16 << 20, "curve")));
        assert_eq!(
            curve_ends(&Fake {
                l3: false,
                top: Fake::OLD_TOP
            })[0],
            (32 << 10, 64 << 10)
        );
    }
}
