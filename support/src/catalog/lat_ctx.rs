//! lat_ctx: context switching in a ring of processes passing a token.
//!
//! Each sample is one PAIRED figure: in one peer request, blocks of ring
//! trips alternate with blocks of the single-process overhead (the same
//! pipe write + read + working-set sum without a switch), and the sample
//! is (ring ns - overhead ns) / hand-offs: lmbench's figure, each ring
//! measured with its own overhead moments apart (`peer::ctx::Paired`).
//!
//! Older saved runs hold the RAW ring trip (P hand-offs) under
//! `lat_ctx/{unpinned,pinned}/<P>p_<K>k` and a separately measured
//! overhead under `lat_ctx/overhead/<K>k`; the summary renders such a run
//! from these [`Legacy`] ids by subtracting their medians (unpaired,
//! taken minutes apart). The paired switch has ids of its own
//! (`lat_ctx/switch_{unpinned,pinned}/...`), so `lmbench compare` never
//! sets a raw trip against a switch under one id.
use super::{Metric, Program, Unit::Micros};

macro_rules! ring {
    ($name:ident, $id:literal, $p:literal, $k:literal, $where:literal) => {
        pub static $name: Metric = Metric::median(
            $id,
            Micros,
            concat!(
                "one trip of a 4-byte token round a ring of ",
                $p,
                " processes over pipes (",
                $p,
                " hand-offs), each summing its private ",
                $k,
                " KB working set on receipt; ",
                $where,
                "; one sample = (ring ns - ns of the same number of overhead passes ",
                "measured interleaved with it) / hand-offs: the switch per hand-off"
            ),
        );
    };
}

ring!(
    U2P_0K,
    "lat_ctx/switch_unpinned/2p_0k",
    "2",
    "0",
    "unpinned, as lmbench"
);
ring!(
    U2P_16K,
    "lat_ctx/switch_unpinned/2p_16k",
    "2",
    "16",
    "unpinned, as lmbench"
);
ring!(
    U2P_64K,
    "lat_ctx/switch_unpinned/2p_64k",
    "2",
    "64",
    "unpinned, as lmbench"
);
ring!(
    U8P_16K,
    "lat_ctx/switch_unpinned/8p_16k",
    "8",
    "16",
    "unpinned, as lmbench"
);
ring!(
    U8P_64K,
    "lat_ctx/switch_unpinned/8p_64k",
    "8",
    "64",
    "unpinned, as lmbench"
);
ring!(
    U16P_16K,
    "lat_ctx/switch_unpinned/16p_16k",
    "16",
    "16",
    "unpinned, as lmbench"
);
ring!(
    U16P_64K,
    "lat_ctx/switch_unpinned/16p_64k",
    "16",
    "64",
    "unpinned, as lmbench"
);

ring!(
    P2P_0K,
    "lat_ctx/switch_pinned/2p_0k",
    "2",
    "0",
    "every member pinned to one CPU"
);
ring!(
    P2P_16K,
    "lat_ctx/switch_pinned/2p_16k",
    "2",
    "16",
    "every member pinned to one CPU"
);
ring!(
    P2P_64K,
    "lat_ctx/switch_pinned/2p_64k",
    "2",
    "64",
    "every member pinned to one CPU"
);
ring!(
    P8P_16K,
    "lat_ctx/switch_pinned/8p_16k",
    "8",
    "16",
    "every member pinned to one CPU"
);
ring!(
    P8P_64K,
    "lat_ctx/switch_pinned/8p_64k",
    "8",
    "64",
    "every member pinned to one CPU"
);
ring!(
    P16P_16K,
    "lat_ctx/switch_pinned/16p_16k",
    "16",
    "16",
    "every member pinned to one CPU"
);
ring!(
    P16P_64K,
    "lat_ctx/switch_pinned/16p_64k",
    "16",
    "64",
    "every member pinned to one CPU"
);

