//! The suite's one seeded generator: SplitMix64 (Steele, Lea and Flood,
//! 2014), small, fast and good enough for random orders and simulated
//! samples; a seed gives the same sequence on every machine. The memory
//! floor (`peer::floor::chase`) keeps a shuffle of its own on purpose: it
//! judges the bench's chains and must share no code with them.

/// SplitMix64 from a seed.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), 53 bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A Fisher-Yates shuffle of `v`.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = (self.next_u64() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    }
}

/// 0..n in the random order `seed` gives.
pub fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    SplitMix64(seed).shuffle(&mut v);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_one_permutation() {
        let a = shuffled(1000, 42);
        assert_eq!(a, shuffled(1000, 42));
        assert_ne!(a, shuffled(1000, 43));
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1000).collect::<Vec<_>>());
        // SplitMix64's published first output for seed 0.
        assert_eq!(SplitMix64(0).next_u64(), 0xe220_a839_7b1d_cdaf);
        let u = SplitMix64(1).uniform();
        assert!((0.0..1.0).contains(&u));
    }
}
