//! scaling (beyond lmbench): how a cost scales with cores, lmbench3's
//! parallelism (`-P`) and will-it-scale's method. The same operation runs
//! in 1, N and 2N copies at once (N = the CPUs this process may use, never
//! hard-coded), as processes and as threads, copy i pinned to the i-th CPU
//! modulo N. One timed iteration = every copy doing the operation once,
//! all copies released together and timed until the last finishes: so the
//! figure stays flat with the copy count under perfect scaling, and the
//! efficiency at N is (time at 1) / (time at N). Memory read is a
//! bandwidth: aggregate MB/s of all copies, efficiency = MB/s at N /
//! (N x MB/s at 1) (a fixed footprint of 4x the largest cache shared out among
//! the copies, so every count reads memory).
use super::{Metric, Program, Unit::MBps, Unit::Micros};

pub static NULL_PROC_C1: Metric = Metric::median(
    "scaling/null_proc/c1",
    Micros,
    "1 copy at once (copies are processes): wall time until every copy has done one raw getppid system call",
);
pub static NULL_PROC_CN: Metric = Metric::median(
    "scaling/null_proc/cn",
    Micros,
    "N copies (N = the CPUs this process may use) at once (copies are processes): wall time until every copy has done one raw getppid system call",
);
pub static NULL_PROC_C2N: Metric = Metric::median(
    "scaling/null_proc/c2n",
    Micros,
    "2N copies at once (copies are processes): wall time until every copy has done one raw getppid system call",
);
pub static NULL_THREAD_C1: Metric = Metric::median(
    "scaling/null_thread/c1",
    Micros,
    "1 copy at once (copies are threads of one process): wall time until every copy has done one raw getppid system call",
);
pub static NULL_THREAD_CN: Metric = Metric::median(
    "scaling/null_thread/cn",
    Micros,
    "N copies (N = the CPUs this process may use) at once (copies are threads of one process): wall time until every copy has done one raw getppid system call",
);
pub static NULL_THREAD_C2N: Metric = Metric::median(
    "scaling/null_thread/c2n",
    Micros,
    "2N copies at once (copies are threads of one process): wall time until every copy has done one raw getppid system call",
);
pub static PIPE_PROC_C1: Metric = Metric::median(
    "scaling/pipe_proc/c1",
    Micros,
    "1 copy at once (copies are processes): wall time until every copy has done one 1-byte round trip over two pipes to the copy's own echo partner (a process, or a thread in thread mode, on the copy's CPU)",
);
pub static PIPE_PROC_CN: Metric = Metric::median(
    "scaling/pipe_proc/cn",
    Micros,
    "N copies (N = the CPUs this process may use) at once (copies are processes): wall time until every copy has done one 1-byte round trip over two pipes to the copy's own echo partner (a process, or a thread in thread mode, on the copy's CPU)",
);
pub static PIPE_PROC_C2N: Metric = Metric::median(
    "scaling/pipe_proc/c2n",
    Micros,
    "2N copies at once (copies are processes): wall time until every copy has done one 1-byte round trip over two pipes to the copy's own echo partner (a process, or a thread in thread mode, on the copy's CPU)",
);
pub static PIPE_THREAD_C1: Metric = Metric::median(
    "scaling/pipe_thread/c1",
    Micros,
    "1 copy at once (copies are threads of one process): wall time until every copy has done one 1-byte round trip over two pipes to the copy's own echo partner (a process, or a thread in thread mode, on the copy's CPU)",
);
pub static PIPE_THREAD_CN: Metric = Metric::median(
    "scaling/pipe_thread/cn",
    Micros,
    "N copies (N = the CPUs this process may use) at once (copies are threads of one process): wall time until every copy has done one 1-byte round trip over two pipes to the copy's own echo partner (a process, or a thread in thread mode, on the copy's CPU)",
);
pub static PIPE_THREAD_C2N: Metric = Metric::median(
    "scaling/pipe_thread/c2n",
    Micros,
    "2N copies at once (copies are threads of one process): wall time until every copy has done one 1-byte round trip over two pipes to the copy's own echo partner (a process, or a thread in thread mode, on the copy's CPU)",
);
pub static FAULT_PROC_C1: Metric = Metric::median(
    "scaling/fault_proc/c1",
    Micros,
    "1 copy at once (copies are processes): wall time until every copy has done one write to an untouched 4 KiB page of the copy's private 16 MiB anonymous mapping (MADV_NOHUGEPAGE), the MADV_DONTNEED that empties it every 4096 pages amortised in",
);
pub static FAULT_PROC_CN: Metric = Metric::median(
    "scaling/fault_proc/cn",
    Micros,
    "N copies (N = the CPUs this process may use) at once (copies are processes): wall time until every copy has done one write to an untouched 4 KiB page of the copy's private 16 MiB anonymous mapping (MADV_NOHUGEPAGE), the MADV_DONTNEED that empties it every 4096 pages amortised in",
);
pub static FAULT_PROC_C2N: Metric = Metric::median(
    "scaling/fault_proc/c2n",
    Micros,
    "2N copies at once (copies are processes): wall time until every copy has done one write to an untouched 4 KiB page of the copy's private 16 MiB anonymous mapping (MADV_NOHUGEPAGE), the MADV_DONTNEED that empties it every 4096 pages amortised in",
);
pub static FAULT_THREAD_C1: Metric = Metric::median(
    "scaling/fault_thread/c1",
    Micros,
    "1 copy at once (copies are threads of one process): wall time until every copy has done one write to an untouched 4 KiB page of the copy's private 16 MiB anonymous mapping (MADV_NOHUGEPAGE), the MADV_DONTNEED that empties it every 4096 pages amortised in",
);
pub static FAULT_THREAD_CN: Metric = Metric::median(
    "scaling/fault_thread/cn",
    Micros,
    "N copies (N = the CPUs this process may use) at once (copies are threads of one process): wall time until every copy has done one write to an untouched 4 KiB page of the copy's private 16 MiB anonymous mapping (MADV_NOHUGEPAGE), the MADV_DONTNEED that empties it every 4096 pages amortised in",
);
pub static FAULT_THREAD_C2N: Metric = Metric::median(
    "scaling/fault_thread/c2n",
    Micros,
    "2N copies at once (copies are threads of one process): wall time until every copy has done one write to an untouched 4 KiB page of the copy's private 16 MiB anonymous mapping (MADV_NOHUGEPAGE), the MADV_DONTNEED that empties it every 4096 pages amortised in",
);
pub static OPEN_SHARED_PROC_C1: Metric = Metric::median(
    "scaling/open_shared_proc/c1",
    Micros,
    "1 copy at once (copies are processes): wall time until every copy has done open(O_RDONLY)+close of one file that every copy opens",
);
pub static OPEN_SHARED_PROC_CN: Metric = Metric::median(
    "scaling/open_shared_proc/cn",
    Micros,
    "N copies (N = the CPUs this process may use) at once (copies are processes): wall time until every copy has done open(O_RDONLY)+close of one file that every copy opens",
);
pub static OPEN_SHARED_PROC_C2N: Metric = Metric::median(
    "scaling/open_shared_proc/c2n",
    Micros,
    "2N copies at once (copies are processes): wall time until every copy has done open(O_RDONLY)+close of one file that every copy opens",
);
pub static OPEN_SHARED_THREAD_C1: Metric = Metric::median(
    "scaling/open_shared_thread/c1",
    Micros,
    "1 copy at once (copies are threads of one process): wall time until every copy has done open(O_RDONLY)+close of one file that every copy opens",
);
pub static OPEN_SHARED_THREAD_CN: Metric = Metric::median(
    "scaling/open_shared_thread/cn",
    Micros,
    "N copies (N = the CPUs this process may use) at once (copies are threads of one process): wall time until every copy has done open(O_RDONLY)+close of one file that every copy opens",
);
pub static OPEN_SHARED_THREAD_C2N: Metric = Metric::median(
    "scaling/open_shared_thread/c2n",
    Micros,
    "2N copies at once (copies are threads of one process): wall time until every copy has done open(O_RDONLY)+close of one file that every copy opens",
);
pub static OPEN_OWN_PROC_C1: Metric = Metric::median(
    "scaling/open_own_proc/c1",
    Micros,
    "1 copy at once (copies are processes): wall time until every copy has done open(O_RDONLY)+close of the copy's own file, all in one directory",
);
pub static OPEN_OWN_PROC_CN: Metric = Metric::median(
    "scaling/open_own_proc/cn",
    Micros,
    "N copies (N = the CPUs this process may use) at once (copies are processes): wall time until every copy has done open(O_RDONLY)+close of the copy's own file, all in one directory",
);
pub static OPEN_OWN_PROC_C2N: Metric = Metric::median(
    "scaling/open_own_proc/c2n",
    Micros,
    "2N copies at once (copies are processes): wall time until every copy has done open(O_RDONLY)+close of the copy's own file, all in one directory",
);
pub static OPEN_OWN_THREAD_C1: Metric = Metric::median(
    "scaling/open_own_thread/c1",
    Micros,
    "1 copy at once (copies are threads of one process): wall time until every copy has done open(O_RDONLY)+close of the copy's own file, all in one directory",
);
pub static OPEN_OWN_THREAD_CN: Metric = Metric::median(
    "scaling/open_own_thread/cn",
    Micros,
    "N copies (N = the CPUs this process may use) at once (copies are threads of one process): wall time until every copy has done open(O_RDONLY)+close of the copy's own file, all in one directory",
);
pub static OPEN_OWN_THREAD_C2N: Metric = Metric::median(
    "scaling/open_own_thread/c2n",
    Micros,
    "2N copies at once (copies are threads of one process): wall time until every copy has done open(O_RDONLY)+close of the copy's own file, all in one directory",
);
pub static MEMRD_PROC_C1: Metric = Metric {
    id: "scaling/memrd_proc/c1",
    unit: MBps,
    headline: super::Headline::Median,
    timed: "1 copy at once (copies are processes): every copy sums every 8-byte word of its own buffer once (the buffers together span 4x the largest cache, at least 64 MiB); aggregate MB/s",
};
pub static MEMRD_PROC_CN: Metric = Metric {
    id: "scaling/memrd_proc/cn",
    unit: MBps,
    headline: super::Headline::Median,
    timed: "N copies (N = the CPUs this process may use) at once (copies are processes): every copy sums every 8-byte word of its own buffer once (the buffers together span 4x the largest cache, at least 64 MiB); aggregate MB/s",
};
pub static MEMRD_PROC_C2N: Metric = Metric {
    id: "scaling/memrd_proc/c2n",
    unit: MBps,
    headline: super::Headline::Median,
    timed: "2N copies at once (copies are processes): every copy sums every 8-byte word of its own buffer once (the buffers together span 4x the largest cache, at least 64 MiB); aggregate MB/s",
};
pub static MEMRD_THREAD_C1: Metric = Metric {
    id: "scaling/memrd_thread/c1",
    unit: MBps,
    headline: super::Headline::Median,
    timed: "1 copy at once (copies are threads of one process): every copy sums every 8-byte word of its own buffer once (the buffers together span 4x the largest cache, at least 64 MiB); aggregate MB/s",
};
pub static MEMRD_THREAD_CN: Metric = Metric {
    id: "scaling/memrd_thread/cn",
    unit: MBps,
    headline: super::Headline::Median,
    timed: "N copies (N = the CPUs this process may use) at once (copies are threads of one process): every copy sums every 8-byte word of its own buffer once (the buffers together span 4x the largest cache, at least 64 MiB); aggregate MB/s",
};
pub static MEMRD_THREAD_C2N: Metric = Metric {
    id: "scaling/memrd_thread/c2n",
    unit: MBps,
    headline: super::Headline::Median,
    timed: "2N copies at once (copies are threads of one process): every copy sums every 8-byte word of its own buffer once (the buffers together span 4x the largest cache, at least 64 MiB); aggregate MB/s",
};

