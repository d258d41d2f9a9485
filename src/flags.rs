//! The types of the command line's values. Each parses itself (`FromStr`)
//! and refuses what its commands cannot use, so clap rejects a bad value
//! with one line naming the flag and exit 2, before any command builds,
//! measures, reads or writes; a command takes the typed value and never
//! parses it again. Every command that takes a flag shares its type.

use std::ffi::OsStr;
use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;
use std::time::Duration;

use clap::builder::{TypedValueParser, ValueParserFactory};
use clap::error::ErrorKind;

/// The clap parser of any `FromStr` value: a value that is not UTF-8, or
/// that `T` refuses, is one line naming the flag (clap's own UTF-8 error
/// names none).
pub struct Flag<T>(PhantomData<fn() -> T>);

impl<T> Clone for Flag<T> {
    fn clone(&self) -> Self {
        Flag(PhantomData)
    }
}

/// The parser of a free-form value of type `T` (a string, a path, a
/// count): what `FromStr` takes, named in its errors.
pub fn parsed<T>() -> Flag<T> {
    Flag(PhantomData)
}

impl<T> TypedValueParser for Flag<T>
where
    T: FromStr + Clone + Send + Sync + 'static,
    T::Err: fmt::Display,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let s = value.to_str().ok_or_else(|| {
            invalid(
                cmd,
                arg,
                &format!("{value:?}"),
                "not UTF-8; give it in UTF-8",
            )
        })?;
        s.parse()
            .map_err(|e| invalid(cmd, arg, &format!("'{s}'"), e))
    }
}

/// Clap's error for a refused value (`shown` as the message quotes it),
/// one line naming the flag.
fn invalid(
    cmd: &clap::Command,
    arg: Option<&clap::Arg>,
    shown: &str,
    why: impl fmt::Display,
) -> clap::Error {
    let name = arg.map_or_else(|| "the value".to_string(), |a| a.to_string());
    clap::Error::raw(
        ErrorKind::ValueValidation,
        format!("invalid value {shown} for '{name}': {why}\n"),
    )
    .with_cmd(cmd)
}

/// The clap parser of a value that `f` reads (a type of another module,
/// a number within a range), named in its errors as [`Flag`]'s are.
pub struct With<T>(fn(&str) -> Result<T, String>);

impl<T> Clone for With<T> {
    fn clone(&self) -> Self {
        With(self.0)
    }
}

/// The parser that reads a flag's value with `f`.
pub fn with<T>(f: fn(&str) -> Result<T, String>) -> With<T> {
    With(f)
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for With<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let s: String = parsed::<String>().parse_ref(cmd, arg, value)?;
        (self.0)(&s).map_err(|e| invalid(cmd, arg, &format!("'{s}'"), e))
    }
}

/// A whole number from `lo` to `hi` (what `with` takes for a count).
pub fn whole(s: &str, lo: u32, hi: u32) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(format!("give a whole number from {lo} to {hi}")),
    }
}

/// Implements clap's `ValueParserFactory` (the parser `#[arg]` picks for
/// a field of the type) as [`Flag`].
macro_rules! flag_type {
    ($($t:ty),*) => {$(
        impl ValueParserFactory for $t {
            type Parser = Flag<$t>;
            fn value_parser() -> Flag<$t> {
                parsed()
            }
        }
    )*};
}

flag_type!(
    Budget,
    Percent,
    BusyShare,
    Label,
    MachineName,
    BaselineName,
    RunSpec,
    MetricFilter,
    MetricId,
    Count,
    Secs
);

/// The longest `--budget`: a week. Longer would outlast any sitting, and
/// a bound keeps the duration arithmetic far from overflow.
pub const MAX_BUDGET: Duration = Duration::from_secs(7 * 24 * 3600);

/// A time to spend measuring (`--budget`): 90s, 15m, 1.5h, a bare number
/// in minutes; finite, > 0 and at most [`MAX_BUDGET`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget(Duration);

impl Budget {
    pub fn get(self) -> Duration {
        self.0
    }
}

impl From<Budget> for Duration {
    fn from(b: Budget) -> Duration {
        b.0
    }
}

impl FromStr for Budget {
    type Err = String;
    fn from_str(s: &str) -> Result<Budget, String> {
        let what = "give a duration such as 90s, 15m or 1h, at most 168h";
        let t = s.trim();
        let (num, unit) = match t.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
            Some((i, _)) => t.split_at(i),
            None => (t, "m"),
        };
        let scale = match unit {
            "s" | "sec" => 1.0,
            "m" | "min" => 60.0,
            "h" => 3600.0,
            _ => return Err(what.to_string()),
        };
        match num.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v > 0.0 && v * scale <= MAX_BUDGET.as_secs_f64() => {
                Duration::try_from_secs_f64(v * scale)
                    .map(Budget)
                    .map_err(|_| what.to_string())
            }
            _ => Err(what.to_string()),
        }
    }
}

/// A positive, finite number from a flag (`what` names it in the error).
fn positive(s: &str, what: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("give {what} > 0, such as 5")),
    }
}

/// A change that matters, in percent (`--threshold`,
/// `--fail-on-regression`): finite and > 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Percent(f64);

impl Percent {
    /// The threshold every command takes by default: 5%.
    pub const DEFAULT_THRESHOLD: Percent = Percent(5.0);

    /// The percent, as given.
    pub fn get(self) -> f64 {
        self.0
    }
}

impl FromStr for Percent {
    type Err = String;
    fn from_str(s: &str) -> Result<Percent, String> {
        positive(s, "a percentage").map(Percent)
    }
}

/// How much of a CPU other work may use before a figure is busy
/// (`--busy-threshold`, given in percent of a CPU): finite and > 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BusyShare(f64);

