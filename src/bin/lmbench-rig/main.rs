//! `lmbench-rig`: kernel-side changes of known size, switched on for one
//! command and off again, to prove that `compare` finds what changed and
//! nothing else. Each change is real work the kernel does on the measured
//! path, not a sleep in our code:
//!
//! - `seccomp N -- CMD...`: CMD (and every process it starts: filters are
//!   inherited) runs under an allow-all seccomp filter of N BPF
//!   instructions that reads each call's first argument, so the kernel
//!   cannot prove the filter constant and skip it (its action cache):
//!   every system call pays the filter. Memory loads pay nothing.
//! - `nft N -- CMD...`: CMD runs in a new network namespace whose loopback
//!   input chain holds N nftables rules that match nothing there (source
//!   addresses in 198.18.0.0/15, the benchmarking range): every loopback
//!   packet walks them (UDP, TCP, RPC, connect), pipes and AF_UNIX do
//!   not. `nft 0` is the control: the same namespace, no rules. The
//!   host's own interfaces are never touched; the namespace is deleted
//!   when CMD ends, however it ends.
//! - `thp MODE -- CMD...`: CMD runs with transparent huge pages `enabled`
//!   set to MODE (always, madvise, never); the old mode is restored.
//! - `size seccomp N`, `size nft N`, `size thp MODE`: the change's cost
//!   alone, from a bare loop alternated with and without it (A B A B A
//!   B): nanoseconds per getppid, per loopback UDP packet, per load of a
//!   random one-per-page chase over 1 GiB of anonymous memory.
//!
//! Needs root (or CAP_SYS_ADMIN and CAP_NET_ADMIN) and, for `nft`, the
//! `ip` and `nft` commands. Linux only.
// No unwrap on what input can reach: an error, or an `expect` that
// states the invariant (tests may unwrap: clippy.toml).
#![warn(clippy::unwrap_used)]

#[cfg(target_os = "linux")]
mod linux;

#[cfg(target_os = "linux")]
fn main() -> std::process::ExitCode {
    linux::main()
}

#[cfg(not(target_os = "linux"))]
fn main() -> std::process::ExitCode {
    eprintln!("lmbench-rig: seccomp, network namespaces and THP are Linux's");
    std::process::ExitCode::from(2)
}
