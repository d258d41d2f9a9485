//! What a sitting is asked to do: its sides (each a kernel, its command
//! line and an optional rig), the guest machine, the work each boot runs
//! and the rounds and budget; and how a side is named in what it prints.

use std::time::Duration;

use super::exes::Built;
use super::guest::Machine;
use super::image::Side;
use super::Work;

/// What a sitting measures, and where it saves.
#[derive(Clone)]
pub struct Plan<'a> {
    pub sides: &'a [Side],
    pub append: &'a str,
    pub machine: Machine,
    pub programs: Work,
    pub built: &'a Built,
    pub preset: &'static str,
    /// Criterion flags for every bench in the guest (`--measurement-time
    /// 0.2`), space-separated; numbers only.
    pub bench_args: String,
    /// Rounds every side gets (each a boot per side).
    pub rounds: u32,
    /// Pairs of rounds after those, on the undecided metrics only.
    pub budget: Option<Duration>,
    pub threshold: f64,
}

/// Side `i`'s letter: a, b, c...
pub fn letter(i: usize) -> char {
    (b'a' + (i % 26) as u8) as char
}

/// "A (6.1.0-57-amd64 mitigations=off)".
pub fn side_name(side: &Side, i: usize) -> String {
    let args = if side.args.is_empty() {
        String::new()
    } else {
        format!(" {}", side.args)
    };
    let rig = side
        .rig
        .as_ref()
        .map(|r| format!(" under {r}"))
        .unwrap_or_default();
    format!(
        "{} ({}{args}{rig})",
        letter(i).to_ascii_uppercase(),
        side.spec
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn sides_have_letters_and_names() {
        let s = Side {
            spec: "6.1.0-57-amd64".into(),
            image: Path::new("/k").into(),
            args: "mitigations=off".into(),
            rig: None,
        };
        assert_eq!(letter(0), 'a');
        assert_eq!(letter(1), 'b');
        assert_eq!(side_name(&s, 1), "B (6.1.0-57-amd64 mitigations=off)");
        let rigged = Side {
            rig: Some("seccomp 50".into()),
            ..s
        };
        assert_eq!(
            side_name(&rigged, 1),
            "B (6.1.0-57-amd64 mitigations=off under seccomp 50)"
        );
    }
}
