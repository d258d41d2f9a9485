//! lat_mem_rd: memory read latency, a dependent-load chain over working sets
//! from 512 B to the machine's top size ([`top_size`]: 1 or 2 GiB) at
//! several strides (lmbench's curves), lmbench's
//! random "thrash" chain (Rand mem), and two chains lmbench lacks: one load
//! per page (the TLB/page-walk curve) and random lines within pages (the
//! "random in level" latency). Ids:
//! `lat_mem_rd/<s16|s64|s128|s256|s1024|thrash|page|inpage>/<size>`.
use super::{Headline, Metric, Program, Unit};
use crate::size;

/// The largest working set of the sweep on any machine: the catalog holds
/// every point up to it, a machine runs those up to its [`top_size`].
pub const MAX_SIZE: u64 = 2 << 30;

/// The top size of a machine whose caches are small: every curve reaches
/// at least this far (as it always has: runs stay comparable).
pub const MIN_TOP: u64 = 1 << 30;

/// The least a memory cap may leave of the sweep: below this the memory
/// columns would read a cache, and the summary reads none.
pub const LOW_TOP: u64 = 64 << 20;

/// The largest working set of this machine's sweep, and whether it had to
/// be capped: the smallest power of two at least 4 x the last-level cache
/// (`llc`, bytes; lmbench wants main memory read well past the caches),
/// at least [`MIN_TOP`], at most [`MAX_SIZE`], and at most half the
/// available memory (`avail`, bytes; the chain's buffer is one block of
/// the top size) but not under [`LOW_TOP`]. Capped means under 4 x the
/// cache: the summary says so.
pub fn top_size(llc: Option<u64>, avail: Option<u64>) -> (u64, bool) {
    let want = llc.map_or(MIN_TOP, |b| (4 * b).next_power_of_two().max(MIN_TOP));
    let mut top = want.min(MAX_SIZE);
    if let Some(a) = avail {
        while top > LOW_TOP && 2 * top > a {
            top /= 2;
        }
    }
    (top, llc.is_some_and(|b| top < 4 * b))
}

/// The stride the summary's L1/L2/L3/Main mem columns use (lmbench's).
pub const TABLE_FN: &str = function::S128;
/// lmbench's random chain (every line once, consecutive loads on
/// different pages): the Rand mem column.
pub const RAND_FN: &str = function::THRASH;
/// One load per page, pages in random order: TLB reach and page walks
/// (not in lmbench; this was Rand mem's chain before, under id `rand`).
pub const PAGE_FN: &str = function::PAGE;
/// Random lines within pages, pages in random order: the latency of a
/// level the prefetchers cannot hide (not in lmbench).
pub const INPAGE_FN: &str = function::INPAGE;

/// The chains and their sizes. Each function word is spelled once: the
/// constants of [`function`] and the ids come from it.
macro_rules! sweep {
    ($($name:ident = $fun:tt : $doc:literal => [$($size:literal)*];)*) => {
        /// The chain shapes' function words (Criterion function ids).
        pub mod function {
            $(pub const $name: &str = $fun;)*
        }

        /// Every point, as values in one static: a reference to a point
        /// is then an address in it, the same wherever it is taken (a
        /// promoted `&Metric { .. }` may be copied per use, and the
        /// catalog compares metrics by address).
        static POINTS: [Metric; [$($($size,)*)*].len()] = [$($(Metric {
            id: concat!("lat_mem_rd/", $fun, "/", $size),
            unit: Unit::Nanos,
            headline: Headline::Min,
            timed: $doc,
        },)*)*];
        static REFS: [&Metric; POINTS.len()] = refs(&POINTS);

        pub static PROGRAM: Program = Program {
            name: "lat_mem_rd",
            about: "memory read latency: dependent loads over growing working sets (ns per load, minimum)",
            metrics: &REFS,
        };
    };
}

