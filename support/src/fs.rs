//! Scratch directories and files, removed on drop (also when a bench
//! panics and unwinds). Each scratch directory, and each scratch file made
//! directly in the scratch root ([`ScratchFile::in_root`]), is named
//! `lmbench-scratch-<pid>-*`, so a later run can sweep what a killed one
//! left ([`remove_stale_scratch`]).

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

mod facts;
pub use facts::{fsdir_facts, NO_JOURNAL};

/// Name prefix of every scratch directory the suite creates.
pub const SCRATCH_PREFIX: &str = "lmbench-scratch-";

/// The directory scratch files go in: `LMBENCH_FSDIR`, else the system
/// temp directory.
pub fn scratch_root() -> PathBuf {
    std::env::var_os("LMBENCH_FSDIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
}

/// A fresh scratch directory, removed with everything in it on drop. The
/// first call of a process checks the root and sweeps stale scratch
/// directories ([`prepare_scratch_root`]).
pub fn scratch_dir() -> io::Result<TempDir> {
    in_scratch_root("directory", |b, root| b.tempdir_in(root))
}

/// Makes one `lmbench-scratch-<pid>-*` entry (a `what`) with `make`
/// directly in the checked scratch root ([`prepare_scratch_root`]); an
/// error names the root.
fn in_scratch_root<T>(
    what: &str,
    make: impl FnOnce(&tempfile::Builder, &Path) -> io::Result<T>,
) -> io::Result<T> {
    let root = prepare_scratch_root()?;
    let prefix = format!("{SCRATCH_PREFIX}{}-", std::process::id());
    make(tempfile::Builder::new().prefix(&prefix), &root).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!("creating a scratch {what} in {}: {e}", root.display()),
        )
    })
}

/// A scratch file of `size` bytes (written, flushed, so its inode and
/// pages are cached), in a scratch directory of its own
/// ([`ScratchFile::new`]) or directly in the scratch root
/// ([`ScratchFile::in_root`]); removed on drop.
pub struct ScratchFile {
    holder: Holder,
    path: PathBuf,
    cpath: CString,
}

/// What removes a scratch file on drop.
enum Holder {
    /// Its own scratch directory, removed with the file.
    Dir(TempDir),
    /// The file itself, directly in the scratch root.
    Root(tempfile::TempPath),
}

/// The write size of every scratch file ([`ScratchFile::new`]): 8 KiB, as
/// lmbench's script writes its $FILE (sequential 8 KiB writes) for File
/// reread, Mmap reread, mmap latency and page fault. How a file was
/// written decides how the page cache holds it: ext4 on recent kernels
/// caches larger writes in larger folios (64 KiB writes: 64 KiB folios),
/// and the folio size changes what those columns measure (one fault maps
/// a whole folio; a reread walks fewer, larger folios). So the size is
/// lmbench's, on every kernel.
pub const FILE_BLOCK: usize = 8 << 10;

impl ScratchFile {
    /// `size` bytes of 0x5a in a fresh scratch directory, written in
    /// sequential [`FILE_BLOCK`] write(2)s ([`write_blocks`]) and synced.
    pub fn new(size: usize) -> io::Result<ScratchFile> {
        let dir = scratch_dir()?;
        let path = dir.path().join("file");
        let mut f = std::fs::File::create(&path)?;
        ScratchFile::fill(&mut f, size, Holder::Dir(dir), path)
    }

    /// `size` bytes of 0x5a written as [`ScratchFile::new`]'s, but
    /// directly in the scratch root (`LMBENCH_FSDIR`, else the temp
    /// directory), named `lmbench-scratch-<pid>-*`: the path depth of
    /// lmbench's $FILE, a file directly in its file-system directory. A
    /// path lookup costs one step per component, so stat and open of a
    /// file one directory deeper measure one lookup more than lmbench's.
    /// The file is removed on drop, and swept by a later run if this
    /// process is killed first.
    pub fn in_root(size: usize) -> io::Result<ScratchFile> {
        let (mut f, path) = in_scratch_root("file", |b, root| b.tempfile_in(root))?.into_parts();
        let p = path.to_path_buf();
        ScratchFile::fill(&mut f, size, Holder::Root(path), p)
    }

