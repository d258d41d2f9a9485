//! The guest's results as the host reads them back from the second
//! serial port: its machine facts, each program's exit status, and
//! Criterion's files for each benchmark, each checked to stay inside the
//! directory they are unpacked into and to arrive whole.

use std::path::Path;

use anyhow::{bail, Context, Result};

/// What a boot's result port carried.
#[derive(Debug, Default)]
pub struct Results {
    /// The guest's machine facts (`lmbench-peer facts`), as JSON.
    pub facts: Option<String>,
    /// Each step's exit status.
    pub rcs: Vec<(String, i32)>,
    /// Whether the guest got to the end of its list.
    pub done: bool,
}

/// Reads the result port's bytes: facts, exit statuses, and Criterion's
/// files, written under `home` (only relative paths inside it).
pub fn unpack(data: &[u8], home: &Path) -> Result<Results> {
    let mut out = Results::default();
    let mut rest = data;
    while !rest.is_empty() {
        let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        let line = String::from_utf8_lossy(&rest[..end])
            .trim_end_matches('\r')
            .to_string();
        rest = &rest[(end + 1).min(rest.len())..];
        let Some(header) = line.strip_prefix("=== ") else {
            continue;
        };
        if header == "done" {
            out.done = true;
            continue;
        }
        if let Some(rc) = header.strip_prefix("rc ") {
            let (name, code) = rc
                .rsplit_once(' ')
                .context("a bad rc line from the guest")?;
            out.rcs.push((name.to_string(), code.parse().unwrap_or(-1)));
            continue;
        }
        // `facts N` or `file REL N`: N bytes follow, then a newline.
        let (what, size) = header
            .rsplit_once(' ')
            .context("a bad header from the guest")?;
        let size: usize = size.parse().context("a bad size from the guest")?;
        if rest.len() < size {
            bail!("the guest's results end inside {what} (the guest stopped while sending)");
        }
        let body = &rest[..size];
        rest = &rest[size..];
        rest = rest.strip_prefix(b"\n").unwrap_or(rest);
        if what == "facts" {
            out.facts = Some(String::from_utf8_lossy(body).into_owned());
        } else if let Some(rel) = what.strip_prefix("file ") {
            let rel = Path::new(rel);
            if rel.is_absolute()
                || rel
                    .components()
                    .any(|c| !matches!(c, std::path::Component::Normal(_)))
            {
                bail!(
                    "the guest sent a file outside its results: {}",
                    rel.display()
                );
            }
            let path = home.join(rel);
            std::fs::create_dir_all(path.parent().unwrap_or(home))?;
            std::fs::write(&path, body).with_context(|| format!("writing {}", path.display()))?;
        }
    }
    // The harness's activity record counts only when not older than the
    // estimates beside it; files written in the port's order can be.
    touch_activity(home)?;
    Ok(out)
}

/// Rewrites every activity file under `home` so it is the newest of its
/// benchmark's files.
fn touch_activity(dir: &Path) -> Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    for e in std::fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            touch_activity(&p)?;
        } else if p
            .file_name()
            .is_some_and(|n| n == lmbench_support::activity::ACTIVITY_FILE)
        {
            let b = std::fs::read(&p)?;
            std::fs::write(&p, b)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unpacks_facts_statuses_and_files() {
        let dir = tempfile::tempdir().unwrap();
        let mut d = Vec::new();
        d.extend_from_slice(b"=== facts 13\n{\"os\":\"Lin\"}\n\n");
        d.extend_from_slice(b"=== rc lat_syscall 0\n");
        d.extend_from_slice(b"=== file lat_syscall/null/new/sample.json 8\n{\"a\":\n1}\n");
        d.extend_from_slice(b"=== rc lat_sig 101\n=== done\n");
        let r = unpack(&d, dir.path()).unwrap();
        assert_eq!(r.facts.as_deref(), Some("{\"os\":\"Lin\"}\n"));
        assert_eq!(
            r.rcs,
            [("lat_syscall".to_string(), 0), ("lat_sig".to_string(), 101)]
        );
        assert!(r.done);
        let f = dir.path().join("lat_syscall/null/new/sample.json");
        assert_eq!(std::fs::read_to_string(f).unwrap(), "{\"a\":\n1}");
    }

    #[test]
    fn refuses_paths_outside_and_truncated_files() {
        let dir = tempfile::tempdir().unwrap();
        let err = unpack(b"=== file ../x 1\nx\n", dir.path()).unwrap_err();
        assert!(err.to_string().contains("outside"), "{err}");
        let err = unpack(b"=== file a/b 10\nxy", dir.path()).unwrap_err();
        assert!(err.to_string().contains("stopped while sending"), "{err}");
        let r = unpack(b"=== facts 2\n{}", dir.path()).unwrap();
        assert!(!r.done);
    }
}
