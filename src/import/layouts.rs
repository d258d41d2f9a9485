//! The SUMMARY tables as published by lmbench 1.9, 2.0 and 3.0 users: each
//! table's title, its column headers (word for word, as the posts show
//! them), and the column of ours each feeds. A table is recognised by its
//! title and its header words, so the layouts survive collapsed
//! whitespace. Sources: two lmbench 1.9 mailing-list posts (NetBSD pmax,
//! NetBSD and OSF1 on Alpha), lmbench 2.0 and 3.0 posts to linux-kernel
//! (2002, 2003), lmbench 3.0 summaries of recent Linux. lmbench 1.0 and
//! 1.1's tables are in `lmbench1`.

use lmbench_support::catalog::tables::{
    COMM_BW, COMM_LAT, CTX, FS_VM, MEM_LAT, OPS_DOUBLE, OPS_FLOAT, OPS_INT, OPS_INT64, PROCESSES,
    REMOTE_LAT, SYSPARAMS,
};
use lmbench_support::catalog::Table;

/// How a column's cells read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Figure,
    /// Free text ("i686-pc-linux-gnu", "No L2 cache?"): one word in a row
    /// of collapsed whitespace (Description) or the rest of it (Guesses).
    Text,
}

/// One published column.
pub struct Col {
    /// Header words by header line; "" where the line is empty above it.
    pub head: [&'static str; 3],
    pub kind: Kind,
    /// The table whose column of the same name it feeds, if any (looked up
    /// by name, see [`Col::ours`], so a column added to ours shifts none).
    pub table: Option<&'static Table>,
    /// Our column's name (`Table::column_name`) where it is not the
    /// published one.
    pub ours_name: Option<&'static str>,
    /// For a figure that feeds none of our columns: the table of ours it
    /// is kept beside (`Machine::extra` keys it `table key/column name`,
    /// and the summary prints it under that table).
    pub beside: Option<&'static Table>,
}

/// One published table layout.
pub struct Layout {
    pub title: &'static str,
    /// Which versions print it this way (for messages).
    pub versions: &'static str,
    pub cols: &'static [Col],
}

impl Col {
    /// A figure column that feeds the column of `t` with the same name.
    pub(super) const fn fig(top: &'static str, bottom: &'static str, t: &'static Table) -> Col {
        Col {
            head: [top, bottom, ""],
            kind: Kind::Figure,
            table: Some(t),
            ours_name: None,
            beside: None,
        }
    }

    /// A figure column that feeds column `ours` of `t` (named otherwise).
    pub(super) const fn to(self, ours: &'static str) -> Col {
        Col {
            ours_name: Some(ours),
            ..self
        }
    }