    /// Writes `size` bytes to the new file `f` at `path` and syncs it.
    fn fill(
        f: &mut std::fs::File,
        size: usize,
        holder: Holder,
        path: PathBuf,
    ) -> io::Result<ScratchFile> {
        write_blocks(f, size)?;
        f.sync_all()?;
        let cpath = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::other("NUL in scratch path"))?;
        Ok(ScratchFile {
            holder,
            path,
            cpath,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path as a C string, for raw syscalls in timed loops.
    pub fn c_path(&self) -> &std::ffi::CStr {
        &self.cpath
    }

    /// The directory holding the file: its own scratch directory, or for
    /// [`ScratchFile::in_root`] the scratch root (which stays).
    pub fn dir(&self) -> &Path {
        match &self.holder {
            Holder::Dir(d) => d.path(),
            Holder::Root(file) => file.parent().unwrap_or(Path::new("/")),
        }
    }
}

/// Writes `size` bytes of 0x5a to `w` in sequential writes of
/// [`FILE_BLOCK`] bytes (the last one shorter if `size` is not a
/// multiple), each one `write` call unless the writer takes less.
pub fn write_blocks(w: &mut impl io::Write, size: usize) -> io::Result<()> {
    let chunk = [0x5au8; FILE_BLOCK];
    let mut left = size;
    while left > 0 {
        let n = left.min(FILE_BLOCK);
        w.write_all(&chunk[..n])?;
        left -= n;
    }
    Ok(())
}

/// Checks the scratch root named by `fsdir` (the value of `LMBENCH_FSDIR`;
/// `None`: the system temp directory): it must exist, be a directory, and
/// take a new directory. The error is one line naming the variable.
pub fn check_scratch_root(fsdir: Option<&std::ffi::OsStr>) -> io::Result<PathBuf> {
    let (root, label) = match fsdir {
        Some(v) if v.is_empty() => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "LMBENCH_FSDIR is set but empty (unset it to use the temp directory)",
            ))
        }
        Some(v) => (PathBuf::from(v), "LMBENCH_FSDIR="),
        None => (std::env::temp_dir(), "temp directory "),
    };
    let bad = |kind, why: String| {
        Err(io::Error::new(
            kind,
            format!("{label}{}: {why}", root.display()),
        ))
    };
    match std::fs::metadata(&root) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return bad(e.kind(), "no such directory".into())
        }
        Err(e) => return bad(e.kind(), e.to_string()),
        Ok(m) if !m.is_dir() => return bad(io::ErrorKind::InvalidInput, "not a directory".into()),
        Ok(_) => {}
    }
    // Writable is proven by doing it: access(2) says nothing of a full disk
    // or of ACLs, and a probe directory is what the benches will make.
    if let Err(e) = tempfile::Builder::new()
        .prefix(&format!("{SCRATCH_PREFIX}{}-probe-", std::process::id()))
        .tempdir_in(&root)
    {
        return bad(e.kind(), format!("not writable ({e})"));
    }
    Ok(root)
}

/// The checked scratch root of this process ([`check_scratch_root`] of
/// `LMBENCH_FSDIR`), with stale scratch directories swept from it; done
/// once per process, the answer (or the error line) is kept.
pub fn prepare_scratch_root() -> io::Result<PathBuf> {
    static ROOT: std::sync::OnceLock<Result<PathBuf, (io::ErrorKind, String)>> =
        std::sync::OnceLock::new();
    let r = ROOT.get_or_init(|| {
        let root = check_scratch_root(std::env::var_os("LMBENCH_FSDIR").as_deref())
            .map_err(|e| (e.kind(), e.to_string()))?;
        // A failed sweep costs disk space, not correctness: go on.
        let _ = remove_stale_scratch(&root);
        Ok(root)
    });
    r.clone().map_err(|(kind, msg)| io::Error::new(kind, msg))
}

/// The pid in a scratch directory's name (`lmbench-scratch-<pid>-...`).
fn scratch_pid(name: &str) -> Option<libc::pid_t> {
    let rest = name.strip_prefix(SCRATCH_PREFIX)?;
    let (pid, _) = rest.split_once('-')?;
    pid.parse().ok().filter(|&p| p > 0)
}

/// True if a process `pid` exists (kill(pid, 0): EPERM means it exists but
/// belongs to someone else).
fn pid_alive(pid: libc::pid_t) -> bool {
    // No signal: only the existence and permission checks.
    match nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None) {
        Ok(()) => true,
        Err(e) => e == nix::errno::Errno::EPERM,
    }
}

