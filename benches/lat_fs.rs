//! lat_fs: file creation and deletion, per file, on the file system under
//! test. Run: `cargo bench --bench lat_fs` (or `lmbench run lat_fs`);
//! `LMBENCH_FSDIR=/some/dir` chooses the file system (default: the system
//! temp directory; `lmbench summary` records its type and mount options).
//!
//! Method (lmbench's lat_fs): files of 0, 1, 4 and 10 KB, 100 per fresh
//! directory. One Criterion iteration is one file; `iters` files are made
//! in batches of 100, each batch in a directory of its own:
//! - create: untimed mkdir; timed: for each of the batch's files
//!   openat(dir, name, O_CREAT|O_WRONLY|O_TRUNC, 0644) (creat(2)'s flags),
//!   write(2) of the size in one call (checked: all bytes written), close;
//!   untimed: unlink the files and rmdir.
//! - delete: untimed mkdir and creation of the batch's files as above;
//!   timed: unlinkat of each, in creation order; untimed rmdir.
//!
//! Differences from lmbench, on purpose:
//! - names are resolved relative to a directory fd (openat/unlinkat), so
//!   the figure is the file's own cost, not that of walking the scratch
//!   root's path (which depends on where LMBENCH_FSDIR is);
//! - 0 KB files get no write(2) at all: a zero-length write reaches no file
//!   system code and would only add a syscall;
//! - lmbench reports files per second; we report microseconds per file,
//!   which is what its summary table prints.
//!
//! On ext4 without a journal, create costs what the deletions of the
//! minutes before left: ext4 then keeps a freed inode from reuse for a
//! minute or more and walks past each such inode of the group, from its
//! first, on every create (in a kernel profile of a slow run, most of the
//! time is in `recently_deleted`). This bench's own batches, earlier
//! programs and earlier runs all leave such inodes, so the figure varies by
//! several times from run to run there (the summary notes it, from the
//! machine fact `fsdir_journal`); a journaled file system or tmpfs is steady.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::Criterion;
use lmbench_support::catalog::{lat_fs as cat, Metric};
use lmbench_support::fs::scratch_dir;
use lmbench_support::harness::{check, failed, scratch_root_or_exit, Class, Group};
use nix::fcntl::{open, openat, OFlag};
use nix::sys::stat::Mode;
use nix::unistd::{close, unlinkat, write, UnlinkatFlags};

const FILES_PER_DIR: usize = 100;

/// A fresh directory for one batch, opened as a directory fd; removed
/// (with whatever is left in it) on drop, even during a panic: the fd is
/// closed first, then the directory removed (fields drop in order).
struct BatchDir {
    fd: OwnedFd,
    _path: RemoveOnDrop,
}

/// A directory tree removed on drop.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl BatchDir {
    fn new(parent: &Path, n: u64) -> io::Result<BatchDir> {
        let path = parent.join(format!("d{n}"));
        std::fs::create_dir(&path)?;
        let path = RemoveOnDrop(path);
        let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
        let fd = open(path.0.as_path(), flags, Mode::empty())?;
        Ok(BatchDir { fd, _path: path })
    }

    fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// creat(2) relative to `dir`, write `data` in one call, close (checked;
/// on an error before it the fd is closed unchecked).
#[inline]
fn create(dir: BorrowedFd<'_>, name: &CStr, data: &[u8]) -> io::Result<()> {
    let flags = OFlag::O_CREAT | OFlag::O_WRONLY | OFlag::O_TRUNC;
    let fd = openat(dir, name, flags, Mode::from_bits_truncate(0o644))?;
    if !data.is_empty() {
        let n = write(&fd, data)?;
        if n != data.len() {
            return Err(io::Error::other(format!(
                "short write: {n} of {} bytes",
                data.len()
            )));
        }
    }
    close(fd)?;
    Ok(())
}

#[inline]
fn unlink(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<()> {
    Ok(unlinkat(dir, name, UnlinkatFlags::NoRemoveDir)?)
}

/// Runs `iters` files' worth of batches; `timed(dir, k)` does the measured
/// part for the batch's first k files and returns its duration.
fn batches(
    metric: &Metric,
    parent: &Path,
    iters: u64,
    mut timed: impl FnMut(&BatchDir, usize) -> io::Result<Duration>,
) -> Duration {
    let mut total = Duration::ZERO;
    let mut left = iters;
    let mut n = 0;
    while left > 0 {
        let k = left.min(FILES_PER_DIR as u64) as usize;
        let dir = check(metric, "mkdir batch directory", BatchDir::new(parent, n));
        match timed(&dir, k) {
            Ok(t) => total += t,
            Err(e) => failed(metric, e),
        }
        left -= k as u64;
        n += 1;
    }
    total
}

fn lat_fs(c: &mut Criterion) {
    let root = scratch_root_or_exit(&cat::PROGRAM);
    let scratch = check(&cat::CREATE_0K, "scratch directory", scratch_dir());
    let parent = scratch.path();
    eprintln!("lat_fs: files in {}", root.display());
    let facts = lmbench_support::fs::fsdir_facts();
    if facts.contains(&(
        "fsdir_journal",
        Some(lmbench_support::fs::NO_JOURNAL.into()),
    )) {
        eprintln!(
            "lat_fs: ext4 without a journal: each create walks past the inodes freed in \
             the minutes before, so create figures vary run to run by several times"
        );
    }
    let names: Vec<CString> = (0..FILES_PER_DIR)
        .map(|i| CString::new(format!("f{i:03}")).expect("no NUL"))
        .collect();
    let names = &names;

    let mut g = Group::new(c, &cat::PROGRAM, Class::Slow);
    let cases: [(&'static Metric, &'static Metric, usize); 4] = [
        (&cat::CREATE_0K, &cat::DELETE_0K, 0),
        (&cat::CREATE_1K, &cat::DELETE_1K, 1 << 10),
        (&cat::CREATE_4K, &cat::DELETE_4K, 4 << 10),
        (&cat::CREATE_10K, &cat::DELETE_10K, 10 << 10),
    ];
    for (create_m, delete_m, size) in cases {
        let data = vec![0x5au8; size];
        let data = &data[..];
        g.bench(create_m, |iters| {
            batches(create_m, parent, iters, |dir, k| {
                let start = Instant::now();
                for name in &names[..k] {
                    create(dir.fd(), name, data)?;
                }
                let t = start.elapsed();
                for name in &names[..k] {
                    unlink(dir.fd(), name)?;
                }
                Ok(t)
            })
        });
        g.bench(delete_m, |iters| {
            batches(delete_m, parent, iters, |dir, k| {
                for name in &names[..k] {
                    create(dir.fd(), name, data)?;
                }
                let start = Instant::now();
                for name in &names[..k] {
                    unlink(dir.fd(), name)?;
                }
                Ok(start.elapsed())
            })
        });
    }
    g.finish();
    // The batch directories are gone; nothing may be left behind.
    let left = check(
        &cat::CREATE_0K,
        "list scratch directory",
        std::fs::read_dir(parent),
    )
    .count();
    if left != 0 {
        failed(
            &cat::CREATE_0K,
            format_args!("{left} entries left in {}", parent.display()),
        );
    }
}

lmbench_support::bench_main!(lat_fs);
