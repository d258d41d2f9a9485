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

/// Facts about the scratch root (`LMBENCH_FSDIR` or the temp directory):
/// its path and, from /proc/self/mountinfo, the file system type, mount
/// options, super-block options and device of the mount holding it. File
/// create/delete and mmap figures depend on these (tmpfs vs ext4...).
pub fn fsdir_facts() -> Vec<(&'static str, Option<String>)> {
    let root = scratch_root();
    let path = std::fs::canonicalize(&root).unwrap_or(root);
    #[cfg(target_os = "linux")]
    let mount = std::fs::read_to_string("/proc/self/mountinfo")
        .ok()
        .and_then(|text| mount_of(&text, &path));
    #[cfg(not(target_os = "linux"))]
    let mount: Option<Mount> = None;
    #[cfg(target_os = "linux")]
    let journal = mount
        .as_ref()
        .filter(|m| m.fstype == "ext4")
        .and_then(|m| ext4_journal(&m.device));
    #[cfg(not(target_os = "linux"))]
    let journal: Option<String> = None;
    let (fstype, options, super_options, device) = match mount {
        Some(m) => (
            Some(m.fstype),
            Some(m.options),
            Some(m.super_options),
            Some(m.device),
        ),
        None => (None, None, None, None),
    };
    vec![
        ("fsdir", Some(path.display().to_string())),
        ("fsdir_fstype", fstype),
        ("fsdir_mount_options", options),
        ("fsdir_super_options", super_options),
        ("fsdir_device", device),
        ("fsdir_journal", journal),
    ]
}

/// The fact value [`fsdir_facts`] records for an ext4 file system
/// without a journal (`mkfs.ext4 -O ^has_journal`, or tune2fs).
pub const NO_JOURNAL: &str = "none";

/// Whether the ext4 file system on `device` has a journal: "jbd2", or
/// [`NO_JOURNAL`]; `None` when sysfs does not say. The kernel names it by
/// the block device's own name (`/dev/mapper/x` is `dm-0` there).
#[cfg(target_os = "linux")]
fn ext4_journal(device: &str) -> Option<String> {
    let dev = std::fs::canonicalize(device).unwrap_or_else(|_| PathBuf::from(device));
    let name = dev.file_name()?.to_str()?.to_string();
    let task = std::fs::read_to_string(format!("/sys/fs/ext4/{name}/journal_task")).ok()?;
    Some(if task.trim() == "<none>" {
        NO_JOURNAL.to_string()
    } else {
        "jbd2".to_string()
    })
}

/// One line of /proc/self/mountinfo, the fields we record.
#[derive(Debug, PartialEq)]
struct Mount {
    mount_point: PathBuf,
    options: String,
    fstype: String,
    device: String,
    super_options: String,
}

/// The mount holding `path` in a mountinfo text: the longest mount point
/// that is a prefix of it; of equal ones the last (it covers the others).
/// Line format (proc(5)): `id parent maj:min root mountpoint options
/// [optional...] - fstype source superoptions`.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn mount_of(mountinfo: &str, path: &Path) -> Option<Mount> {
    let mut best: Option<Mount> = None;
    for line in mountinfo.lines() {
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let left: Vec<&str> = left.split(' ').collect();
        let right: Vec<&str> = right.split(' ').collect();
        if left.len() < 6 || right.len() < 3 {
            continue;
        }
        let mount_point = PathBuf::from(unescape_mountinfo(left[4]));
        if !path.starts_with(&mount_point) {
            continue;
        }
        let longer = best
            .as_ref()
            .is_none_or(|b| mount_point.as_os_str().len() >= b.mount_point.as_os_str().len());
        if longer {
            best = Some(Mount {
                mount_point,
                options: left[5].to_string(),
                fstype: right[0].to_string(),
                device: unescape_mountinfo(right[1]),
                super_options: right[2].to_string(),
            });
        }
    }
    best
}

/// mountinfo writes space, tab, newline and backslash as `\ooo` octal.
fn unescape_mountinfo(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let octal = |j: usize| {
            b.get(j)
                .filter(|c| (b'0'..=b'7').contains(c))
                .map(|c| u32::from(c - b'0'))
        };
        if let (b'\\', Some(x), Some(y), Some(z)) = (b[i], octal(i + 1), octal(i + 2), octal(i + 3))
        {
            out.push((x * 64 + y * 8 + z) as u8);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
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

    const MOUNTINFO: &str = "\
22 1 253:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,errors=remount-ro
30 22 0:25 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw,size=1024k
31 22 0:26 / /mnt/with\\040space rw - xfs /dev/sdb1 rw,attr2
32 22 0:27 / /dev/shm rw,noexec - tmpfs shm2 rw
";

    #[test]
    fn mountinfo_picks_the_longest_last_mount() {
        let m = mount_of(MOUNTINFO, Path::new("/tmp/x")).unwrap();
        assert_eq!((m.fstype.as_str(), m.device.as_str()), ("ext4", "/dev/vda"));
        assert_eq!(m.options, "rw,relatime");
        assert_eq!(m.super_options, "rw,errors=remount-ro");
        let m = mount_of(MOUNTINFO, Path::new("/dev/shm/a")).unwrap();
        assert_eq!((m.fstype.as_str(), m.device.as_str()), ("tmpfs", "shm2"));
        let m = mount_of(MOUNTINFO, Path::new("/mnt/with space/d")).unwrap();
        assert_eq!(m.fstype, "xfs");
        // Component-wise: /dev/shmx is not under /dev/shm.
        let m = mount_of(MOUNTINFO, Path::new("/dev/shmx")).unwrap();
        assert_eq!(m.fstype, "ext4");
    }

    #[test]
    fn fsdir_facts_name_the_directory() {
        let facts = fsdir_facts();
        assert_eq!(facts[0].0, "fsdir");
        assert!(facts[0].1.is_some());
        #[cfg(target_os = "linux")]
        assert!(facts
            .iter()
            .any(|(k, v)| *k == "fsdir_fstype" && v.is_some()));
    }
}