sweep! {
        S16 = "s16": "one dependent load p = *p of a chain of slots 16 B apart, in address order, through the working set" => [
            "512b" "1k" "2k" "4k" "8k" "16k" "32k" "64k" "128k" "256k" "512k"
            "1m" "2m" "4m" "8m" "16m" "32m" "64m" "128m" "256m" "512m" "1g" "2g"];
        S64 = "s64": "one dependent load p = *p of a chain of slots 64 B apart, in address order, through the working set" => [
            "512b" "1k" "2k" "4k" "8k" "16k" "32k" "64k" "128k" "256k" "512k"
            "1m" "2m" "4m" "8m" "16m" "32m" "64m" "128m" "256m" "512m" "1g" "2g"];
        S128 = "s128": "one dependent load p = *p of a chain of slots 128 B apart, in address order, through the working set (lmbench's table stride)" => [
            "512b" "768b" "1k" "1536b" "2k" "3k" "4k" "6k" "8k" "12k" "16k" "24k" "32k" "48k"
            "64k" "96k" "128k" "192k" "256k" "384k" "512k" "768k" "1m" "1536k" "2m" "3m"
            "4m" "6m" "8m" "12m" "16m" "24m" "32m" "48m" "64m" "96m" "128m" "192m" "256m"
            "384m" "512m" "768m" "1g" "1536m" "2g"];
        S256 = "s256": "one dependent load p = *p of a chain of slots 256 B apart, in address order, through the working set" => [
            "512b" "1k" "2k" "4k" "8k" "16k" "32k" "64k" "128k" "256k" "512k"
            "1m" "2m" "4m" "8m" "16m" "32m" "64m" "128m" "256m" "512m" "1g" "2g"];
        S1024 = "s1024": "one dependent load p = *p of a chain of slots 1024 B apart, in address order, through the working set" => [
            "2k" "4k" "8k" "16k" "32k" "64k" "128k" "256k" "512k"
            "1m" "2m" "4m" "8m" "16m" "32m" "64m" "128m" "256m" "512m" "1g" "2g"];
        THRASH = "thrash": "one dependent load p = *p of lmbench's thrash chain: every 64 B line of the working set once, consecutive loads on different pages (random page order, random line order)" => [
            "16k" "32k" "64k" "128k" "256k" "512k"
            "1m" "2m" "4m" "8m" "16m" "32m" "64m" "128m" "256m" "512m" "1g" "2g"];
        PAGE = "page": "one dependent load p = *p of a chain with one slot per 4 KB page (line staggered), pages in random order: TLB/page walk (not in lmbench)" => [
            "16k" "32k" "64k" "128k" "256k" "512k"
            "1m" "2m" "4m" "8m" "16m" "32m" "64m" "128m" "256m" "512m" "1g" "2g"];
        INPAGE = "inpage": "one dependent load p = *p of a chain through every 64 B line of the working set, all lines of a page in random order, pages in random order (not in lmbench)" => [
            "4k" "8k" "16k" "32k" "64k" "128k" "256k" "512k"
            "1m" "2m" "4m" "8m" "16m" "32m" "64m" "128m" "256m" "512m" "1g" "2g"];
        LINE16 = "line16": "one dependent load of a chain with slots 16 B apart, all slots of a page in random order, pages in random order (cache-line detector)" => ["256m"];
        LINE32 = "line32": "one dependent load of a chain with slots 32 B apart, all slots of a page in random order, pages in random order (cache-line detector)" => ["256m"];
        LINE128 = "line128": "one dependent load of a chain with slots 128 B apart, all slots of a page in random order, pages in random order (cache-line detector)" => ["256m"];
        LINE256 = "line256": "one dependent load of a chain with slots 256 B apart, all slots of a page in random order, pages in random order (cache-line detector)" => ["256m"];
}

/// A reference to each of `all`, in order.
const fn refs<const N: usize>(all: &'static [Metric; N]) -> [&'static Metric; N] {
    let mut out = [&all[0]; N];
    let mut i = 0;
    while i < N {
        out[i] = &all[i];
        i += 1;
    }
    out
}

/// The metric of chain `function` at `size` (a size token of its curve),
/// looked up at compile time where used in a static: a floor naming a
/// point the sweep lacks fails to build, as a renamed static would.
pub const fn named_point(function: &str, size: &str) -> &'static Metric {
    let mut i = 0;
    while i < POINTS.len() {
        if id_is(POINTS[i].id, function, size) {
            return &POINTS[i];
        }
        i += 1;
    }
    panic!("lat_mem_rd has no such point");
}

/// `id == "lat_mem_rd/{function}/{size}"`, in a const fn.
const fn id_is(id: &str, function: &str, size: &str) -> bool {
    let (id, g, f, s) = (
        id.as_bytes(),
        b"lat_mem_rd/".as_slice(),
        function.as_bytes(),
        size.as_bytes(),
    );
    if id.len() != g.len() + f.len() + 1 + s.len() {
        return false;
    }
    let mut i = 0;
    while i < id.len() {
        let want = if i < g.len() {
            g[i]
        } else if i < g.len() + f.len() {
            f[i - g.len()]
        } else if i == g.len() + f.len() {
            b'/'
        } else {
            s[i - g.len() - f.len() - 1]
        };
        if id[i] != want {
            return false;
        }
        i += 1;
    }
    true
}