    /// A text column (feeds none of ours; read into `Machine::facts`).
    pub(super) const fn text(head: [&'static str; 3]) -> Col {
        Col {
            head,
            kind: Kind::Text,
            table: None,
            ours_name: None,
            beside: None,
        }
    }

    /// A figure column that feeds none of ours, kept beside table `t`.
    pub(super) const fn beside(head: [&'static str; 3], t: &'static Table) -> Col {
        Col {
            head,
            kind: Kind::Figure,
            table: None,
            ours_name: None,
            beside: Some(t),
        }
    }

    /// The column of ours it feeds: its table and index there.
    pub fn ours(&self) -> Option<(&'static Table, usize)> {
        let t = self.table?;
        let name = self
            .ours_name
            .map_or_else(|| col_name(self), str::to_string);
        (0..t.columns.len())
            .find(|&i| t.column_name(i) == name)
            .map(|i| (t, i))
    }
}

/// The name a column goes by in messages and `extra`.
pub fn col_name(c: &Col) -> String {
    c.head
        .iter()
        .filter(|h| !h.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The header words a layout expects, line after line, without Host/OS.
pub fn header_words(l: &Layout) -> Vec<&'static str> {
    let mut w = Vec::new();
    for line in 0..3 {
        for c in l.cols {
            w.extend(c.head[line].split_whitespace());
        }
    }
    w
}

const PROC_TITLE: &str = "Processor, Processes - times in microseconds - smaller is better";
const CTX_TITLE: &str = "Context switching - times in microseconds - smaller is better";
const LAT_TITLE: &str = "*Local* Communication latencies in microseconds - smaller is better";
const RLAT_TITLE: &str = "*Remote* Communication latencies in microseconds - smaller is better";
const FS_TITLE: &str = "File & VM system latencies in microseconds - smaller is better";
const BW_TITLE: &str = "*Local* Communication bandwidths in MB/s - bigger is better";
const MEM_TITLE: &str = "Memory latencies in nanoseconds - smaller is better";
const SYS_TITLE: &str = "Basic system parameters";

/// Processes: the columns after "open clos" differ between versions.
macro_rules! proc_cols {
    ($slct:expr) => {
        [
            Col::fig("Mhz", "", &PROCESSES),
            Col::fig("null", "call", &PROCESSES),
            Col::fig("null", "I/O", &PROCESSES),
            Col::fig("", "stat", &PROCESSES),
            Col::fig("open", "clos", &PROCESSES),
            $slct,
            Col::fig("sig", "inst", &PROCESSES),
            Col::fig("sig", "hndl", &PROCESSES),
            Col::fig("fork", "proc", &PROCESSES),
            Col::fig("exec", "proc", &PROCESSES),
            Col::fig("sh", "proc", &PROCESSES),
        ]
    };
}

/// lmbench 1.9's "selct" column does not say what it selects on, so it
/// feeds none of ours (kept in `extra`, beside the Processes table).
static PROC_19: [Col; 11] = proc_cols!(Col::beside(["selct", "", ""], &PROCESSES));
static PROC_20: [Col; 11] = proc_cols!(Col::fig("selct", "TCP", &PROCESSES).to("slct TCP"));
static PROC_30: [Col; 11] = proc_cols!(Col::fig("slct", "TCP", &PROCESSES));

static CTX_COLS: [Col; 7] = [
    Col::fig("2p/0K", "ctxsw", &CTX),
    Col::fig("2p/16K", "ctxsw", &CTX),
    Col::fig("2p/64K", "ctxsw", &CTX),
    Col::fig("8p/16K", "ctxsw", &CTX),
    Col::fig("8p/64K", "ctxsw", &CTX),
    Col::fig("16p/16K", "ctxsw", &CTX),
    Col::fig("16p/64K", "ctxsw", &CTX),
];

/// The local latency columns; lmbench 1.0 prints them without 2p/0K,
/// AF UNIX and TCP conn.
macro_rules! lat_cols {
    ($($ctx:expr)?; $($af_unix:expr)?; $($conn:expr)?) => {
        [
            $($ctx,)?
            Col::fig("Pipe", "", &COMM_LAT),
            $($af_unix,)?
            Col::fig("UDP", "", &COMM_LAT),
            Col::fig("RPC/", "UDP", &COMM_LAT),
            Col::fig("TCP", "", &COMM_LAT),
            Col::fig("RPC/", "TCP", &COMM_LAT),
            $($conn)?
        ]
    };
}
pub(super) use lat_cols;

static LAT_COLS: [Col; 8] = lat_cols!(
    Col::fig("2p/0K", "ctxsw", &COMM_LAT);
    Col::fig("AF", "UNIX", &COMM_LAT);
    Col::fig("TCP", "conn", &COMM_LAT)
);

static RLAT_COLS: [Col; 5] = [
    Col::fig("UDP", "", &REMOTE_LAT),
    Col::fig("RPC/", "UDP", &REMOTE_LAT),
    Col::fig("TCP", "", &REMOTE_LAT),
    Col::fig("RPC/", "TCP", &REMOTE_LAT),
    Col::fig("TCP", "conn", &REMOTE_LAT),
];

static FS_19: [Col; 7] = [
    Col::fig("0K File", "Create", &FS_VM),
    Col::fig("", "Delete", &FS_VM).to("0K File Delete"),
    Col::fig("10K File", "Create", &FS_VM),
    Col::fig("", "Delete", &FS_VM),
    Col::fig("Mmap", "Latency", &FS_VM),
    Col::fig("Prot", "Fault", &FS_VM),
    Col::fig("Page", "Fault", &FS_VM),
];
static FS_30: [Col; 8] = [
    Col::fig("0K File", "Create", &FS_VM),
    Col::fig("", "Delete", &FS_VM).to("0K File Delete"),
    Col::fig("10K File", "Create", &FS_VM),
    Col::fig("", "Delete", &FS_VM),
    Col::fig("Mmap", "Latency", &FS_VM),
    Col::fig("Prot", "Fault", &FS_VM),
    Col::fig("Page", "Fault", &FS_VM),
    Col::fig("100fd", "selct", &FS_VM),
];

/// The local bandwidth columns; lmbench 1.0 prints them without AF UNIX.
macro_rules! bw_cols {
    ($($af_unix:expr)?) => {
        [
            Col::fig("Pipe", "", &COMM_BW),
            $($af_unix,)?
            Col::fig("TCP", "", &COMM_BW),
            Col::fig("File", "reread", &COMM_BW),
            Col::fig("Mmap", "reread", &COMM_BW),
            Col::fig("Bcopy", "(libc)", &COMM_BW),
            Col::fig("Bcopy", "(hand)", &COMM_BW),
            Col::fig("Mem", "read", &COMM_BW),
            Col::fig("Mem", "write", &COMM_BW),
        ]
    };
}
pub(super) use bw_cols;

static BW_COLS: [Col; 9] = bw_cols!(Col::fig("AF", "UNIX", &COMM_BW));

pub(super) const GUESSES: Col = Col::text(["Guesses", "", ""]);
/// The memory latency columns every version opens with, then its own
/// (Rand mem, TLB) and Guesses.
macro_rules! mem_cols {
    ($($more:expr),*) => {
        [
            Col::fig("Mhz", "", &MEM_LAT),
            Col::fig("L1 $", "", &MEM_LAT),
            Col::fig("L2 $", "", &MEM_LAT),
            Col::fig("Main mem", "", &MEM_LAT),
            $($more,)*
            GUESSES,
        ]
    };
}
pub(super) use mem_cols;

static MEM_19: [Col; 5] = mem_cols!();
static MEM_30: [Col; 6] = mem_cols!(Col::fig("Rand mem", "", &MEM_LAT));

const DESCRIPTION: Col = Col::text(["Description", "", ""]);
static SYS_20: [Col; 2] = [DESCRIPTION, Col::fig("Mhz", "", &SYSPARAMS)];
static SYS_30: [Col; 6] = [
    DESCRIPTION,
    Col::fig("Mhz", "", &SYSPARAMS),
    Col::fig("tlb", "pages", &SYSPARAMS),
    Col {
        head: ["cache", "line", "bytes"],
        kind: Kind::Figure,
        table: Some(&SYSPARAMS),
        ours_name: Some("cache line"),
        beside: None,
    },
    Col::fig("mem", "par", &SYSPARAMS),
    Col::fig("scal", "load", &SYSPARAMS),
];

macro_rules! ops {
    ($name:ident, $word:literal, $t:expr, [$($op:literal),*]) => {
        static $name: [Col; ops!(@count $($op)*)] = [$(Col::fig($word, $op, $t)),*];
    };
    (@count) => { 0 };
    (@count $x:literal $($rest:literal)*) => { 1 + ops!(@count $($rest)*) };
}
ops!(
    OPS_INT_COLS,
    "intgr",
    &OPS_INT,
    ["bit", "add", "mul", "div", "mod"]
);
ops!(
    OPS_INT64_COLS,
    "int64",
    &OPS_INT64,
    ["bit", "add", "mul", "div", "mod"]
);
ops!(
    OPS_FLOAT_COLS,
    "float",
    &OPS_FLOAT,
    ["add", "mul", "div", "bogo"]
);
ops!(
    OPS_DOUBLE_COLS,
    "double",
    &OPS_DOUBLE,
    ["add", "mul", "div", "bogo"]
);

/// The layouts of lmbench 1.9 to 3.0 (see [`all`]).
static LAYOUTS: &[Layout] = &[
    Layout {
        title: SYS_TITLE,
        versions: "2.0",
        cols: &SYS_20,
    },
    Layout {
        title: SYS_TITLE,
        versions: "3.0",
        cols: &SYS_30,
    },
    Layout {
        title: PROC_TITLE,
        versions: "1.9",
        cols: &PROC_19,
    },
    Layout {
        title: PROC_TITLE,
        versions: "2.0",
        cols: &PROC_20,
    },
    Layout {
        title: PROC_TITLE,
        versions: "3.0",
        cols: &PROC_30,
    },
    Layout {
        title: "Basic integer operations - times in nanoseconds - smaller is better",
        versions: "3.0",
        cols: &OPS_INT_COLS,
    },
    Layout {
        title: "Basic uint64 operations - times in nanoseconds - smaller is better",
        versions: "3.0",
        cols: &OPS_INT64_COLS,
    },
    Layout {
        title: "Basic float operations - times in nanoseconds - smaller is better",
        versions: "3.0",
        cols: &OPS_FLOAT_COLS,
    },
    Layout {
        title: "Basic double operations - times in nanoseconds - smaller is better",
        versions: "3.0",
        cols: &OPS_DOUBLE_COLS,
    },
    Layout {
        title: CTX_TITLE,
        versions: "1.9-3.0",
        cols: &CTX_COLS,
    },
    Layout {
        title: LAT_TITLE,
        versions: "1.9-3.0",
        cols: &LAT_COLS,
    },
    Layout {
        title: RLAT_TITLE,
        versions: "3.0",
        cols: &RLAT_COLS,
    },
    Layout {
        title: FS_TITLE,
        versions: "1.9-2.0",
        cols: &FS_19,
    },
    Layout {
        title: FS_TITLE,
        versions: "3.0",
        cols: &FS_30,
    },
    Layout {
        title: BW_TITLE,
        versions: "1.9-3.0",
        cols: &BW_COLS,
    },
    Layout {
        title: MEM_TITLE,
        versions: "1.9-3.0",
        cols: &MEM_19,
    },
    Layout {
        title: MEM_TITLE,
        versions: "3.0",
        cols: &MEM_30,
    },
];

/// Every known layout; several may share a title (told apart by headers).
pub fn all() -> impl Iterator<Item = &'static Layout> {
    LAYOUTS.iter().chain(&super::lmbench1::LAYOUTS)
}

/// Titles compare with runs of whitespace collapsed.
pub fn same_title(a: &str, b: &str) -> bool {
    a.split_whitespace().eq(b.split_whitespace())
}

/// Is `line` the title of a known table?
pub fn is_title(line: &str) -> bool {
    all().any(|l| same_title(l.title, line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mapping_names_a_real_column() {
        for l in all() {
            for c in l.cols {
                if let Some(t) = c.table {
                    assert!(
                        c.ours().is_some(),
                        "{}: {} -> {}: no such column",
                        l.title,
                        col_name(c),
                        t.key
                    );
                }
                // A figure feeds a column of ours or is kept beside a
                // table; text does neither.
                match c.kind {
                    Kind::Figure => assert!(c.table.is_some() != c.beside.is_some()),
                    Kind::Text => assert!(c.table.is_none() && c.beside.is_none()),
                }
            }
        }
    }

    #[test]
    fn ops_macro_counts_its_columns() {
        assert_eq!(OPS_INT_COLS.len(), 5);
        assert_eq!(OPS_FLOAT_COLS[3].ours().map(|(_, i)| i), Some(3));
        assert_eq!(col_name(&OPS_DOUBLE_COLS[0]), "double add");
    }

    #[test]
    fn layouts_of_one_title_differ_in_headers() {
        let all: Vec<&Layout> = all().collect();
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                if a.title == b.title {
                    assert_ne!(header_words(a), header_words(b), "{}", a.title);
                }
            }
        }
    }
}
