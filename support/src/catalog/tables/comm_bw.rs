use crate::catalog::{
    bw_file_rd, bw_mem, bw_mmap_rd, bw_pipe, bw_tcp, bw_unix, Column, Lookup, Program, Source,
    Table, Unit,
};

pub static COMM_BW: Table = Table {
    key: "comm_bw",
    title: "*Local* Communication bandwidths in MB/s - bigger is better",
    unit: Unit::MBps,
    columns: &[
        Column::new("Pipe", "", 5, Source::Metric(&bw_pipe::READ_64K)),
        Column::new("AF", "UNIX", 5, Source::Metric(&bw_unix::READ_64K)),
        Column::new("TCP", "", 5, Source::Metric(&bw_tcp::READ_10M)),
        Column::new("File", "reread", 6, Source::Derived(file_reread)),
        Column::new("Mmap", "reread", 6, Source::Derived(mmap_reread)),
        Column::new("Bcopy", "(libc)", 6, Source::Derived(bcopy_libc)),
        Column::new("Bcopy", "(hand)", 6, Source::Derived(bcopy_hand)),
        Column::new("Mem", "read", 5, Source::Derived(mem_read)),
        Column::new("Mem", "write", 5, Source::Derived(mem_write)),
    ],
};

/// The figure of `function` at the largest size the run has: the sweeps
/// stop at a size that depends on the machine (bw_mem) or the caller, and
/// lmbench's summary shows the largest.
fn largest(run: &dyn Lookup, program: &Program, function: &str) -> Option<f64> {
    program
        .metrics
        .iter()
        .rev()
        .filter(|m| m.function_and_parameter().0 == function)
        .find_map(|m| run.value(m))
}

fn file_reread(run: &dyn Lookup) -> Option<f64> {
    largest(run, &bw_file_rd::PROGRAM, "io_only")
}
fn mmap_reread(run: &dyn Lookup) -> Option<f64> {
    largest(run, &bw_mmap_rd::PROGRAM, "mmap_only")
}
/// bcopy and fcp sizes are per buffer: their largest is half the largest
/// footprint, lmbench's "half size" for the copies.
fn bcopy_libc(run: &dyn Lookup) -> Option<f64> {
    largest(run, &bw_mem::PROGRAM, "bcopy")
}
fn bcopy_hand(run: &dyn Lookup) -> Option<f64> {
    largest(run, &bw_mem::PROGRAM, "fcp")
}
fn mem_read(run: &dyn Lookup) -> Option<f64> {
    largest(run, &bw_mem::PROGRAM, "frd")
}
fn mem_write(run: &dyn Lookup) -> Option<f64> {
    largest(run, &bw_mem::PROGRAM, "fwr")
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::catalog::FakeRun as Run;

    #[test]
    fn summary_takes_the_largest_size_present() {
        let run = Run(&[
            ("bw_mem/frd/4k", 1.0),
            ("bw_mem/frd/32m", 2.0),
            ("bw_mem/frd/64m", 3.0),
            ("bw_mem/fwr/4k", 4.0),
            ("bw_file_rd/io_only/8m", 5.0),
            ("bw_file_rd/open2close/64m", 6.0),
        ]);
        assert_eq!(mem_read(&run), Some(3.0));
        assert_eq!(mem_write(&run), Some(4.0));
        assert_eq!(file_reread(&run), Some(5.0));
        assert_eq!(bcopy_libc(&run), None);
    }
}
