//! lat_sig: signal installation and delivery.
use super::{Metric, Program, Unit::Micros};

pub static INSTALL: Metric = Metric::median(
    "lat_sig/install",
    Micros,
    "one sigaction(2) installing a handler for SIGUSR1",
);
pub static CATCH: Metric = Metric::median(
    "lat_sig/catch",
    Micros,
    "kill(2) of SIGUSR1 to the own process, delivery, empty handler, return",
);
pub static CATCH_SIGINFO: Metric = Metric::median(
    "lat_sig/catch_siginfo",
    Micros,
    "as catch, with the handler kind the protection fault uses: SA_SIGINFO|SA_ONSTACK, three-argument handler (subtracted from prot for 'Prot Fault')",
);
pub static KILL: Metric = Metric::median(
    "lat_sig/kill",
    Micros,
    "kill(self, 0): the syscall alone, no signal sent (subtracted from catch for 'sig hndl')",
);

pub static PROGRAM: Program = Program {
    name: "lat_sig",
    about: "signal handler installation and delivery",
    metrics: &[&INSTALL, &CATCH, &CATCH_SIGINFO, &KILL, &PROT],
};

pub static PROT: Metric = Metric::median(
    "lat_sig/prot",
    Micros,
    "one protection fault: a store to a read-only page, SIGSEGV delivered, the handler counts and returns, the store retried",
);

/// What "Prot Fault" reads.
pub static PROT_FAULT_INPUTS: [&Metric; 3] = [&PROT, &CATCH_SIGINFO, &KILL];

/// The summary's "Prot Fault": a protection fault minus the signal
/// handling it also pays, measured with the same kind of handler
/// (SA_SIGINFO|SA_ONSTACK): prot - (catch_siginfo - kill). See
/// benches/lat_sig.rs for why not minus catch.
pub fn prot_fault(run: &dyn super::Lookup) -> Option<f64> {
    Some(run.value(&PROT)? - (run.value(&CATCH_SIGINFO)? - run.value(&KILL)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Run;
    impl super::super::Lookup for Run {
        fn value(&self, m: &Metric) -> Option<f64> {
            match m.id {
                "lat_sig/prot" => Some(8.0),
                // The plain handler's figure is not the one subtracted.
                "lat_sig/catch" => Some(99.0),
                "lat_sig/catch_siginfo" => Some(6.0),
                "lat_sig/kill" => Some(1.0),
                _ => None,
            }
        }
        fn fact(&self, _: &str) -> Option<String> {
            None
        }
    }

    #[test]
    fn prot_fault_subtracts_sig_hndl() {
        // 8 - (6 - 1): the fault minus delivery, handler and return.
        assert_eq!(prot_fault(&Run), Some(3.0));
    }
}
