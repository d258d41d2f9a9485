//! Byte sizes, parsed and printed in one place, as lmbench spells them on
//! its command lines: binary units (`64m` is 64 x 2^20 bytes).
//!
//! - [`parse`]: a decimal count with an optional suffix `b`, `k`, `m` or
//!   `g` (either case); no suffix means bytes. What metric ids, bench
//!   parameters and the CLI accept.
//! - [`name`]: the token metric ids spell (`512b`, `24k`, `1536k`, `64m`,
//!   `1g`): the largest unit that divides exactly; [`parse`] reads it back.
//! - [`human`]: a short size for tables and plots (`48K`, `1.5M`, `1G`).

use std::fmt;

/// A token [`parse`] refused, with the reason in its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SizeError {
    token: String,
    overflow: bool,
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.overflow {
            write!(
                f,
                "size {:?} is too large (at most 2^64 - 1 bytes)",
                self.token
            )
        } else {
            write!(
                f,
                "bad size {:?}: want a number of bytes with an optional binary suffix b, k, m or g (e.g. 512, 64k, 8m, 1g)",
                self.token
            )
        }
    }
}

impl std::error::Error for SizeError {}

/// Parses a size token (see the module doc) into bytes.
pub fn parse(token: &str) -> Result<u64, SizeError> {
    let bad = |overflow| SizeError {
        token: token.to_string(),
        overflow,
    };
    let (digits, shift) = match token.as_bytes().last().map(u8::to_ascii_lowercase) {
        Some(b'b') => (&token[..token.len() - 1], 0),
        Some(b'k') => (&token[..token.len() - 1], 10),
        Some(b'm') => (&token[..token.len() - 1], 20),
        Some(b'g') => (&token[..token.len() - 1], 30),
        _ => (token, 0),
    };
    // Digits only: no sign, no space, no fraction (str::parse takes a '+').
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad(false));
    }
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .ok_or_else(|| bad(true))
}

/// The id token of a size: the largest binary unit that divides it exactly.
pub fn name(bytes: u64) -> String {
    for (shift, suffix) in [(30, "g"), (20, "m"), (10, "k")] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{}{suffix}", bytes >> shift);
        }
    }
    format!("{bytes}b")
}

/// A short human size for tables and plots: `48K`, `1.5M`, `300M`, `1G`.
pub fn human(bytes: u64) -> String {
    let b = bytes as f64;
    for (div, suffix) in [(1u64 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")] {
        if bytes >= div {
            let v = b / div as f64;
            return if (v - v.round()).abs() < 0.05 {
                format!("{:.0}{suffix}", v)
            } else {
                format!("{v:.1}{suffix}")
            };
        }
    }
    format!("{bytes}B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for (b, s) in [
            (512, "512b"),
            (768, "768b"),
            (1024, "1k"),
            (1536, "1536b"),
            (24 << 10, "24k"),
            (1536 << 10, "1536k"),
            (64 << 20, "64m"),
            (1 << 30, "1g"),
        ] {
            assert_eq!(name(b), s);
            assert_eq!(parse(s), Ok(b));
        }
    }

    #[test]
    fn parses_as_lmbench() {
        assert_eq!(parse("12"), Ok(12));
        assert_eq!(parse("4k"), Ok(4096));
        assert_eq!(parse("4K"), Ok(4096));
        assert_eq!(parse("512m"), Ok(512 << 20));
        assert_eq!(parse("2g"), Ok(2 << 30));
        for bad in ["", "m", "xk", "-1k", "+1k", "1.5m", " 1k", "1kb", "1t"] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(
                e.starts_with("bad size") && e.contains("k, m or g"),
                "{bad:?}: {e}"
            );
        }
        let e = parse("99999999999g").unwrap_err().to_string();
        assert!(e.contains("too large"), "{e}");
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human(48 << 10), "48K");
        assert_eq!(human(1536 << 10), "1.5M");
        assert_eq!(human(1 << 30), "1G");
        assert_eq!(human(100), "100B");
    }
}
