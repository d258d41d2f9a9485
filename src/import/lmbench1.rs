//! The SUMMARY tables of lmbench 1.0 and 1.1 (1995-1996 posts; 1.1 prints
//! the same tables under its own banner): four tables whose titles end
//! without "- smaller is better", a Processes table that also carries the
//! mmap and context-switch figures, no AF_UNIX or connect columns, and a
//! TLB column in the memory table. Each column feeds ours by meaning:
//!
//! - Null Syscall is our null call; Null Process (fork+exit), Simple
//!   Process (fork+exec) and /bin/sh Process (fork + `sh -c`) our fork,
//!   exec and sh proc; Mmap lat our File & VM table's Mmap Latency.
//! - 2-proc ctxsw is our 2p/0K: the header names no working set, so it is
//!   read as the smallest ring, the one later versions print first as
//!   2p/0K. 8-proc ctxsw would be 8p/0K, which we do not measure: it is
//!   kept beside our Context switching table.
//! - TLB is a latency in nanoseconds whose derivation the table does not
//!   state (a miss's cost, or a load's latency with one); our TLB/page
//!   walk column is the full latency of one load per page at our largest
//!   size, so TLB is kept beside our Memory latencies table rather than
//!   compared with it. Guesses is text, shown as a note under that table.

use super::layouts::{bw_cols, lat_cols, mem_cols, Col, Layout, GUESSES};
use lmbench_support::catalog::tables::{COMM_BW, COMM_LAT, CTX, FS_VM, MEM_LAT, PROCESSES};

const PROC_TITLE: &str = "Processor, Processes - times in microseconds";
const LAT_TITLE: &str = "*Local* Communication latencies in microseconds";
const BW_TITLE: &str = "*Local* Communication bandwidths in megabytes/second";
const MEM_TITLE: &str = "Memory latencies in nanoseconds";

static PROC: [Col; 8] = [
    Col::fig("Mhz", "", &PROCESSES),
    Col::fig("Null", "Syscall", &PROCESSES).to("null call"),
    Col::fig("Null", "Process", &PROCESSES).to("fork proc"),
    Col::fig("Simple", "Process", &PROCESSES).to("exec proc"),
    Col::fig("/bin/sh", "Process", &PROCESSES).to("sh proc"),
    Col::fig("Mmap", "lat", &FS_VM).to("Mmap Latency"),
    Col::fig("2-proc", "ctxsw", &CTX).to("2p/0K ctxsw"),
    Col::beside(["8-proc", "ctxsw", ""], &CTX),
];

static LAT: [Col; 5] = lat_cols!(;;);
static BW: [Col; 8] = bw_cols!();
static MEM: [Col; 6] = mem_cols!(Col::beside(["TLB", "", ""], &MEM_LAT));

pub static LAYOUTS: [Layout; 4] = [
    Layout {
        title: PROC_TITLE,
        versions: "1.0-1.1",
        cols: &PROC,
    },
    Layout {
        title: LAT_TITLE,
        versions: "1.0-1.1",
        cols: &LAT,
    },
    Layout {
        title: BW_TITLE,
        versions: "1.0-1.1",
        cols: &BW,
    },
    Layout {
        title: MEM_TITLE,
        versions: "1.0-1.1",
        cols: &MEM,
    },
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::layouts::col_name;

    #[test]
    fn columns_feed_ours_by_meaning() {
        let ours = |c: &Col| c.ours().map(|(t, i)| t.cell_key(i));
        let names: Vec<(String, Option<String>)> =
            PROC.iter().map(|c| (col_name(c), ours(c))).collect();
        let want = [
            ("Mhz", Some("processes/Mhz")),
            ("Null Syscall", Some("processes/null call")),
            ("Null Process", Some("processes/fork proc")),
            ("Simple Process", Some("processes/exec proc")),
            ("/bin/sh Process", Some("processes/sh proc")),
            ("Mmap lat", Some("fs_vm/Mmap Latency")),
            ("2-proc ctxsw", Some("ctx/2p/0K ctxsw")),
            ("8-proc ctxsw", None),
        ];
        let want: Vec<(String, Option<String>)> = want
            .iter()
            .map(|(n, k)| (n.to_string(), k.map(str::to_string)))
            .collect();
        assert_eq!(names, want);
        assert_eq!(PROC[7].beside.map(|t| t.key), Some("ctx"));
        assert_eq!(MEM[4].beside.map(|t| t.key), Some("mem_lat"));
        assert_eq!(ours(&LAT[2]).as_deref(), Some("comm_lat/RPC/ UDP"));
        assert_eq!(ours(&BW[5]).as_deref(), Some("comm_bw/Bcopy (hand)"));
    }
}
