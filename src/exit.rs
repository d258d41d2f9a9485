//! Every exit status of `lmbench`, decided here and only here: a command
//! returns what it found ([`Outcome`]) or an error, and `main` turns
//! either into the status. No command calls `process::exit`, so the drop
//! guards on the way out (children reaped, temp files removed) always run.
//! docs/reference.md's exit-code table lists the same codes.

use std::process::ExitCode;

/// A regression found (`compare --fail-on-regression`, `check`).
pub const REGRESSION: u8 = 1;
/// Bad input (a flag, a file, the environment) or any other error:
/// refused before any work where the input allows.
pub const ERROR: u8 = 2;
/// `run` measured, and saved, the rest after some programs failed.
pub const PARTIAL: u8 = 3;
/// `check` cannot tell: `git bisect run` skips the commit.
pub const CANNOT_TELL: u8 = 125;
/// Ctrl-C: the shell's status for a command that SIGINT ended.
pub const INTERRUPTED: u8 = 130;
/// Standard output closed under the command (`lmbench list | head`):
/// 128 + SIGPIPE, never 0, which a script would read as "nothing
/// regressed".
pub const CLOSED_PIPE: u8 = 141;

/// What a command that finished found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Done,
    Regression,
    CannotTell,
}

impl Outcome {
    pub fn code(self) -> u8 {
        match self {
            Outcome::Done => 0,
            Outcome::Regression => REGRESSION,
            Outcome::CannotTell => CANNOT_TELL,
        }
    }
}

impl From<Outcome> for ExitCode {
    fn from(o: Outcome) -> ExitCode {
        ExitCode::from(o.code())
    }
}

/// The status of a command that failed with `e` (already printed).
pub fn of_error(e: &anyhow::Error) -> ExitCode {
    if e.is::<lmbench::session::failures::Partial>() {
        // It went on past the failed programs and measured the rest: not
        // an error that measured nothing.
        ExitCode::from(PARTIAL)
    } else if e.is::<crate::cmd::kernels::Interrupted>() {
        ExitCode::from(INTERRUPTED)
    } else {
        ExitCode::from(ERROR)
    }
}
