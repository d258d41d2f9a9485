//! lat_poll (beyond lmbench): readiness. poll(2) scans every descriptor
//! it is given; epoll_wait(2) returns the ready list, whatever the number
//! watched. N descriptors, exactly one ready.
use super::{Metric, Program, Unit::Micros};

macro_rules! ready {
    ($name:ident, $id:literal, $call:literal, $n:literal) => {
        pub static $name: Metric = Metric::median(
            $id,
            Micros,
            concat!(
                $call,
                " over ",
                $n,
                " eventfds, exactly one readable (the last), zero timeout; must report 1 ready"
            ),
        );
    };
}

ready!(POLL_10, "lat_poll/poll/10", "one poll(2) for POLLIN", "10");
ready!(
    POLL_100,
    "lat_poll/poll/100",
    "one poll(2) for POLLIN",
    "100"
);
ready!(
    POLL_1000,
    "lat_poll/poll/1000",
    "one poll(2) for POLLIN",
    "1000"
);
ready!(
    EPOLL_10,
    "lat_poll/epoll/10",
    "one epoll_wait(2) on an epoll instance watching (level-triggered EPOLLIN)",
    "10"
);
ready!(
    EPOLL_100,
    "lat_poll/epoll/100",
    "one epoll_wait(2) on an epoll instance watching (level-triggered EPOLLIN)",
    "100"
);
ready!(
    EPOLL_1000,
    "lat_poll/epoll/1000",
    "one epoll_wait(2) on an epoll instance watching (level-triggered EPOLLIN)",
    "1000"
);
pub static EPOLL_CTL: Metric = Metric::median(
    "lat_poll/epoll_ctl",
    Micros,
    "epoll_ctl(EPOLL_CTL_ADD) of one eventfd to an epoll instance watching 1000 others, then EPOLL_CTL_DEL of it",
);

pub static PROGRAM: Program = Program {
    name: "lat_poll",
    about:
        "beyond lmbench: poll and epoll_wait over 10/100/1000 fds with one ready; epoll_ctl add+del",
    metrics: &[
        &POLL_10,
        &POLL_100,
        &POLL_1000,
        &EPOLL_10,
        &EPOLL_100,
        &EPOLL_1000,
        &EPOLL_CTL,
    ],
};