/// A per-hand-off difference at or below this many nanoseconds is stored
/// as it (a Criterion sample is a duration and cannot be negative, and
/// Criterion discards a benchmark with a zero-length sample, so the marker
/// times one trip must be at least 1 ns); the summary treats samples at or
/// below 1.5x it as "no switch measured". No context switch costs 1.5 ns:
/// such a difference is the pairing's noise. (Older saved runs may hold
/// 0.001 ns instead, which reads the same.)
pub const NOT_POSITIVE_NS: f64 = 1.0;

/// The ids of an older saved run, whose switch is unpaired, read only to
/// render such a run: not in [`PROGRAM`], never measured.
#[derive(Debug)]
pub struct Legacy {
    /// The raw unpinned ring trip (P hand-offs).
    pub unpinned_trip: Metric,
    /// The raw ring trip with every member on one CPU.
    pub pinned_trip: Metric,
    /// The per-hand-off overhead, measured apart.
    pub overhead: &'static Metric,
}

macro_rules! legacy {
    ($name:ident, $p:literal, $k:literal, $ovh:ident) => {
        static $name: Legacy = Legacy {
            unpinned_trip: Metric::median(
                concat!("lat_ctx/unpinned/", $p, "p_", $k, "k"),
                Micros,
                "(older saved runs only) one raw unpinned ring trip",
            ),
            pinned_trip: Metric::median(
                concat!("lat_ctx/pinned/", $p, "p_", $k, "k"),
                Micros,
                "(older saved runs only) one raw ring trip on one CPU",
            ),
            overhead: &$ovh,
        };
    };
}

macro_rules! overhead {
    ($name:ident, $id:literal, $k:literal) => {
        pub static $name: Metric = Metric::median(
            $id,
            Micros,
            concat!(
                "(older saved runs only) in one process: write the token ",
                "to a pipe, read it back, sum the ",
                $k,
                " KB working set (the non-switch cost of one hand-off)"
            ),
        );
    };
}

// Not measured (the overhead is paired inside each ring sample) and not
// in `PROGRAM`: only read to recognise and render older saved runs.
overhead!(OVH_0K, "lat_ctx/overhead/0k", "0");
overhead!(OVH_16K, "lat_ctx/overhead/16k", "16");
overhead!(OVH_64K, "lat_ctx/overhead/64k", "64");

legacy!(L2P_0K, "2", "0", OVH_0K);
legacy!(L2P_16K, "2", "16", OVH_16K);
legacy!(L2P_64K, "2", "64", OVH_64K);
legacy!(L8P_16K, "8", "16", OVH_16K);
legacy!(L8P_64K, "8", "64", OVH_64K);
legacy!(L16P_16K, "16", "16", OVH_16K);
legacy!(L16P_64K, "16", "64", OVH_64K);

/// The ids tables read only from older saved runs (unpaired switches).
pub fn legacy_metrics() -> impl Iterator<Item = &'static Metric> {
    SHAPES
        .iter()
        .flat_map(|s| [&s.4.unpinned_trip, &s.4.pinned_trip, s.4.overhead])
}

/// The ring shapes of the summary: (processes, KB, unpinned, pinned,
/// the ids of older saved runs).
pub static SHAPES: [(usize, usize, &Metric, &Metric, &Legacy); 7] = [
    (2, 0, &U2P_0K, &P2P_0K, &L2P_0K),
    (2, 16, &U2P_16K, &P2P_16K, &L2P_16K),
    (2, 64, &U2P_64K, &P2P_64K, &L2P_64K),
    (8, 16, &U8P_16K, &P8P_16K, &L8P_16K),
    (8, 64, &U8P_64K, &P8P_64K, &L8P_64K),
    (16, 16, &U16P_16K, &P16P_16K, &L16P_16K),
    (16, 64, &U16P_64K, &P16P_64K, &L16P_64K),
];

pub static PROGRAM: Program = Program {
    name: "lat_ctx",
    about: "context switching: a token round a ring of processes, each touching a working set",
    metrics: &[
        &U2P_0K, &U2P_16K, &U2P_64K, &U8P_16K, &U8P_64K, &U16P_16K, &U16P_64K, &P2P_0K, &P2P_16K,
        &P2P_64K, &P8P_16K, &P8P_64K, &P16P_16K, &P16P_64K,
    ],
};
