//! lat_select: select(2) over many descriptors, all ready.
use super::{Metric, Program, Unit::Micros};

macro_rules! sel {
    ($name:ident, $id:literal, $n:literal, $what:literal) => {
        pub static $name: Metric = Metric::median(
            $id,
            Micros,
            concat!(
                "select(2) with a zero timeout on a copy of a write set of ",
                $n,
                " dups of ",
                $what,
                ", nfds = highest fd + 1; all must be ready"
            ),
        );
    };
}

sel!(
    FILE_10,
    "lat_select/file/10",
    "10",
    "one scratch file opened read-only"
);
sel!(
    FILE_100,
    "lat_select/file/100",
    "100",
    "one scratch file opened read-only"
);
sel!(
    FILE_250,
    "lat_select/file/250",
    "250",
    "one scratch file opened read-only"
);
sel!(
    TCP_10,
    "lat_select/tcp/10",
    "10",
    "one connected loopback TCP socket"
);
sel!(
    TCP_100,
    "lat_select/tcp/100",
    "100",
    "one connected loopback TCP socket"
);
sel!(
    TCP_250,
    "lat_select/tcp/250",
    "250",
    "one connected loopback TCP socket"
);

pub static PROGRAM: Program = Program {
    name: "lat_select",
    about: "select(2) over 10, 100 and 250 file or TCP descriptors",
    metrics: &[&FILE_10, &FILE_100, &FILE_250, &TCP_10, &TCP_100, &TCP_250],
};
