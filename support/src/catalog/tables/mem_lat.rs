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
        for (s, m) in lm::curve(f) {
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
        lm::curve(f)
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

/// The measured curve of one chain shape: (bytes, ns per load).
pub fn curve(run: &dyn Lookup, function: &str) -> Vec<(u64, f64)> {
    lm::curve(function)
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
    ends(&curve(run, LEVEL_FN))
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
    let sizes: Vec<u64> = lm::curve(function).into_iter().map(|(s, _)| s).collect();
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

/// The cache line the detector's chains show (random slots in random
/// pages at `LINE_SIZE`, past the caches, strides 16-256 B). While k slots
/// share a line one load in k misses, so each doubling of the stride
/// near-doubles the latency; past the line it stops doing so. The line is
/// the knee: the stride whose rise over half its stride (at least 1.4x)
/// most exceeds the next stride's rise over it (by 1.25x or more).
///
/// Not "the stride after which latency is flat", which read 128 B on a
/// Xeon guest: its adjacent-line prefetch (each miss brings the line's
/// pair) leaves 128 B 15-20% above 64 B after a 2.2-2.4x step from 32 B
/// (issue 12, vm-xeon/x24-1 and -2). Nor "the last near-doubling", which
/// read 32 B on the AMD guest, whose 32 B to 64 B step was only 1.45-1.5x
/// in two of its runs but whose 64 B to 128 B step fell (vm/pf-1, pf-3).
pub fn line_from_curve(run: &dyn Lookup) -> Option<u64> {
    let pts: Vec<(u64, f64)> = lm::LINE_SHAPES
        .iter()
        .filter_map(|(f, stride)| Some((*stride, run.value(lm::point(f, lm::LINE_SIZE)?)?)))
        .collect();
    // (stride, its latency over the previous stride's)
    let rise: Vec<(u64, f64)> = pts.windows(2).map(|w| (w[1].0, w[1].1 / w[0].1)).collect();
    rise.windows(2)
        .filter(|w| w[0].1 >= 1.4 && w[0].1 >= 1.25 * w[1].1)
        .max_by(|a, b| (a[0].1 / a[1].1).total_cmp(&(b[0].1 / b[1].1)))
        .map(|w| w[0].0)
}

/// What the detector's line says of the OS's. Twice the OS's line is the
/// pair of lines an adjacent-line (spatial) prefetcher fetches with each
/// miss: on the Xeon guest of issue 12 the 64 to 128 B step read 1.6-2.1x
/// with the detector's buffer in 4 KB pages and 1.6-1.7x in 2 MB pages
/// (THP always, 04:25 UTC 2026-12-02), so it is the fetch, not TLB reach.
/// No latency chase can tell that pair from a line while the prefetcher
/// is on (in a guest it cannot be turned off), so the note says which.
fn line_verdict(line: u64, os: Option<u64>) -> String {
    match os {
        Some(b) if b == line => format!(": the OS's {b} B line (one miss per line)"),
        Some(b) if line == 2 * b => format!(
            ": twice the OS's {b} B line, the pair an adjacent-line prefetcher fetches with each miss"
        ),
        Some(b) => format!(": not the OS's {b} B"),
        None => String::new(),
    }
}

/// True when the run has the cache-line detector's points.
fn has_line_points(run: &dyn Lookup) -> bool {
    lm::LINE_SHAPES
        .iter()
        .filter(|(f, _)| lm::line_stride(f).is_some())
        .any(|(f, _)| {
            lm::point(f, lm::LINE_SIZE)
                .and_then(|m| run.value(m))
                .is_some()
        })
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
    if !curve(run, LEVEL_FN).is_empty() {
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
    let os = run
        .fact("cache_line")
        .map(|b| format!("{b} B"))
        .unwrap_or_else(|| "unknown".into());
    let at = human_size(lm::LINE_SIZE);
    let os_line = run
        .fact("cache_line")
        .and_then(|b| b.trim().parse::<u64>().ok());
    match line_from_curve(run) {
        Some(line) => notes.push(format!(
            "Cache line: OS {os}; random slots in random pages at {at} near-double in latency with each doubling of stride up to {line} B, much less after{}.",
            line_verdict(line, os_line)
        )),
        None if has_line_points(run) => notes.push(format!(
            "Cache line: OS {os}; not confirmed: random slots in random pages at {at} show no stride (32-128 B) up to which latency near-doubles with stride and after which it rises much less."
        )),
        None => {}
    }
    notes
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
    vec![
        format!(
            "Points (random lines within random pages, middle of each level): {}; Main mem and TLB/page walk at {}.",
            used.join(", "),
            run_top(run).map_or("-".into(), human_size)
        ),
        "TLB/page walk: one load per 4 KB page, pages in random order (1/64 of the lines: mostly cached data, a TLB miss per load).".into(),
    ]
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

    /// A curve at 256M by stride 16, 32, 64, 128, 256 (ns).
    struct Curve([f64; 5]);
    impl Lookup for Curve {
        fn value(&self, m: &crate::catalog::Metric) -> Option<f64> {
            let (f, size) = m.function_and_parameter();
            if size != Some("256m") {
                return None;
            }
            let stride = lm::line_stride(f).or((f == INPAGE_FN).then_some(64))?;
            Some(self.0[stride.trailing_zeros() as usize - 4])
        }
        fn fact(&self, _: &str) -> Option<String> {
            None
        }
    }

    #[test]
    fn the_line_is_where_random_slots_stop_getting_slower() {
        // Each slot a miss of 40 ns at 64 B and above, shared below:
        // 1 + 39 * min(stride, 64) / 64 + stride / 256.
        let lines = Curve([10.8125, 20.625, 40.25, 40.5, 41.0]);
        assert_eq!(line_from_curve(&lines), Some(64));
        let n = mem_notes(&lines).join("\n");
        assert!(
            n.contains("near-double in latency with each doubling of stride up to 64 B"),
            "{n}"
        );
    }

    #[test]
    fn a_prefetched_pair_of_lines_does_not_pass_for_the_line() {
        // A Xeon guest (vm-xeon/x24-1): 128 B still 19% above 64 B,
        // because the adjacent line comes with each miss.
        assert_eq!(
            line_from_curve(&Curve([13.7, 26.1, 63.6, 75.6, 70.8])),
            Some(64)
        );
        // The AMD guest (vm/pf-1): a weak 32 B to 64 B step, then a fall.
        assert_eq!(
            line_from_curve(&Curve([15.2, 35.0, 52.6, 48.1, 82.5])),
            Some(64)
        );
        // A 128 B line: doubling up to 128 B.
        assert_eq!(
            line_from_curve(&Curve([10.0, 20.0, 40.0, 80.0, 82.0])),
            Some(128)
        );
        // No rise, or doubling throughout: no line shown.
        assert_eq!(
            line_from_curve(&Curve([50.0, 52.0, 55.0, 60.0, 61.0])),
            None
        );
        assert_eq!(line_from_curve(&Curve([5.0, 10.0, 20.0, 40.0, 80.0])), None);
    }

    /// A detector curve with the OS's line.
    struct WithOs(Curve, u64);
    impl Lookup for WithOs {
        fn value(&self, m: &crate::catalog::Metric) -> Option<f64> {
            self.0.value(m)
        }
        fn fact(&self, key: &str) -> Option<String> {
            (key == "cache_line").then(|| self.1.to_string())
        }
    }

    #[test]
    fn the_line_note_says_whether_the_os_line_is_confirmed_or_its_pair() {
        // vm-xeon/x26-3: 64 B, the OS's line.
        let n = mem_notes(&WithOs(Curve([14.0, 27.4, 56.2, 80.1, 152.9]), 64)).join("\n");
        assert!(
            n.contains("up to 64 B, much less after: the OS's 64 B line"),
            "{n}"
        );
        // vm-xeon/x26-1: the 64 to 128 B step 1.4x, then flat.
        let n = mem_notes(&WithOs(Curve([15.8, 31.8, 57.2, 80.2, 81.7]), 64)).join("\n");
        assert!(
            n.contains("up to 128 B, much less after: twice the OS's 64 B line, the pair"),
            "{n}"
        );
        let n = mem_notes(&WithOs(Curve([10.0, 20.0, 40.0, 80.0, 82.0]), 32)).join("\n");
        assert!(
            n.contains("up to 128 B, much less after: not the OS's 32 B."),
            "{n}"
        );
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