/// The cache-line detector's working set: well past L2 everywhere, so each
/// new line is a cache miss (the L3 or memory), and small enough that the
/// 16-byte chain (16M slots) stays quick.
pub const LINE_SIZE: u64 = 256 << 20;

/// The cache-line detector's chains, by stride: function word and stride.
/// Stride 64 is the `inpage` curve's point at [`LINE_SIZE`].
pub const LINE_SHAPES: [(&str, u64); 5] = [
    (function::LINE16, 16),
    (function::LINE32, 32),
    (INPAGE_FN, 64),
    (function::LINE128, 128),
    (function::LINE256, 256),
];

/// The chain shapes, in plot order: function word and stride in bytes
/// (the random chains' "stride" is their spacing: a line, or a page).
pub const SHAPES: [(&str, u64); 8] = [
    (function::S16, 16),
    (function::S64, 64),
    (function::S128, 128),
    (function::S256, 256),
    (function::S1024, 1024),
    (RAND_FN, 64),
    (PAGE_FN, 4096),
    (INPAGE_FN, 64),
];

/// The stride of a cache-line detector chain (`lineN`), if it is one.
pub fn line_stride(function: &str) -> Option<u64> {
    function.strip_prefix("line")?.parse().ok()
}

/// The working-set size a metric of this program measures.
pub fn size_of(m: &Metric) -> Option<u64> {
    m.function_and_parameter()
        .1
        .and_then(|p| size::parse(p).ok())
}

/// The metrics of one chain shape's sweep (function word), each with its
/// working-set size in bytes, by increasing size.
pub fn metrics_by_size(function: &str) -> Vec<(u64, &'static Metric)> {
    let mut v: Vec<_> = PROGRAM
        .metrics
        .iter()
        .filter(|m| m.function_and_parameter().0 == function)
        .filter_map(|m| Some((size_of(m)?, *m)))
        .collect();
    v.sort_by_key(|(s, _)| *s);
    v
}

/// The metric of `function` at exactly `size`, if the sweep has that point.
pub fn point(function: &str, size: u64) -> Option<&'static Metric> {
    metrics_by_size(function)
        .into_iter()
        .find(|(s, _)| *s == size)
        .map(|(_, m)| m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_size_is_4x_the_cache_at_least_1g_capped_by_memory() {
        const M: u64 = 1 << 20;
        let plenty = Some(20 << 30);
        // Small caches: the sweep still reaches 1 GiB.
        assert_eq!(top_size(Some(32 * M), plenty), (MIN_TOP, false));
        assert_eq!(top_size(None, plenty), (MIN_TOP, false));
        assert_eq!(top_size(None, None), (MIN_TOP, false));
        // This Xeon guest's reported 480M L3: 2 GiB, 4.3x.
        assert_eq!(top_size(Some(480 * M), plenty), (2048 * M, false));
        // A cache a quarter of which exceeds the sweep: capped at its top.
        assert_eq!(top_size(Some(1024 * M), plenty), (MAX_SIZE, true));
        // Memory: one buffer in at most half of what is available.
        assert_eq!(top_size(Some(480 * M), Some(3 << 30)), (1024 * M, true));
        assert_eq!(top_size(Some(8 * M), Some(1 << 30)), (512 * M, false));
        assert_eq!(top_size(Some(8 * M), Some(1)), (LOW_TOP, false));
        // Every top size a machine can get is a point of every curve.
        let mut t = LOW_TOP;
        while t <= MAX_SIZE {
            for (f, _) in SHAPES {
                assert!(point(f, t).is_some(), "{f} {t}");
            }
            t *= 2;
        }
    }

    #[test]
    fn every_point_parses_and_curves_cover_the_sweep() {
        for m in PROGRAM.metrics {
            assert!(size_of(m).is_some(), "{}", m.id);
            assert_eq!(m.headline, Headline::Min);
        }
        for (f, stride) in SHAPES {
            let c = metrics_by_size(f);
            assert!(c.len() >= 17, "{f}");
            assert_eq!(c.last().unwrap().0, MAX_SIZE, "{f}");
            assert!(c.iter().all(|(s, _)| *s >= 2 * stride.min(1024)), "{f}");
            if f == RAND_FN {
                // The thrash chain needs two pages.
                assert!(c[0].0 >= 8192, "{f}");
            }
        }
        assert!(point(TABLE_FN, 1536 << 10).is_some());
        assert!(point(TABLE_FN, 1536 << 20).is_some());
        for (f, stride) in LINE_SHAPES {
            assert!(point(f, LINE_SIZE).is_some(), "{f}");
            assert!(f == INPAGE_FN || line_stride(f) == Some(stride), "{f}");
        }
    }
}
