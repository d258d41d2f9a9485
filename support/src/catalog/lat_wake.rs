//! lat_wake (beyond lmbench): wake-up round trips, as lat_pipe measures a
//! pipe's, through the primitives programs use today. Both sides sleep in
//! the kernel between messages; one iteration is one round trip, not
//! halved. Unpinned is lmbench's placement (a wake-up may cross CPUs);
//! pinned puts both sides on one CPU (a switch on that CPU).
use super::{Metric, Program, Unit::Micros};

macro_rules! wake {
    ($name:ident, $id:literal, $what:literal, $where:literal) => {
        pub static $name: Metric =
            Metric::median($id, Micros, concat!("one round trip ", $what, "; ", $where));
    };
}

wake!(
    U_EVENTFD,
    "lat_wake/unpinned/eventfd",
    "between two processes through two eventfds (write 1, blocking read)",
    "unpinned"
);
wake!(
    U_FUTEX,
    "lat_wake/unpinned/futex",
    "between two processes through FUTEX_WAKE/FUTEX_WAIT on a word of shared memory",
    "unpinned"
);
wake!(
    U_DGRAM,
    "lat_wake/unpinned/dgram",
    "between two processes: a 1-byte datagram each way on a UNIX datagram socketpair",
    "unpinned"
);
wake!(
    U_MQUEUE,
    "lat_wake/unpinned/mqueue",
    "between two processes: a 1-byte message each way through two POSIX message queues",
    "unpinned"
);
wake!(
    U_FUTEX_THREAD,
    "lat_wake/unpinned/futex_thread",
    "between two threads of one process through FUTEX_WAKE/FUTEX_WAIT (private)",
    "unpinned"
);
wake!(
    P_EVENTFD,
    "lat_wake/pinned/eventfd",
    "between two processes through two eventfds (write 1, blocking read)",
    "both on one CPU"
);
wake!(
    P_FUTEX,
    "lat_wake/pinned/futex",
    "between two processes through FUTEX_WAKE/FUTEX_WAIT on a word of shared memory",
    "both on one CPU"
);
wake!(
    P_DGRAM,
    "lat_wake/pinned/dgram",
    "between two processes: a 1-byte datagram each way on a UNIX datagram socketpair",
    "both on one CPU"
);
wake!(
    P_MQUEUE,
    "lat_wake/pinned/mqueue",
    "between two processes: a 1-byte message each way through two POSIX message queues",
    "both on one CPU"
);
wake!(
    P_FUTEX_THREAD,
    "lat_wake/pinned/futex_thread",
    "between two threads of one process through FUTEX_WAKE/FUTEX_WAIT (private)",
    "both on one CPU"
);

/// (peer kind, unpinned metric, pinned metric), in bench order.
pub static KINDS: [(&str, &Metric, &Metric); 5] = [
    ("eventfd", &U_EVENTFD, &P_EVENTFD),
    ("futex", &U_FUTEX, &P_FUTEX),
    ("dgram", &U_DGRAM, &P_DGRAM),
    ("mqueue", &U_MQUEUE, &P_MQUEUE),
    ("futex_thread", &U_FUTEX_THREAD, &P_FUTEX_THREAD),
];

pub static PROGRAM: Program = Program {
    name: "lat_wake",
    about: "beyond lmbench: wake-up round trips through eventfd, futex, UNIX datagrams, POSIX queues; process pairs and a thread pair",
    metrics: &[
        &U_EVENTFD,
        &U_FUTEX,
        &U_DGRAM,
        &U_MQUEUE,
        &U_FUTEX_THREAD,
        &P_EVENTFD,
        &P_FUTEX,
        &P_DGRAM,
        &P_MQUEUE,
        &P_FUTEX_THREAD,
    ],
};
