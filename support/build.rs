//! Records the toolchain that compiled this crate, a machine fact:
//! a newer rustc can change every figure, so saved runs carry its version.

use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let version = Command::new(&rustc)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".to_string());
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "unknown".to_string());
    let opt = std::env::var("OPT_LEVEL").unwrap_or_else(|_| "?".to_string());
    let debug_assertions = std::env::var_os("CARGO_CFG_DEBUG_ASSERTIONS").is_some();
    println!("cargo:rustc-env=LMBENCH_RUSTC_VERSION={version}");
    println!(
        "cargo:rustc-env=LMBENCH_BUILD_PROFILE={profile} (opt-level {opt}{})",
        if debug_assertions {
            ", debug assertions"
        } else {
            ""
        }
    );
    println!("cargo:rerun-if-env-changed=RUSTC");
    println!("cargo:rerun-if-changed=build.rs");
}
