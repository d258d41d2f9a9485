//! Every environment variable the suite reads, with what it does: the
//! user's ones are printed by `lmbench --help`, and a test holds this list
//! to the names the sources use (a variable read but not listed, or listed
//! but read nowhere, fails it).

/// Who sets a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setter {
    /// The person running the suite.
    User,
    /// The suite itself (a parent for its child, the build for the code)
    /// or its tests.
    Internal,
}

/// One environment variable.
#[derive(Debug)]
pub struct Variable {
    pub name: &'static str,
    pub setter: Setter,
    /// What it does, one line.
    pub meaning: &'static str,
}

const fn user(name: &'static str, meaning: &'static str) -> Variable {
    Variable {
        name,
        setter: Setter::User,
        meaning,
    }
}

const fn internal(name: &'static str, meaning: &'static str) -> Variable {
    Variable {
        name,
        setter: Setter::Internal,
        meaning,
    }
}

/// Every variable, the user's first.
pub static VARIABLES: &[Variable] = &[
    user(
        "LMBENCH_RESULTS",
        "directory of the saved runs (default: results/ in the workspace)",
    ),
    user(
        "LMBENCH_WORKSPACE",
        "the lmbench-rs checkout `run` builds and runs (default: the one around the current directory, else the one the binary was built from)",
    ),
    user(
        "CRITERION_HOME",
        "Criterion's output directory, read by the CLI too (default: target/criterion)",
    ),
    user(
        "LMBENCH_PRESET",
        "`quick` or `default`: the sampling of a plain `cargo bench` (`run --quick` sets it)",
    ),
    user(
        "LMBENCH_FSDIR",
        "directory the file-system benches create their files in (default: the system temp directory)",
    ),
    user(
        "LMBENCH_REMOTE",
        "HOST:PORT of `lmbench serve` on another machine: the remote benches measure against it",
    ),
    user(
        "LMBENCH_TOKEN",
        "the token `lmbench serve --token` asks of its clients",
    ),
    user(
        "LMBENCH_PLOTS",
        "1: Criterion writes its HTML reports and plots (off: they take longer than many benches)",
    ),
    user(
        "LMBENCH_PROFILER",
        "`perf` or `pprof`: the profiler of `lmbench profile` and `--profile-time`",
    ),
    user(
        "LMBENCH_PERF_CALL_GRAPH",
        "perf's unwinding: `fp` or `dwarf,SIZE` (default dwarf,32768)",
    ),
    user(
        "LMBENCH_KEEP_PERF_DATA",
        "1: keep perf.data beside the flamegraph, for `perf report -i`",
    ),
    user(
        "LMBENCH_CHECK_LEAKS",
        "1: every bench process checks at exit that it leaked no descriptor or child (always in test mode)",
    ),
    user(
        "LMBENCH_PAGEFAULT_SIZE",
        "lat_pagefault's file size (e.g. 64m, at least 1m; default: the memory bandwidth top size)",
    ),
    internal(
        "LMBENCH_FAIL_METRIC",
        "a metric id: its bench fails on purpose as it starts (the tests of a run going on past a failed program)",
    ),
    internal(
        "LMBENCH_SLOW_TESTS",
        "1: the slow tests run (killed benches, full disks); `.ci/run` sets it",
    ),
    internal(
        "LMBENCH_CHECK_THREADS",
        "1: a bench and its peers fail a metric timed with more than one thread (the thread test sets it)",
    ),
    internal(
        "LMBENCH_EXEC_HELLO",
        "build time: path of the small libc program lat_proc execs",
    ),
    internal(
        "LMBENCH_EXEC_EXIT",
        "build time: path of the static program without libc lat_proc execs (Linux)",
    ),
    internal(
        "LMBENCH_RUSTC_VERSION",
        "build time: the compiler that built the benches, a machine fact",
    ),
    internal(
        "LMBENCH_BUILD_PROFILE",
        "build time: the cargo profile and opt-level of the benches, a machine fact",
    ),
    internal(
        "LMBENCH_PERF_CTL",
        "perf's control FIFO, given by `lmbench profile` to the bench it profiles",
    ),
    internal(
        "LMBENCH_PERF_ACK",
        "perf's acknowledgement FIFO, beside LMBENCH_PERF_CTL",
    ),
    internal(
        "LMBENCH_PERF_PIDS",
        "file a profiled bench writes the pids of its process tree to, for perf",
    ),
    internal(
        "LMBENCH_PROFILER_NOTICE_SHOWN",
        "set by `lmbench profile` so its bench does not repeat the profiler notice",
    ),
    internal(
        "LMBENCH_PROTFAULT_CRASH_CHILD",
        "marks the child process a protection-fault test lets crash",
    ),
    internal(
        "LMBENCH_RIG_UDP_LOOP",
        "marks the child of `lmbench-rig size` that runs the bare UDP loop",
    ),
    internal(
        "LMBENCH_CRASH_AT",
        "test hook: N[:KILL|:INT] kills the process at the Nth crash point of a save (src/publish.rs)",
    ),
    internal(
        "LMBENCH_TEST_ROLE",
        "marks the child process of the leak test",
    ),
];

/// The user's variables for `--help`: a heading and a line each.
pub fn help() -> String {
    let users: Vec<&Variable> = VARIABLES
        .iter()
        .filter(|v| v.setter == Setter::User)
        .collect();
    let width = users.iter().map(|v| v.name.len()).max().unwrap_or(0);
    let mut text = String::from("Environment:\n");
    for v in users {
        text += &format!("  {:<width$}  {}\n", v.name, v.meaning);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_listed_once_and_help_lists_the_users() {
        let mut names: Vec<&str> = VARIABLES.iter().map(|v| v.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len(), "a variable listed twice");
        let help = help();
        for v in VARIABLES {
            assert_eq!(
                help.contains(v.name),
                v.setter == Setter::User,
                "{}",
                v.name
            );
        }
    }
}
