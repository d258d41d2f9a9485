//! What the guest runs: the bench executables cargo built on the host
//! (never cargo in the guest: it would compile under emulation), the
//! programs they start by their compiled-in paths, and the shared
//! libraries all of them load.

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};
use lmbench_support::catalog::Program;

/// The executables of one build.
#[derive(Debug, Default)]
pub struct Built {
    /// Each bench target's executable, by program name.
    pub benches: BTreeMap<String, PathBuf>,
    /// The other files the benches start by absolute path: the package's
    /// binaries (`lmbench-peer`, `lmbench-rig`) and the exec targets the build script
    /// compiled.
    pub helpers: Vec<PathBuf>,
}

/// `cargo bench --no-run --message-format json` of `programs`: the
/// executables, read from cargo's own report of what it built.
pub fn build(programs: &[&Program]) -> Result<Built> {
    eprintln!("building benches (cargo bench --no-run)...");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut cmd = Command::new(cargo);
    lmbench_support::child::die_with_parent(&mut cmd)
        .current_dir(crate::workspace::root())
        .args(["bench", "--no-run", "--quiet", "--message-format", "json"])
        .stdout(Stdio::piped());
    for p in programs {
        cmd.args(["--bench", p.name]);
    }
    let mut child = cmd.spawn().context("running cargo (is it on PATH?)")?;
    let stdout = child.stdout.take().context("cargo's stdout")?;
    let mut built = Built::default();
    for line in std::io::BufReader::new(stdout).lines() {
        parse_message(&line?, &mut built);
    }
    if !child.wait()?.success() {
        bail!("building the benches failed (see cargo's output above)");
    }
    for p in programs {
        if !built.benches.contains_key(p.name) {
            bail!("cargo built no executable for bench {}", p.name);
        }
    }
    Ok(built)
}

/// Takes what one line of cargo's JSON report names: a bench or binary
/// executable of this package, or a file path the build script exported.
fn parse_message(line: &str, built: &mut Built) {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
        return;
    };
    let ours = v["package_id"]
        .as_str()
        .is_some_and(|id| id.contains("lmbench") && !id.contains("lmbench-support"));
    if !ours {
        return;
    }
    match v["reason"].as_str() {
        Some("compiler-artifact") => {
            let Some(exe) = v["executable"].as_str() else {
                return;
            };
            let kinds = v["target"]["kind"].as_array().cloned().unwrap_or_default();
            let name = v["target"]["name"].as_str().unwrap_or_default().to_string();
            if kinds.iter().any(|k| k == "bench") {
                built.benches.insert(name, PathBuf::from(exe));
            } else if kinds.iter().any(|k| k == "bin")
                && (name == "lmbench-peer" || name == "lmbench-rig")
            {
                built.helpers.push(PathBuf::from(exe));
            }
        }
        Some("build-script-executed") => {
            for pair in v["env"].as_array().into_iter().flatten() {
                if let Some(path) = pair[1].as_str().map(PathBuf::from) {
                    if path.is_absolute() && path.is_file() {
                        built.helpers.push(path);
                    }
                }
            }
        }
        _ => {}
    }
}

/// The shared libraries and dynamic loaders `elfs` need, as `ldd`
/// resolves them on the host (the guest gets the same files at the same
/// paths). A static executable needs none.
pub fn libraries(elfs: &[PathBuf]) -> Result<BTreeSet<PathBuf>> {
    let mut out = BTreeSet::new();
    for elf in elfs {
        let o = Command::new("ldd")
            .arg(elf)
            .output()
            .context("running ldd (package libc-bin)")?;
        for l in String::from_utf8_lossy(&o.stdout).lines() {
            let l = l.trim();
            let path = match l.split_once("=>") {
                Some((_, rest)) => rest.trim(),
                None => l,
            };
            let path = path.split(" (").next().unwrap_or("").trim();
            if path.starts_with('/') {
                out.insert(PathBuf::from(path));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_benches_binaries_and_build_script_paths() {
        let dir = tempfile::tempdir().unwrap();
        let hello = dir.path().join("lmbench-exec-hello");
        std::fs::write(&hello, b"").unwrap();
        let lines = [
            r#"{"reason":"compiler-artifact","package_id":"path+file:///w#lmbench@0.1.0","target":{"kind":["bench"],"name":"lat_syscall"},"executable":"/w/target/release/deps/lat_syscall-1"}"#.to_string(),
            r#"{"reason":"compiler-artifact","package_id":"path+file:///w#lmbench@0.1.0","target":{"kind":["bin"],"name":"lmbench-peer"},"executable":"/w/target/release/lmbench-peer"}"#.to_string(),
            r#"{"reason":"compiler-artifact","package_id":"path+file:///w#lmbench@0.1.0","target":{"kind":["bin"],"name":"lmbench"},"executable":"/w/target/release/lmbench"}"#.to_string(),
            r#"{"reason":"compiler-artifact","package_id":"registry+https://x#libc@0.2","target":{"kind":["lib"],"name":"libc"},"executable":null}"#.to_string(),
            format!(r#"{{"reason":"build-script-executed","package_id":"path+file:///w#lmbench@0.1.0","env":[["LMBENCH_EXEC_HELLO","{}"],["LMBENCH_RUSTC_VERSION","1.95"]]}}"#, hello.display()),
            "not json".to_string(),
        ];
        let mut b = Built::default();
        for l in &lines {
            parse_message(l, &mut b);
        }
        assert_eq!(
            b.benches.get("lat_syscall"),
            Some(&PathBuf::from("/w/target/release/deps/lat_syscall-1"))
        );
        assert_eq!(b.benches.len(), 1);
        assert_eq!(
            b.helpers,
            [PathBuf::from("/w/target/release/lmbench-peer"), hello]
        );
    }

    #[test]
    fn ldd_names_the_loader_and_libc() {
        let sh = PathBuf::from("/bin/sh");
        if !sh.is_file() || super::super::image::which("ldd").is_none() {
            return;
        }
        let libs = libraries(&[sh]).unwrap();
        assert!(
            libs.iter().any(|p| p.to_string_lossy().contains("libc.so")),
            "{libs:?}"
        );
    }
}
