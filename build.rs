//! Builds the programs `lat_proc` execs, which cannot be ordinary cargo
//! binaries of this package: they are `no_std` and need `-C panic=abort`,
//! which stable cargo sets only per profile (for every crate), never per
//! binary. So they are compiled here with the same rustc, into OUT_DIR,
//! and their paths reach the benches and tests as compile-time
//! environment variables:
//! - `LMBENCH_EXEC_HELLO`: exec_targets/hello.rs, libc only (every Unix);
//! - `LMBENCH_EXEC_EXIT`: exec_targets/exit.rs, static, no libc (Linux
//!   x86_64 and aarch64; empty elsewhere, where its metric is skipped).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=exec_targets");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let family = std::env::var("CARGO_CFG_TARGET_FAMILY").unwrap_or_default();

    let hello = if family.split(',').any(|f| f == "unix") {
        compile("hello.rs", "lmbench-exec-hello", &out, &[])
    } else {
        String::new()
    };
    println!("cargo:rustc-env=LMBENCH_EXEC_HELLO={hello}");

    let exit = if os == "linux" && (arch == "x86_64" || arch == "aarch64") {
        compile(
            "exit.rs",
            "lmbench-exec-exit",
            &out,
            &[
                "-C",
                "relocation-model=static",
                "-C",
                "target-feature=+crt-static",
                "-C",
                "link-arg=-nostartfiles",
            ],
        )
    } else {
        String::new()
    };
    println!("cargo:rustc-env=LMBENCH_EXEC_EXIT={exit}");
}

/// `rustc exec_targets/SRC -o OUT_DIR/NAME`, optimised, panic=abort,
/// stripped; fails the build with rustc's message if it does not compile.
fn compile(src: &str, name: &str, out: &Path, extra: &[&str]) -> String {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let target = std::env::var("TARGET").expect("TARGET");
    let exe = out.join(name);
    let res = Command::new(rustc)
        .arg(Path::new("exec_targets").join(src))
        .args(["--edition", "2021", "--crate-type", "bin", "--crate-name"])
        .arg(name.replace('-', "_"))
        .args(["--target", &target])
        .args([
            "-C",
            "panic=abort",
            "-C",
            "opt-level=2",
            "-C",
            "strip=symbols",
        ])
        .args(extra)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("running rustc for {src}: {e}"));
    if !res.status.success() {
        panic!(
            "compiling exec_targets/{src}:\n{}",
            String::from_utf8_lossy(&res.stderr)
        );
    }
    exe.to_str()
        .unwrap_or_else(|| panic!("OUT_DIR is not UTF-8: {}", exe.display()))
        .to_string()
}
