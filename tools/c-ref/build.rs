//! Compiles lm_shapes.c with the system C compiler ($CC, else cc) at
//! lmbench's usual -O2, loop tops 64-byte aligned as the suite's asm
//! aligns its own (so the two loops differ in nothing but where they
//! sit), into a static library linked into the check.
use std::path::PathBuf;
use std::process::Command;

fn run(cmd: &mut Command) {
    let status = cmd.status().unwrap_or_else(|e| {
        panic!("c-ref: cannot run {cmd:?}: {e} (install a C compiler, e.g. apt-get install gcc)")
    });
    assert!(status.success(), "c-ref: {cmd:?} failed: {status}");
}

fn main() {
    println!("cargo:rerun-if-changed=lm_shapes.c");
    println!("cargo:rerun-if-env-changed=CC");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let obj = out.join("lm_shapes.o");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    run(Command::new(cc)
        .args(["-O2", "-falign-loops=64", "-c", "lm_shapes.c", "-o"])
        .arg(&obj));
    run(Command::new("ar")
        .arg("crs")
        .arg(out.join("liblm_shapes.a"))
        .arg(&obj));
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=lm_shapes");
}
