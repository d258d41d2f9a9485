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
pub static KILL: Metric = Metric::median(
    "lat_sig/kill",
    Micros,
    "kill(self, 0): the syscall alone, no signal sent (subtracted from catch for 'sig hndl')",
);

pub static PROGRAM: Program = Program {
    name: "lat_sig",
    about: "signal handler installation and delivery",
    metrics: &[&INSTALL, &CATCH, &KILL, &PROT],
};

pub static PROT: Metric = Metric::median(
    "lat_sig/prot",
    Micros,
    "one protection fault: a store to a read-only page, SIGSEGV delivered, the handler counts and returns, the store retried",
);

/// The summary's "Prot Fault": a protection fault minus the signal
/// handling it also pays, i.e. minus the "sig hndl" figure (catch - kill):
/// prot - (catch - kill). See benches/lat_sig.rs for why not minus catch.
pub fn prot_fault(run: &dyn super::Lookup) -> Option<f64> {
    Some(run.value(&PROT)? - (run.value(&CATCH)? - run.value(&KILL)?))
}
