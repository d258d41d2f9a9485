use crate::catalog::lat_fs as fs;
use crate::catalog::lat_mmap as mmap;
use crate::catalog::lat_pagefault as pf;
use crate::catalog::lat_sig as sig;
use crate::catalog::{Column, Lookup, Source, Table, Unit};

pub static FS_VM: Table = Table {
    key: "fs_vm",
    title: "File & VM system latencies in microseconds - smaller is better",
    unit: Unit::Micros,
    notes,
    columns: &[
        Column::new("0K File", "Create", 6, Source::Metric(&fs::CREATE_0K)),
        Column::new("", "Delete", 6, Source::Metric(&fs::DELETE_0K)),
        Column::new("10K File", "Create", 8, Source::Metric(&fs::CREATE_10K)),
        Column::new("", "Delete", 6, Source::Metric(&fs::DELETE_10K)),
        Column::new(
            "Mmap",
            "Latency",
            7,
            Source::Computed(|| mmap::ALL.to_vec(), mmap::largest),
        ),
        Column::new(
            "Prot",
            "Fault",
            5,
            Source::Computed(|| sig::PROT_FAULT_INPUTS.to_vec(), sig::prot_fault),
        ),
        Column::new(
            "Page",
            "Fault",
            7,
            Source::Minus(&pf::PAGE, &pf::PAGE_REMAP),
        ),
        Column::new(
            "100fd",
            "selct",
            5,
            Source::Metric(&crate::catalog::lat_select::FILE_100),
        ),
    ],
};

/// Under the table: the file-create caveat and what a page fault mapped.
pub fn notes(run: &dyn Lookup) -> Vec<String> {
    let mut out = create_notes(run);
    out.extend(fault_notes(run));
    out
}

/// Under the table, for a run that measured `faults_per_page`: how many
/// pages one fault mapped (fault-around, the page cache's large folios,
/// THP), the fact that decides what "Page Fault" per page is. A kernel
/// that maps 16 pages a fault and one that maps 1 give per-page figures
/// of different work, and this is where a reader sees it.
pub fn fault_notes(run: &dyn Lookup) -> Vec<String> {
    let Some(ratio) = run.value(&pf::FAULTS_PER_PAGE).filter(|r| *r > 0.0) else {
        return Vec::new();
    };
    let per_fault = run
        .value(&pf::PER_FAULT)
        .map(|us| format!(", {} us per fault taken (per_fault)", sig3(us)))
        .unwrap_or_default();
    vec![format!(
        "Page Fault is per page touched: a fault mapped {} pages here (faults_per_page {}: \
         fault-around and the page cache's folios){per_fault}.",
        sig3(1.0 / ratio),
        sig3(ratio),
    )]
}

/// Three significant digits, as a note quotes a figure: 16, 0.0625, 3.36.
fn sig3(v: f64) -> String {
    if !v.is_finite() || v == 0.0 {
        return format!("{v}");
    }
    let digits = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Under the table, for a run whose scratch file system is ext4 without a
/// journal: there ext4 keeps a freed inode from reuse for a minute or more
/// and, on every create, walks past each such inode of the group from its
/// first, so a create costs what the deletions of the minutes before left
/// (on a 2-vCPU AMD EPYC guest, 13 to 274 us a run in one sitting, and 60,
/// 99, 143, 168 us in four invocations in a row): not a figure to compare.
pub fn create_notes(run: &dyn Lookup) -> Vec<String> {
    let no_journal = run.fact("fsdir_fstype").as_deref() == Some("ext4")
        && run.fact("fsdir_journal").as_deref() == Some(crate::fs::NO_JOURNAL);
    if !no_journal {
        return Vec::new();
    }
    vec![format!(
        "File Create: {} is ext4 without a journal, which does not reuse an inode freed \
         in the last minutes and walks past each one on every create: the figure is what \
         the deletions before it left, and varies run to run by several times. \
         LMBENCH_FSDIR on a journaled file system or tmpfs gives one to compare.",
        run.fact("fsdir")
            .unwrap_or_else(|| "the scratch directory".to_string())
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Metric;

    struct Facts(&'static [(&'static str, &'static str)]);

    impl Lookup for Facts {
        fn value(&self, _: &Metric) -> Option<f64> {
            None
        }
        fn fact(&self, key: &str) -> Option<String> {
            let found = self.0.iter().find(|(k, _)| *k == key);
            found.map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn create_is_noted_only_on_ext4_without_a_journal() {
        let none = crate::fs::NO_JOURNAL;
        let bare = Facts(&[
            ("fsdir", "/tmp"),
            ("fsdir_fstype", "ext4"),
            ("fsdir_journal", "none"),
        ]);
        assert_eq!(none, "none");
        let notes = create_notes(&bare);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].starts_with("File Create: /tmp is ext4 without a journal"));
        for quiet in [
            Facts(&[("fsdir_fstype", "ext4"), ("fsdir_journal", "jbd2")]),
            Facts(&[("fsdir_fstype", "tmpfs")]),
            // A run saved before the fact was recorded.
            Facts(&[("fsdir_fstype", "ext4")]),
        ] {
            assert!(create_notes(&quiet).is_empty());
        }
    }

    struct Values(Vec<(&'static Metric, f64)>);

    impl Lookup for Values {
        fn value(&self, m: &Metric) -> Option<f64> {
            self.0
                .iter()
                .find(|(k, _)| std::ptr::eq(*k, m))
                .map(|(_, v)| *v)
        }
        fn fact(&self, _: &str) -> Option<String> {
            None
        }
    }

    #[test]
    fn the_fault_note_gives_pages_a_fault_at_full_precision() {
        let ext4 = Values(vec![
            (&pf::FAULTS_PER_PAGE, 0.0625),
            (&pf::PER_FAULT, 3.3567),
        ]);
        assert_eq!(
            fault_notes(&ext4),
            [
                "Page Fault is per page touched: a fault mapped 16 pages here (faults_per_page \
              0.0625: fault-around and the page cache's folios), 3.36 us per fault taken \
              (per_fault)."
            ]
        );
        let thp = Values(vec![(&pf::FAULTS_PER_PAGE, 1.0 / 512.0)]);
        assert!(fault_notes(&thp)[0].contains("mapped 512 pages here (faults_per_page 0.00195"));
        assert!(fault_notes(&Values(vec![])).is_empty());
        assert_eq!(sig3(4.0), "4");
        assert_eq!(sig3(1.0), "1");
    }
}
