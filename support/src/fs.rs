//! Scratch directories and files, removed on drop (also when a bench
//! panics and unwinds). Each scratch directory is named
//! `lmbench-scratch-<pid>-*`.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

/// Name prefix of every scratch directory the suite creates.
pub const SCRATCH_PREFIX: &str = "lmbench-scratch-";

/// The directory scratch files go in: `LMBENCH_FSDIR`, else the system
/// temp directory.
pub fn scratch_root() -> PathBuf {
    std::env::var_os("LMBENCH_FSDIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
}

/// A fresh scratch directory, removed with everything in it on drop.
pub fn scratch_dir() -> io::Result<TempDir> {
    let root = scratch_root();
    tempfile::Builder::new()
        .prefix(&format!("{SCRATCH_PREFIX}{}-", std::process::id()))
        .tempdir_in(&root)
        .map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("creating a scratch directory in {}: {e}", root.display()),
            )
        })
}

/// A scratch directory holding one file of `size` bytes (written, flushed,
/// so its inode and pages are cached).
pub struct ScratchFile {
    dir: TempDir,
    path: PathBuf,
    cpath: CString,
}

impl ScratchFile {
    pub fn new(size: usize) -> io::Result<ScratchFile> {
        let dir = scratch_dir()?;
        let path = dir.path().join("file");
        let chunk = vec![0x5au8; 64 * 1024];
        let mut f = std::fs::File::create(&path)?;
        let mut left = size;
        while left > 0 {
            let n = left.min(chunk.len());
            io::Write::write_all(&mut f, &chunk[..n])?;
            left -= n;
        }
        f.sync_all()?;
        let cpath = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::other("NUL in scratch path"))?;
        Ok(ScratchFile { dir, path, cpath })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path as a C string, for raw syscalls in timed loops.
    pub fn c_path(&self) -> &std::ffi::CStr {
        &self.cpath
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_file_is_removed_on_drop() {
        let f = ScratchFile::new(1000).unwrap();
        let (dir, path) = (f.dir().to_path_buf(), f.path().to_path_buf());
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 1000);
        assert!(dir
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(SCRATCH_PREFIX));
        drop(f);
        assert!(!dir.exists());
    }
}