/// How many copies a metric runs, in terms of N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Copies {
    One,
    N,
    TwoN,
}

impl Copies {
    /// The copy count on a machine whose N is `n`.
    pub fn count(self, n: usize) -> usize {
        match self {
            Copies::One => 1,
            Copies::N => n,
            Copies::TwoN => 2 * n,
        }
    }
}

/// One operation in one mode: (peer op, peer mode, metrics at 1, N, 2N).
pub struct Series {
    pub op: &'static str,
    pub mode: &'static str,
    pub metrics: [&'static Metric; 3],
}

/// The copy counts of `Series::metrics`, in order.
pub const COPIES: [Copies; 3] = [Copies::One, Copies::N, Copies::TwoN];

/// Every series, in bench order.
pub static SERIES: [Series; 12] = [
    Series {
        op: "null",
        mode: "proc",
        metrics: [&NULL_PROC_C1, &NULL_PROC_CN, &NULL_PROC_C2N],
    },
    Series {
        op: "null",
        mode: "thread",
        metrics: [&NULL_THREAD_C1, &NULL_THREAD_CN, &NULL_THREAD_C2N],
    },
    Series {
        op: "pipe",
        mode: "proc",
        metrics: [&PIPE_PROC_C1, &PIPE_PROC_CN, &PIPE_PROC_C2N],
    },
    Series {
        op: "pipe",
        mode: "thread",
        metrics: [&PIPE_THREAD_C1, &PIPE_THREAD_CN, &PIPE_THREAD_C2N],
    },
    Series {
        op: "fault",
        mode: "proc",
        metrics: [&FAULT_PROC_C1, &FAULT_PROC_CN, &FAULT_PROC_C2N],
    },
    Series {
        op: "fault",
        mode: "thread",
        metrics: [&FAULT_THREAD_C1, &FAULT_THREAD_CN, &FAULT_THREAD_C2N],
    },
    Series {
        op: "open_shared",
        mode: "proc",
        metrics: [
            &OPEN_SHARED_PROC_C1,
            &OPEN_SHARED_PROC_CN,
            &OPEN_SHARED_PROC_C2N,
        ],
    },
    Series {
        op: "open_shared",
        mode: "thread",
        metrics: [
            &OPEN_SHARED_THREAD_C1,
            &OPEN_SHARED_THREAD_CN,
            &OPEN_SHARED_THREAD_C2N,
        ],
    },
    Series {
        op: "open_own",
        mode: "proc",
        metrics: [&OPEN_OWN_PROC_C1, &OPEN_OWN_PROC_CN, &OPEN_OWN_PROC_C2N],
    },
    Series {
        op: "open_own",
        mode: "thread",
        metrics: [
            &OPEN_OWN_THREAD_C1,
            &OPEN_OWN_THREAD_CN,
            &OPEN_OWN_THREAD_C2N,
        ],
    },
    Series {
        op: "memrd",
        mode: "proc",
        metrics: [&MEMRD_PROC_C1, &MEMRD_PROC_CN, &MEMRD_PROC_C2N],
    },
    Series {
        op: "memrd",
        mode: "thread",
        metrics: [&MEMRD_THREAD_C1, &MEMRD_THREAD_CN, &MEMRD_THREAD_C2N],
    },
];

pub static PROGRAM: Program = Program {
    name: "scaling",
    about: "beyond lmbench: null call, pipe round trip, page fault, open+close, memory read in 1, N, 2N copies, as processes and threads",
    metrics: &[
        &NULL_PROC_C1,
        &NULL_PROC_CN,
        &NULL_PROC_C2N,
        &NULL_THREAD_C1,
        &NULL_THREAD_CN,
        &NULL_THREAD_C2N,
        &PIPE_PROC_C1,
        &PIPE_PROC_CN,
        &PIPE_PROC_C2N,
        &PIPE_THREAD_C1,
        &PIPE_THREAD_CN,
        &PIPE_THREAD_C2N,
        &FAULT_PROC_C1,
        &FAULT_PROC_CN,
        &FAULT_PROC_C2N,
        &FAULT_THREAD_C1,
        &FAULT_THREAD_CN,
        &FAULT_THREAD_C2N,
        &OPEN_SHARED_PROC_C1,
        &OPEN_SHARED_PROC_CN,
        &OPEN_SHARED_PROC_C2N,
        &OPEN_SHARED_THREAD_C1,
        &OPEN_SHARED_THREAD_CN,
        &OPEN_SHARED_THREAD_C2N,
        &OPEN_OWN_PROC_C1,
        &OPEN_OWN_PROC_CN,
        &OPEN_OWN_PROC_C2N,
        &OPEN_OWN_THREAD_C1,
        &OPEN_OWN_THREAD_CN,
        &OPEN_OWN_THREAD_C2N,
        &MEMRD_PROC_C1,
        &MEMRD_PROC_CN,
        &MEMRD_PROC_C2N,
        &MEMRD_THREAD_C1,
        &MEMRD_THREAD_CN,
        &MEMRD_THREAD_C2N,
    ],
};
