//! A reader that stops early (`lmbench list | head`) closes the pipe under
//! our standard output. The command then ends quietly, as `grep` does: no
//! panic message, no backtrace, and the status a shell reports for a
//! process a closed pipe stopped (128 + SIGPIPE = 141), never 0, which a
//! script would read as "nothing regressed".
//!
//! `println!` panics on a closed pipe; the panic unwinds to `main` (so
//! every guard on the way runs: children are reaped, temp files removed)
//! where [`run`] turns it into that status. Errors that carry the closed
//! pipe up as `io::Error`s end the same way.

use std::any::Any;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

use crate::exit::{Outcome, CLOSED_PIPE as STATUS};

/// Runs `command` and maps its outcome to the process status: `on_error`
/// for an error, [`STATUS`] when standard output was closed under it.
pub fn run(
    command: impl FnOnce() -> anyhow::Result<Outcome>,
    on_error: impl FnOnce(anyhow::Error) -> ExitCode,
) -> ExitCode {
    let default_hook = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if !is_closed_pipe_panic(info.payload()) {
            default_hook(info);
        }
    }));
    match panic::catch_unwind(AssertUnwindSafe(command)) {
        Ok(Ok(outcome)) => outcome.into(),
        Ok(Err(e)) if is_closed_pipe_error(&e) => ExitCode::from(STATUS),
        Ok(Err(e)) => on_error(e),
        Err(payload) if is_closed_pipe_panic(payload.as_ref()) => ExitCode::from(STATUS),
        Err(payload) => panic::resume_unwind(payload),
    }
}

/// The panic `print!` raises when standard output is a closed pipe.
fn is_closed_pipe_panic(payload: &(dyn Any + Send)) -> bool {
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("");
    message.starts_with("failed printing to stdout") && message.contains("Broken pipe")
}

/// An error whose cause is a write to a closed pipe.
fn is_closed_pipe_error(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_pipe_ends_with_its_status_and_other_errors_with_theirs() {
        let closed = || -> anyhow::Result<Outcome> {
            Err(anyhow::Error::new(io::Error::from(io::ErrorKind::BrokenPipe)).context("writing"))
        };
        assert_eq!(run(closed, |_| ExitCode::from(2)), ExitCode::from(STATUS));
        let other = || -> anyhow::Result<Outcome> { Err(anyhow::anyhow!("no such run")) };
        assert_eq!(run(other, |_| ExitCode::from(2)), ExitCode::from(2));
        let panicked = || -> anyhow::Result<Outcome> {
            panic!("failed printing to stdout: Broken pipe (os error 32)")
        };
        assert_eq!(run(panicked, |_| ExitCode::from(2)), ExitCode::from(STATUS));
        assert_eq!(
            run(|| Ok(Outcome::Done), |_| ExitCode::from(2)),
            ExitCode::SUCCESS
        );
        assert_eq!(
            run(|| Ok(Outcome::CannotTell), |_| ExitCode::from(2)),
            ExitCode::from(125)
        );
    }

    #[test]
    fn any_other_panic_goes_on() {
        let result = panic::catch_unwind(|| {
            run(|| panic!("a bug"), |_| ExitCode::from(2));
        });
        assert!(result.is_err());
    }
}
