//! Writing a whole file so that a reader sees the old content or the new,
//! never half of it: a temporary file beside the target, renamed over it.
//! The one `write_atomic` of the workspace (flamegraphs, the CLI's plots,
//! exports, Criterion baselines and stamps, the benches' activity and
//! remote-peer records). A saved run's whole directory is published by
//! `lmbench::publish` instead, as one rename of a directory.

use std::io::{self, Write};
use std::path::Path;

/// Writes `bytes` to `path` atomically, creating its directory if needed.
/// Errors name the path.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let with = |what: &str, p: &Path, e: io::Error| {
        io::Error::new(e.kind(), format!("{what} {}: {e}", p.display()))
    };
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let dir = dir.unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| with("creating", dir, e))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| with("writing", path, e))?;
    tmp.write_all(bytes).map_err(|e| with("writing", path, e))?;
    tmp.persist(path)
        .map_err(|e| with("writing", path, e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_and_leaves_no_temporary() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sub").join("f.json");
        write_atomic(&p, b"old").unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        let n = std::fs::read_dir(p.parent().unwrap()).unwrap().count();
        assert_eq!(n, 1, "only the file is left");
        let e = write_atomic(&p.join("under-a-file"), b"x").unwrap_err();
        assert!(e.to_string().contains("f.json"), "{e}");
    }
}
