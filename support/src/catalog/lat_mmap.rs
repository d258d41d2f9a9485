//! lat_mmap: mapping a file shared read/write, touching a tenth of it, and
//! unmapping it, for file sizes from 512 KB to 64 MB.
use super::{Lookup, Metric, Program, Unit::Micros};

const TIMED: &str =
    "mmap(MAP_SHARED, PROT_READ|PROT_WRITE) of the whole file, one byte stored every 16 KB over its first tenth, munmap";

pub static MAP_512K: Metric = Metric::median("lat_mmap/map/512k", Micros, TIMED);
pub static MAP_1M: Metric = Metric::median("lat_mmap/map/1m", Micros, TIMED);
pub static MAP_2M: Metric = Metric::median("lat_mmap/map/2m", Micros, TIMED);
pub static MAP_4M: Metric = Metric::median("lat_mmap/map/4m", Micros, TIMED);
pub static MAP_8M: Metric = Metric::median("lat_mmap/map/8m", Micros, TIMED);
pub static MAP_16M: Metric = Metric::median("lat_mmap/map/16m", Micros, TIMED);
pub static MAP_32M: Metric = Metric::median("lat_mmap/map/32m", Micros, TIMED);
pub static MAP_64M: Metric = Metric::median("lat_mmap/map/64m", Micros, TIMED);

/// Every size, smallest first, with its file size in bytes.
pub static SIZES: [(&Metric, usize); 8] = [
    (&MAP_512K, 512 << 10),
    (&MAP_1M, 1 << 20),
    (&MAP_2M, 2 << 20),
    (&MAP_4M, 4 << 20),
    (&MAP_8M, 8 << 20),
    (&MAP_16M, 16 << 20),
    (&MAP_32M, 32 << 20),
    (&MAP_64M, 64 << 20),
];

/// The summary's "Mmap Latency": the largest size the run measured (sizes
/// that do not fit in free memory are skipped by the bench).
pub fn largest(run: &dyn Lookup) -> Option<f64> {
    SIZES.iter().rev().find_map(|(m, _)| run.value(m))
}

/// Every metric, smallest size first: what "Mmap Latency" may read.
pub static ALL: [&Metric; 8] = [
    &MAP_512K, &MAP_1M, &MAP_2M, &MAP_4M, &MAP_8M, &MAP_16M, &MAP_32M, &MAP_64M,
];

pub static PROGRAM: Program = Program {
    name: "lat_mmap",
    about: "mmap + touch a tenth + munmap of a file, 512 KB to 64 MB",
    metrics: &ALL,
};

#[cfg(test)]
mod tests {
    use super::*;

    use crate::catalog::FakeRun as Run;

    #[test]
    fn mmap_latency_is_the_largest_size_measured() {
        let all = Run(&[("lat_mmap/map/512k", 1.0), ("lat_mmap/map/64m", 9.0)]);
        assert_eq!(largest(&all), Some(9.0));
        // 64m skipped (not enough free memory): the next largest one.
        let capped = Run(&[("lat_mmap/map/512k", 1.0), ("lat_mmap/map/32m", 5.0)]);
        assert_eq!(largest(&capped), Some(5.0));
        assert_eq!(largest(&Run(&[])), None);
        assert!(SIZES.windows(2).all(|w| w[0].1 * 2 == w[1].1));
        assert!(SIZES
            .iter()
            .zip(ALL.iter())
            .all(|(s, m)| std::ptr::eq(s.0, *m)));
    }
}
