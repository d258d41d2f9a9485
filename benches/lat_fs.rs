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
//! Create on a disk file system varies by an order of magnitude run to run
//! (background write-back); tmpfs is stable.

use std::ffi::CString;
use std::io;
use std::os::fd::RawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::Criterion;
use lmbench_support::catalog::{lat_fs as cat, Metric};
use lmbench_support::fs::scratch_dir;
use lmbench_support::harness::{check, failed, scratch_root_or_exit, Class, Group};
use lmbench_support::sys;

const FILES_PER_DIR: usize = 100;

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

/// A fresh directory for one batch, opened as a directory fd; removed
/// (with whatever is left in it) on drop, even during a panic.
struct BatchDir {
    path: std::path::PathBuf,
    fd: RawFd,
}

impl BatchDir {
    fn new(parent: &Path, n: u64) -> io::Result<BatchDir> {
        let path = parent.join(format!("d{n}"));
        std::fs::create_dir(&path)?;
        let c = CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)?;
        let fd = sys::open(&c, libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC)?;
        Ok(BatchDir { path, fd })
    }
}

impl Drop for BatchDir {
    fn drop(&mut self) {
        let _ = sys::close(self.fd);
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// creat(2) relative to `dir`, write `data` in one call, close.
#[inline]
fn create(dir: RawFd, name: &CString, data: &[u8]) -> io::Result<()> {
    let flags = libc::O_CREAT | libc::O_WRONLY | libc::O_TRUNC;
    // SAFETY: name is NUL-terminated; dir is an open directory fd.
    let fd = cvt(unsafe { libc::openat(dir, name.as_ptr(), flags, 0o644 as libc::c_uint) })?;
    if !data.is_empty() {
        match sys::write(fd, data) {
            Ok(n) if n == data.len() => {}
            Ok(n) => {
                let _ = sys::close(fd);
                return Err(io::Error::other(format!(
                    "short write: {n} of {} bytes",
                    data.len()
                )));
            }
            Err(e) => {
                let _ = sys::close(fd);
                return Err(e);
            }
        }
    }
    sys::close(fd)
}

#[inline]
fn unlink(dir: RawFd, name: &CString) -> io::Result<()> {
    // SAFETY: name is NUL-terminated; dir is an open directory fd.
    cvt(unsafe { libc::unlinkat(dir, name.as_ptr(), 0) }).map(drop)
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
                    create(dir.fd, name, data)?;
                }
                let t = start.elapsed();
                for name in &names[..k] {
                    unlink(dir.fd, name)?;
                }
                Ok(t)
            })
        });
        g.bench(delete_m, |iters| {
            batches(delete_m, parent, iters, |dir, k| {
                for name in &names[..k] {
                    create(dir.fd, name, data)?;
                }
                let start = Instant::now();
                for name in &names[..k] {
                    unlink(dir.fd, name)?;
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
