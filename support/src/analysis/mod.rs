//! What the summary tables compute from a run beyond reading one metric:
//! curves and the sizes a column reads at, cache levels and the cache-line
//! detectors, and the notes printed under the tables. The tables
//! (`catalog::tables`) name their columns and sources and call these.
//!
//! - [`mem_curve`]: the memory-latency sweeps as curves, where they rise,
//!   and the memory columns' figures at the run's top size.
//! - [`cache_levels`]: cache sizes by level, the point each level column
//!   reads, and the notes under the memory-latency tables.
//! - [`bandwidth`]: the sizes the bandwidth columns read at, their figures
//!   there, and the notes under the bandwidth table.
//! - [`cache_line`]: the cache line from the OS and the two detectors, and
//!   the notes under the cache-line table.
//! - [`mhz`]: the Mhz columns' clock, measured or the OS's.

pub mod bandwidth;
pub mod cache_levels;
pub mod cache_line;
pub mod mem_curve;
pub mod mhz;

/// A machine with 48K L1, 2M L2 (whose curve rises at 512K-1M) and a
/// 300M L3 (whose curve rises at 16M-32M), in a run whose sweep stopped
/// at `top`; `l3: false` leaves the L3 out of the OS's facts.
#[cfg(test)]
pub(crate) struct FakeCaches {
    l3: bool,
    top: u64,
}

#[cfg(test)]
impl FakeCaches {
    /// A run from before top sizes were per machine: the sweep stops at
    /// 1 GiB.
    pub fn old() -> Self {
        Self::topped_at(1 << 30)
    }

    /// A run whose sweep stopped at `top` bytes.
    pub fn topped_at(top: u64) -> Self {
        Self { l3: true, top }
    }

    /// An old run on a machine whose OS does not give the L3.
    pub fn without_l3() -> Self {
        Self {
            l3: false,
            ..Self::old()
        }
    }
}

#[cfg(test)]
impl crate::catalog::Lookup for FakeCaches {
    fn value(&self, m: &crate::catalog::Metric) -> Option<f64> {
        let size = crate::catalog::lat_mem_rd::size_of(m).filter(|&s| s <= self.top)?;
        Some(match size {
            s if s <= 48 << 10 => 1.0,
            s if s <= 512 << 10 => 4.0,
            s if s <= 24 << 20 => 20.0,
            s if s <= 1 << 30 => 90.0,
            _ => 95.0,
        })
    }
    fn fact(&self, key: &str) -> Option<String> {
        match key {
            "cache_l1d" => Some((48 << 10).to_string()),
            "cache_l2" => Some((2 << 20).to_string()),
            "cache_l3" if self.l3 => Some((300 << 20).to_string()),
            _ => None,
        }
    }
}
