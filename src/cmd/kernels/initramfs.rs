//! The guest's whole file system: an uncompressed cpio archive ("newc",
//! the format the kernel unpacks into its rootfs before it runs `/init`).
//!
//! Everything the guest runs is in it: busybox for the init script, the
//! prebuilt bench executables and `lmbench-peer` at the absolute paths
//! they were built for (a bench finds its peer by the path cargo compiled
//! in), and the shared libraries they load. So the guest needs no disk, no
//! 9p or virtio-fs and no modules: every distribution kernel builds in
//! initramfs, devtmpfs, tmpfs and the 8250 serial port the results leave
//! by.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

/// A newc archive being written: entries in order, each directory once.
pub struct Cpio<W: Write> {
    out: W,
    dirs: BTreeSet<String>,
    next_ino: u32,
}

const S_IFDIR: u32 = 0o040000;
const S_IFREG: u32 = 0o100000;
const S_IFLNK: u32 = 0o120000;

impl<W: Write> Cpio<W> {
    pub fn new(out: W) -> Cpio<W> {
        Cpio {
            out,
            dirs: BTreeSet::new(),
            next_ino: 1,
        }
    }

    /// A directory and its parents (each once), mode 0755.
    pub fn dir(&mut self, path: &str) -> Result<()> {
        let path = path.trim_matches('/');
        if path.is_empty() || self.dirs.contains(path) {
            return Ok(());
        }
        if let Some((parent, _)) = path.rsplit_once('/') {
            self.dir(parent)?;
        }
        self.entry(path, S_IFDIR | 0o755, b"")?;
        self.dirs.insert(path.to_string());
        Ok(())
    }

    /// A regular file with these contents (its parents made first).
    pub fn file(&mut self, path: &str, mode: u32, data: &[u8]) -> Result<()> {
        let path = path.trim_start_matches('/');
        self.parents(path)?;
        self.entry(path, S_IFREG | (mode & 0o7777), data)
    }

    /// Host file `source` at `path` in the archive, with its mode.
    pub fn host_file(&mut self, path: &Path, source: &Path) -> Result<()> {
        use std::os::unix::fs::PermissionsExt;
        let data =
            std::fs::read(source).with_context(|| format!("reading {}", source.display()))?;
        let mode = std::fs::metadata(source)?.permissions().mode();
        let path = path
            .to_str()
            .with_context(|| format!("{}: not a UTF-8 path", path.display()))?;
        self.file(path, mode, &data)
    }

    /// A symbolic link at `path` pointing to `target`.
    pub fn symlink(&mut self, path: &str, target: &str) -> Result<()> {
        let path = path.trim_start_matches('/');
        self.parents(path)?;
        self.entry(path, S_IFLNK | 0o777, target.as_bytes())
    }

    /// The trailer; returns the writer.
    pub fn finish(mut self) -> Result<W> {
        self.entry("TRAILER!!!", 0, b"")?;
        self.out.flush()?;
        Ok(self.out)
    }

    fn parents(&mut self, path: &str) -> Result<()> {
        match path.rsplit_once('/') {
            Some((parent, _)) => self.dir(parent),
            None => Ok(()),
        }
    }

    fn entry(&mut self, name: &str, mode: u32, data: &[u8]) -> Result<()> {
        let ino = self.next_ino;
        self.next_ino += 1;
        let nlink = if mode & S_IFDIR != 0 { 2 } else { 1 };
        let size = u32::try_from(data.len()).context("a file over 4 GiB in the initramfs")?;
        let namesize = name.len() + 1;
        let fields = [
            ino,
            mode,
            0,
            0,
            nlink,
            0,
            size,
            0,
            0,
            0,
            0,
            namesize as u32,
            0,
        ];
        let mut header = String::from("070701");
        for f in fields {
            header.push_str(&format!("{f:08x}"));
        }
        self.out.write_all(header.as_bytes())?;
        self.out.write_all(name.as_bytes())?;
        self.out.write_all(&[0])?;
        self.pad(110 + namesize)?;
        self.out.write_all(data)?;
        self.pad(data.len())
    }

    /// Zeros up to the next multiple of 4 after `len` bytes.
    fn pad(&mut self, len: usize) -> Result<()> {
        let n = (4 - len % 4) % 4;
        self.out.write_all(&[0; 3][..n])?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (name, mode, data) of every entry of a newc archive.
    fn entries(mut b: &[u8]) -> Vec<(String, u32, Vec<u8>)> {
        let mut out = Vec::new();
        let field = |h: &[u8], i: usize| {
            u32::from_str_radix(std::str::from_utf8(&h[6 + 8 * i..14 + 8 * i]).unwrap(), 16)
                .unwrap()
        };
        loop {
            assert_eq!(&b[..6], b"070701");
            let (mode, size, namesize) = (field(b, 1), field(b, 6) as usize, field(b, 11) as usize);
            let name = std::str::from_utf8(&b[110..110 + namesize - 1])
                .unwrap()
                .to_string();
            let data_at = (110 + namesize).div_ceil(4) * 4;
            let data = b[data_at..data_at + size].to_vec();
            b = &b[(data_at + size).div_ceil(4) * 4..];
            if name == "TRAILER!!!" {
                assert!(b.is_empty(), "bytes after the trailer");
                return out;
            }
            out.push((name, mode, data));
        }
    }

    #[test]
    fn parents_come_first_and_once() {
        let mut c = Cpio::new(Vec::new());
        c.file("/a/b/c.txt", 0o644, b"hello").unwrap();
        c.file("/a/b/d", 0o755, b"").unwrap();
        c.symlink("/bin/sh", "busybox").unwrap();
        let names: Vec<(String, u32)> = entries(&c.finish().unwrap())
            .into_iter()
            .map(|(n, m, _)| (n, m))
            .collect();
        assert_eq!(
            names,
            [
                ("a".to_string(), 0o040755),
                ("a/b".to_string(), 0o040755),
                ("a/b/c.txt".to_string(), 0o100644),
                ("a/b/d".to_string(), 0o100755),
                ("bin".to_string(), 0o040755),
                ("bin/sh".to_string(), 0o120777),
            ]
        );
    }

    #[test]
    fn contents_and_padding_round_trip() {
        let mut c = Cpio::new(Vec::new());
        for n in 0..9 {
            c.file(&format!("f{n}"), 0o600, &vec![b'x'; n]).unwrap();
        }
        let got = entries(&c.finish().unwrap());
        assert_eq!(got.len(), 9);
        for (n, (_, _, data)) in got.iter().enumerate() {
            assert_eq!(data, &vec![b'x'; n]);
        }
    }

    /// The system's own cpio (busybox's, which reads newc as the kernel
    /// does) lists what we wrote, where one is installed.
    #[test]
    fn busybox_cpio_reads_it() {
        let Some(bb) = super::super::image::which("busybox") else {
            eprintln!("skipped: no busybox");
            return;
        };
        let mut c = Cpio::new(Vec::new());
        c.file("/x/y", 0o644, b"abc").unwrap();
        let bytes = c.finish().unwrap();
        let mut child = std::process::Command::new(bb)
            .args(["cpio", "-t"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&bytes).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        assert_eq!(String::from_utf8(out.stdout).unwrap(), "x\nx/y\n");
    }
}
