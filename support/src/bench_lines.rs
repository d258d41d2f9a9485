//! The lines a bench process prints that `lmbench run` reads from its
//! output: spelled once, here, for both sides (the CLI does not build the
//! harness).

/// The prefix of the stderr line the harness writes as a metric fails,
/// then `<metric id>: <one-line reason>`; the panic that follows it has a
/// backtrace note, not a reason.
pub const FAILED_LINE: &str = "lmbench: failed ";