impl BusyShare {
    /// The default: `lmbench_support::activity::BUSY_CPUS`.
    pub const DEFAULT: BusyShare = BusyShare(lmbench_support::activity::BUSY_CPUS);

    /// The share in CPUs (0.05: 5% of one CPU).
    pub fn cpus(self) -> f64 {
        self.0
    }
}

impl fmt::Display for BusyShare {
    /// In percent, as the flag takes it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0 * 100.0)
    }
}

impl FromStr for BusyShare {
    type Err = String;
    fn from_str(s: &str) -> Result<BusyShare, String> {
        positive(s, "a percentage of a CPU").map(|pct| BusyShare(pct / 100.0))
    }
}

/// A name that becomes a directory under results/ (`store::check_name`).
macro_rules! name_type {
    ($t:ident, $what:literal) => {
        #[doc = concat!("A ", $what, " (a directory name under results/: `store::check_name`).")]
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $t(String);

        impl $t {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl From<$t> for String {
            fn from(n: $t) -> String {
                n.0
            }
        }

        impl FromStr for $t {
            type Err = String;
            fn from_str(s: &str) -> Result<$t, String> {
                crate::store::check_name($what, s)
                    .map(|()| $t(s.to_string()))
                    .map_err(|e| e.to_string())
            }
        }
    };
}

name_type!(Label, "label");
name_type!(MachineName, "machine name");
name_type!(BaselineName, "baseline name");

/// A saved run as a command names it (`latest`, machine/label, a label, a
/// run directory): not empty; `store::resolve` finds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunSpec(String);

impl RunSpec {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for RunSpec {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl FromStr for RunSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<RunSpec, String> {
        if s.trim().is_empty() {
            return Err("name a run: latest, MACHINE/LABEL, a label or a run directory".into());
        }
        Ok(RunSpec(s.to_string()))
    }
}

/// A metric filter: a regular expression over metric ids, compiled once.
#[derive(Clone, Debug)]
pub struct MetricFilter {
    text: String,
    re: regex::Regex,
}

impl MetricFilter {
    /// The expression as given (what a bench's own filter gets).
    pub fn as_str(&self) -> &str {
        &self.text
    }
    pub fn regex(&self) -> &regex::Regex {
        &self.re
    }
    pub fn is_match(&self, id: &str) -> bool {
        self.re.is_match(id)
    }
}

impl FromStr for MetricFilter {
    type Err = String;
    fn from_str(s: &str) -> Result<MetricFilter, String> {
        crate::filter::metric_regex(s, "filter")
            .map(|re| MetricFilter {
                text: s.to_string(),
                re,
            })
            .map_err(|e| e.to_string())
    }
}

/// A metric of the catalog, by its id (`lmbench list` shows them).
#[derive(Clone, Copy, Debug)]
pub struct MetricId(pub &'static lmbench_support::catalog::Metric);

impl FromStr for MetricId {
    type Err = String;
    fn from_str(s: &str) -> Result<MetricId, String> {
        lmbench_support::catalog::Metric::by_id(s)
            .map(MetricId)
            .ok_or_else(|| "no such metric (`lmbench list` shows them)".to_string())
    }
}

/// A whole number within a range, parsed by [`whole`].
macro_rules! whole_type {
    ($(#[$doc:meta])* $t:ident, $lo:literal..=$hi:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $t(u32);

        impl FromStr for $t {
            type Err = String;
            fn from_str(s: &str) -> Result<$t, String> {
                whole(s, $lo, $hi).map($t)
            }
        }
    };
}

whole_type!(
    /// A whole number of at least 1 and at most 1000 (`--runs`): more
    /// rounds than that would not end.
    Count,
    1..=1000
);

whole_type!(
    /// A number of seconds from 1 to a day (`--wait-idle`, `serve
    /// --idle`, `profile --seconds`).
    Secs,
    1..=86_400
);

impl Count {
    pub const ONE: Count = Count(1);

    pub fn get(self) -> u32 {
        self.0
    }
}

impl Secs {
    pub fn get(self) -> Duration {
        Duration::from_secs(u64::from(self.0))
    }
    pub fn secs(self) -> u32 {
        self.0
    }
}

/// Displays a flag's value as given (its inner value).
macro_rules! display_as_given {
    ($($t:ty),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }
    )*};
}

display_as_given!(Percent, RunSpec, Count, Secs);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets() {
        assert_eq!(
            "90s".parse::<Budget>().map(Budget::get),
            Ok(Duration::from_secs(90))
        );
        assert_eq!(
            "1.5h".parse::<Budget>().map(Budget::get),
            Ok(Duration::from_secs(5400))
        );
        assert_eq!(
            "2".parse::<Budget>().map(Budget::get),
            Ok(Duration::from_secs(120))
        );
        assert_eq!("168h".parse::<Budget>().map(Budget::get), Ok(MAX_BUDGET));
        for bad in [
            "",
            "0s",
            "-1m",
            "NaN",
            "inf",
            "1e400s",
            "169h",
            "99999999999999999999h",
            "5x",
            "m",
            "nanm",
        ] {
            assert!(bad.parse::<Budget>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn percentages() {
        assert_eq!("5".parse::<Percent>().map(Percent::get), Ok(5.0));
        assert_eq!("10".parse::<BusyShare>().map(BusyShare::cpus), Ok(0.1));
        assert_eq!(BusyShare::DEFAULT.to_string(), "5");
        for bad in ["", "0", "-1", "NaN", "inf", "-inf", "1e400", "x"] {
            assert!(bad.parse::<Percent>().is_err(), "{bad:?}");
            assert!(bad.parse::<BusyShare>().is_err(), "{bad:?}");
        }
    }
}