/// Removes the scratch directories and scratch files in `root` whose
/// creating process is gone (a bench killed with SIGKILL cannot run its
/// destructors) and that belong to this user. A live pid keeps its directory, even when the pid
/// was reused: a leftover is better than deleting a running bench's files.
/// Returns how many were removed.
pub fn remove_stale_scratch(root: &Path) -> io::Result<usize> {
    use std::os::unix::fs::MetadataExt;
    let me = nix::unistd::geteuid().as_raw();
    let mut removed = 0;
    for entry in std::fs::read_dir(root)? {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        let Some(pid) = scratch_pid(&name.to_string_lossy()) else {
            continue;
        };
        // symlink_metadata: never follow a link planted under our prefix.
        let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
            continue;
        };
        if !(meta.is_dir() || meta.is_file()) || meta.uid() != me || pid_alive(pid) {
            continue;
        }
        let gone = if meta.is_dir() {
            std::fs::remove_dir_all(entry.path())
        } else {
            std::fs::remove_file(entry.path())
        };
        // Another run may be sweeping the same directory: NotFound is fine.
        match gone {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(_) => {}
        }
    }
    Ok(removed)
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

    #[test]
    fn a_root_scratch_file_sits_directly_in_the_root_and_is_removed_on_drop() {
        let f = ScratchFile::in_root(1).unwrap();
        let root = prepare_scratch_root().unwrap();
        assert_eq!(f.path().parent(), Some(root.as_path()));
        assert_eq!(f.dir(), root);
        let name = f.path().file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(scratch_pid(&name), Some(std::process::id() as libc::pid_t));
        assert_eq!(std::fs::read(f.path()).unwrap(), [0x5a]);
        assert_eq!(f.c_path().to_bytes(), f.path().as_os_str().as_bytes());
        let path = f.path().to_path_buf();
        drop(f);
        assert!(!path.exists());
    }

    /// Records the length of every write call it is given.
    struct Writes(Vec<usize>);

    impl io::Write for Writes {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            assert!(buf.iter().all(|&b| b == 0x5a));
            self.0.push(buf.len());
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn scratch_files_are_written_in_sequential_8k_writes() {
        assert_eq!(FILE_BLOCK, 8192);
        let mut w = Writes(Vec::new());
        write_blocks(&mut w, 3 * 8192 + 100).unwrap();
        assert_eq!(w.0, [8192, 8192, 8192, 100]);
        let mut w = Writes(Vec::new());
        write_blocks(&mut w, 0).unwrap();
        assert!(w.0.is_empty());
        // The file holds exactly the bytes written.
        let f = ScratchFile::new(2 * 8192 + 5).unwrap();
        let bytes = std::fs::read(f.path()).unwrap();
        assert_eq!(bytes.len(), 2 * 8192 + 5);
        assert!(bytes.iter().all(|&b| b == 0x5a));
    }
}

#[cfg(test)]
mod root_tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn bad_fsdir_is_one_clear_error() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("missing");
        let err = check_scratch_root(Some(missing.as_os_str())).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("LMBENCH_FSDIR={}: no such directory", missing.display())
        );
        let file = tmp.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        let err = check_scratch_root(Some(file.as_os_str())).unwrap_err();
        assert!(err.to_string().ends_with(": not a directory"), "{err}");
        let err = check_scratch_root(Some(OsStr::new(""))).unwrap_err();
        assert!(err.to_string().contains("empty"), "{err}");
        assert_eq!(
            check_scratch_root(Some(tmp.path().as_os_str())).unwrap(),
            tmp.path()
        );
        // The probe directory is gone again.
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
    }

    #[test]
    fn unwritable_fsdir_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let ro = tmp.path().join("ro");
        std::fs::create_dir(&ro).unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        // root writes anyway: only a non-root user can see this refusal.
        if !nix::unistd::geteuid().is_root() {
            let err = check_scratch_root(Some(ro.as_os_str())).unwrap_err();
            assert!(err.to_string().contains("not writable"), "{err}");
        }
        // sysfs refuses mkdir to everyone, root included.
        #[cfg(target_os = "linux")]
        if Path::new("/sys/kernel").is_dir() {
            let err = check_scratch_root(Some(OsStr::new("/sys/kernel"))).unwrap_err();
            assert!(
                err.to_string()
                    .starts_with("LMBENCH_FSDIR=/sys/kernel: not writable ("),
                "{err}"
            );
        }
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn sigkilled_owner_leaves_a_dir_the_next_run_removes() {
        let root = tempfile::tempdir().unwrap();
        // A process that makes a scratch dir named with its own pid, then
        // is killed with SIGKILL: no destructor runs, the dir stays.
        let mut child = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(format!(
                "mkdir \"$1/{SCRATCH_PREFIX}$$-x\" && touch \"$1/{SCRATCH_PREFIX}$$-x/f\" \"$1/{SCRATCH_PREFIX}$$-f\" && echo ok && exec sleep 60"
            ))
            .arg("sh")
            .arg(root.path())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        assert_eq!(line.trim(), "ok");
        let stale = root
            .path()
            .join(format!("{SCRATCH_PREFIX}{}-x", child.id()));
        let stale_file = root
            .path()
            .join(format!("{SCRATCH_PREFIX}{}-f", child.id()));
        // Ours (alive) and a foreign name must survive the sweep.
        let mine = root
            .path()
            .join(format!("{SCRATCH_PREFIX}{}-y", std::process::id()));
        let other = root.path().join("not-ours-1-x");
        std::fs::create_dir(&mine).unwrap();
        std::fs::create_dir(&other).unwrap();

        assert_eq!(remove_stale_scratch(root.path()).unwrap(), 0, "owner alive");
        assert!(stale.is_dir() && stale_file.is_file());
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        assert_eq!(remove_stale_scratch(root.path()).unwrap(), 2);
        assert!(!stale.exists() && !stale_file.exists());
        assert!(mine.is_dir() && other.is_dir());
    }

    #[test]
    fn scratch_pid_parses_our_names_only() {
        assert_eq!(scratch_pid("lmbench-scratch-123-abc"), Some(123));
        assert_eq!(scratch_pid("lmbench-scratch-123-probe-x"), Some(123));
        assert_eq!(scratch_pid("lmbench-scratch-x-abc"), None);
        assert_eq!(scratch_pid("lmbench-scratch-0-abc"), None);
        assert_eq!(scratch_pid("other-123-abc"), None);
    }
}
