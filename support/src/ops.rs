//! Dependency chains of basic operations (lat_ops) that the compiler cannot
//! fold: after every operation the value passes through an empty inline-asm
//! statement that claims to rewrite it in its register (`keep`), so LLVM can
//! neither combine `x + k + k` into `x + 2k` nor hoist anything out of the
//! chain, while the CPU executes nothing extra. Each step's input is the
//! previous step's output, so the time per step is the operation's latency.
//!
//! The exception is bogomflops ([`Op::FloatBogo`], [`Op::DoubleBogo`]):
//! lmbench's, a throughput over an array of independent elements.
//!
//! lmbench's C chains are folded by modern compilers (its integer add reads
//! 0.00 ns); these are not, and the unit test below checks every chain
//! against the clock measured from the 1-cycle add chain.
//!
//! Operands are chosen so values stay in a steady, ordinary range (no
//! zeros, denormals or overflow traps): `x = N / x` sits at a fixed point
//! sqrt(N); `x = N % x + C` at a fixed point too; `x * 1.0` and `x + 1.0`
//! cost the same as any other multiply and add.

use std::hint::black_box;

/// A value that can be pinned in a register between chain steps.
pub trait Keep: Copy {
    fn keep(self) -> Self;
}

macro_rules! keep_impl {
    ($t:ty, $class:ident, $tmpl:literal) => {
        impl Keep for $t {
            #[inline(always)]
            fn keep(self) -> Self {
                let mut x = self;
                #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
                // SAFETY: an empty asm statement; it reads and "writes" x in
                // its register and touches nothing else.
                unsafe {
                    std::arch::asm!($tmpl, inout($class) x, options(nomem, nostack, preserves_flags));
                }
                #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
                {
                    // Elsewhere a memory round trip: slower, but never folded.
                    x = black_box(x);
                }
                x
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
keep_impl!(i32, reg, "/* {0:e} */");
#[cfg(target_arch = "x86_64")]
keep_impl!(u64, reg, "/* {0} */");
#[cfg(target_arch = "x86_64")]
keep_impl!(f32, xmm_reg, "/* {0} */");
#[cfg(target_arch = "x86_64")]
keep_impl!(f64, xmm_reg, "/* {0} */");
#[cfg(target_arch = "aarch64")]
keep_impl!(i32, reg, "/* {0:w} */");
#[cfg(target_arch = "aarch64")]
keep_impl!(u64, reg, "/* {0} */");
#[cfg(target_arch = "aarch64")]
keep_impl!(f32, vreg, "/* {0:s} */");
#[cfg(target_arch = "aarch64")]
keep_impl!(f64, vreg, "/* {0:d} */");
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
keep_impl!(i32, unused, "");
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
keep_impl!(u64, unused, "");
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
keep_impl!(f32, unused, "");
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
keep_impl!(f64, unused, "");

macro_rules! ten {
    ($($body:tt)*) => {
        $($body)* $($body)* $($body)* $($body)* $($body)*
        $($body)* $($body)* $($body)* $($body)* $($body)*
    };
}

/// Runs `n` dependent steps `x = step(x)`, 100 per unrolled block.
#[inline(always)]
fn chain<T: Keep>(n: u64, mut x: T, step: impl Fn(T) -> T) -> T {
    for _ in 0..n / 100 {
        ten!(ten!(x = step(x).keep();););
    }
    for _ in 0..n % 100 {
        x = step(x).keep();
    }
    x
}

/// Elements of the bogomflops array: 4 KB of f32, 8 KB of f64, so it stays
/// in L1 and the loop measures arithmetic, not memory.
pub const BOGO_ELEMS: usize = 1000;

macro_rules! bogomflops {
    ($name:ident, $t:ty) => {
        /// lmbench's bogomflops: `n` element updates
        /// `x[i] = (1 + x[i]) * (1.5 - x[i]) / x[i]` sweeping an array of
        /// [`BOGO_ELEMS`] elements set to 1.0 (the expression's fixed point,
        /// so values never drift), the elements independent of each other:
        /// the throughput of a mixed add/subtract/multiply/divide
        /// expression, not a latency. Loads and stores are volatile and
        /// scalar (lmbench's C compiled at -O), so no compiler can
        /// vectorise it or drop the array. Returns the array's sum
        /// (`BOGO_ELEMS` when every element stayed at 1.0).
        #[inline(never)]
        fn $name(n: u64) -> f64 {
            let mut a = [1.0 as $t; BOGO_ELEMS];
            let (one, half3) = (black_box(1.0 as $t), black_box(1.5 as $t));
            let p = a.as_mut_ptr();
            let mut left = n;
            while left > 0 {
                let m = left.min(BOGO_ELEMS as u64) as usize;
                for i in 0..m {
                    // SAFETY: i < m <= BOGO_ELEMS, inside the array.
                    unsafe {
                        let x = std::ptr::read_volatile(p.add(i));
                        std::ptr::write_volatile(p.add(i), (one + x) * (half3 - x) / x);
                    }
                }
                left -= m as u64;
            }
            a.iter().map(|&x| x as f64).sum()
        }
    };
}
bogomflops!(bogomflops_f32, f32);
bogomflops!(bogomflops_f64, f64);

/// One basic operation of lat_ops: a type and an operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    IntBit,
    IntAdd,
    IntMul,
    IntDiv,
    IntMod,
    Int64Bit,
    Int64Add,
    Int64Mul,
    Int64Div,
    Int64Mod,
    FloatAdd,
    FloatMul,
    FloatDiv,
    FloatBogo,
    DoubleAdd,
    DoubleMul,
    DoubleDiv,
    DoubleBogo,
}

impl Op {
    pub const ALL: [Op; 18] = [
        Op::IntBit,
        Op::IntAdd,
        Op::IntMul,
        Op::IntDiv,
        Op::IntMod,
        Op::Int64Bit,
        Op::Int64Add,
        Op::Int64Mul,
        Op::Int64Div,
        Op::Int64Mod,
        Op::FloatAdd,
        Op::FloatMul,
        Op::FloatDiv,
        Op::FloatBogo,
        Op::DoubleAdd,
        Op::DoubleMul,
        Op::DoubleDiv,
        Op::DoubleBogo,
    ];

    /// Runs the chain for `n` steps and returns its final value as f64, for
    /// the caller's check ([`Op::plausible`]).
    #[inline(never)]
    pub fn run(self, n: u64) -> f64 {
        // Operands come through black_box so they are unknown at compile time.
        match self {
            Op::IntBit => {
                let m = black_box(0x5555_i32);
                chain(n, black_box(0x1234_i32), |x| x ^ m) as f64
            }
            Op::IntAdd => {
                let m = black_box(3_i32);
                chain(n, black_box(1_i32), |x| x.wrapping_add(m)) as f64
            }
            Op::IntMul => {
                let m = black_box(3_i32);
                chain(n, black_box(7_i32), |x| x.wrapping_mul(m)) as f64
            }
            // Fixed point 40503 = sqrt(40503^2).
            Op::IntDiv => {
                let d = black_box(40_503_i32 * 40_503);
                chain(n, black_box(40_503_i32), |x| d / x) as f64
            }
            // Fixed point 50000: 1_000_010_000 % 50000 = 10000, + 40000.
            Op::IntMod => {
                let (d, c) = (black_box(1_000_010_000_i32), black_box(40_000_i32));
                chain(n, black_box(50_000_i32), |x| d % x + c) as f64
            }
            Op::Int64Bit => {
                let m = black_box(0x5555_5555_5555_u64);
                chain(n, black_box(0x1234_u64), |x| x ^ m) as f64
            }
            Op::Int64Add => {
                let m = black_box(3_u64);
                chain(n, black_box(1_u64), |x| x.wrapping_add(m)) as f64
            }
            Op::Int64Mul => {
                let m = black_box(3_u64);
                chain(n, black_box(7_u64), |x| x.wrapping_mul(m)) as f64
            }
            // Fixed point 3_000_000_019 (operands wider than 32 bits).
            Op::Int64Div => {
                let d = black_box(3_000_000_019_u64 * 3_000_000_019);
                chain(n, black_box(3_000_000_019_u64), |x| d / x) as f64
            }
            // Fixed point 5e9: (5e9 * 1e9 + 1e9) % 5e9 = 1e9, + 4e9.
            Op::Int64Mod => {
                let (d, c) = (
                    black_box(5_000_000_000_u64 * 1_000_000_000 + 1_000_000_000),
                    black_box(4_000_000_000_u64),
                );
                chain(n, black_box(5_000_000_000_u64), |x| d % x + c) as f64
            }
            Op::FloatAdd => {
                let m = black_box(1.0_f32);
                chain(n, black_box(1.0_f32), |x| x + m) as f64
            }
            Op::FloatMul => {
                let m = black_box(1.0_f32);
                chain(n, black_box(1.5_f32), |x| x * m) as f64
            }
            Op::FloatDiv => {
                let m = black_box(2.0_f32);
                chain(n, black_box(1.5_f32), |x| m / x) as f64
            }
            // lmbench's bogomflops: throughput over independent elements.
            Op::FloatBogo => bogomflops_f32(n),
            Op::DoubleAdd => {
                let m = black_box(1.0_f64);
                chain(n, black_box(1.0_f64), |x| x + m)
            }
            Op::DoubleMul => {
                let m = black_box(1.0_f64);
                chain(n, black_box(1.5_f64), |x| x * m)
            }
            Op::DoubleDiv => {
                let m = black_box(2.0_f64);
                chain(n, black_box(1.5_f64), |x| m / x)
            }
            Op::DoubleBogo => bogomflops_f64(n),
        }
    }

    /// True if `value` is a possible result of `run(n)`: the chain ran and
    /// stayed where its operands keep it (a finite, non-zero value).
    pub fn plausible(self, value: f64) -> bool {
        match self {
            Op::IntDiv => value == 40_503.0,
            Op::IntMod => value == 50_000.0,
            Op::Int64Div => value == 3_000_000_019.0,
            Op::Int64Mod => value == 5_000_000_000.0,
            Op::FloatBogo | Op::DoubleBogo => value == BOGO_ELEMS as f64,
            _ => value.is_finite() && value != 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// Fastest of a few timings, in ns per step (preemption only adds).
    fn ns_per_step(op: Op, n: u64) -> f64 {
        (0..7)
            .map(|_| {
                let t = Instant::now();
                let v = op.run(n);
                let ns = t.elapsed().as_nanos() as f64 / n as f64;
                assert!(op.plausible(v), "{op:?} ended at {v}");
                ns
            })
            .fold(f64::INFINITY, f64::min)
    }

    #[test]
    fn chains_compute_what_they_claim() {
        assert_eq!(Op::IntAdd.run(10), 31.0);
        assert_eq!(Op::IntBit.run(3), (0x1234 ^ 0x5555) as f64);
        assert_eq!(Op::Int64Mul.run(2), 63.0);
        assert_eq!(Op::IntDiv.run(1000), 40_503.0);
        assert_eq!(Op::IntMod.run(1000), 50_000.0);
        assert_eq!(Op::Int64Div.run(1000), 3_000_000_019.0);
        assert_eq!(Op::Int64Mod.run(1000), 5_000_000_000.0);
        assert_eq!(Op::DoubleBogo.run(2500), BOGO_ELEMS as f64);
        assert_eq!(Op::FloatBogo.run(7), BOGO_ELEMS as f64);
        assert!((Op::FloatDiv.run(2) - 1.5).abs() < 1e-5);
        assert_eq!(Op::DoubleAdd.run(100), 101.0);
        for op in Op::ALL {
            assert!(op.plausible(op.run(1000)), "{op:?}");
        }
    }

    /// The chains survive the compiler: the 1-cycle add chain gives a clock
    /// no real CPU exceeds, and no operation takes less than about a cycle
    /// of that clock (a folded chain would read near 0).
    #[test]
    fn every_op_takes_at_least_about_a_cycle() {
        let n = 1_000_000;
        let mut cycle = ns_per_step(Op::Int64Add, n);
        for op in Op::ALL {
            let ns = ns_per_step(op, n);
            // Re-measured beside each op: on a shared machine the clock
            // reference is the fastest add chain seen.
            cycle = cycle.min(ns_per_step(Op::Int64Add, n));
            let mhz = 1e3 / cycle;
            assert!(mhz < 8000.0, "add chain ran at {mhz:.0} MHz: folded?");
            assert!(
                ns >= 0.7 * cycle,
                "{op:?}: {ns:.3} ns per op, under a cycle ({cycle:.3} ns)"
            );
        }
    }
}
