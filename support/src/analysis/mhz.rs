//! The clock the summary's Mhz columns show: measured by the mhz program,
//! else the OS's nominal figure.
use crate::catalog::mhz::{ADD, XOR};
use crate::catalog::Lookup;

/// The clock in MHz: measured by the mhz program (its add and xor chains,
/// see [`measured_mhz`]) when the run has both and they agree, else the
/// OS's nominal figure (machine fact `cpu_mhz`).
pub fn mhz(run: &dyn Lookup) -> Option<f64> {
    measured_mhz(run).or_else(|| nominal_mhz(run))
}

/// The OS's nominal clock (machine fact `cpu_mhz`).
pub fn nominal_mhz(run: &dyn Lookup) -> Option<f64> {
    run.fact("cpu_mhz")?.trim().parse::<f64>().ok()
}

/// The clock measured by the mhz program from two dependency chains of
/// 1-cycle instructions (64-bit add and xor): 1000 / ns per step, only
/// when the two agree within 15 % (the check that both ran as one
/// instruction per step).
pub fn measured_mhz(run: &dyn Lookup) -> Option<f64> {
    let add = 1e3 / run.value(&ADD)?;
    let xor = 1e3 / run.value(&XOR)?;
    let (lo, hi) = (add.min(xor), add.max(xor));
    (lo > 0.0 && hi.is_finite() && hi <= 1.15 * lo).then_some(hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Metric;

    struct Run {
        add: Option<f64>,
        xor: Option<f64>,
        os: Option<&'static str>,
    }

    impl Lookup for Run {
        fn value(&self, m: &Metric) -> Option<f64> {
            match m.id {
                id if id == ADD.id => self.add,
                id if id == XOR.id => self.xor,
                _ => None,
            }
        }
        fn fact(&self, key: &str) -> Option<String> {
            (key == "cpu_mhz").then_some(self.os?.to_string())
        }
    }

    #[test]
    fn two_agreeing_chains_give_the_faster_clock() {
        // 0.25 ns and 0.26 ns a step: 4000 and 3846 MHz, within 15%.
        let run = Run {
            add: Some(0.25),
            xor: Some(0.26),
            os: Some("2600.0"),
        };
        assert_eq!(measured_mhz(&run), Some(4000.0));
        assert_eq!(mhz(&run), Some(4000.0));
    }

    #[test]
    fn chains_that_disagree_or_are_missing_fall_back_to_the_os() {
        // One chain took two cycles a step: not a clock.
        let split = Run {
            add: Some(0.25),
            xor: Some(0.5),
            os: Some(" 2600.000 "),
        };
        assert_eq!(measured_mhz(&split), None);
        assert_eq!(mhz(&split), Some(2600.0));
        let one = Run {
            add: Some(0.25),
            xor: None,
            os: None,
        };
        assert_eq!(mhz(&one), None);
        let zero = Run {
            add: Some(0.0),
            xor: Some(0.0),
            os: Some("x"),
        };
        assert_eq!(mhz(&zero), None);
    }
}
