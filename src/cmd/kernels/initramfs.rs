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
use std::path::{Path, PathBuf};
use std::process::Command;

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

/// One program the guest runs: a name for progress and failures, the
/// executable, and the Criterion filter (empty: all its benches).
#[derive(Debug, Clone)]
pub struct Step {
    pub name: String,
    pub exe: PathBuf,
    pub filter: String,
}

/// The init script: mounts, loopback up, the facts, each step, then every
/// result file over the second serial port, and power off.
fn init_script(preset: &str, bench_args: &str, peer: &Path, rig: &Path) -> String {
    format!(
        r#"#!/bin/busybox sh
set -o pipefail
/bin/busybox mkdir -p /proc /sys /dev /tmp /scratch /bin /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
# The benches' scratch (TMPDIR): a tmpfs of its own, not over /tmp,
# where a checkout under /tmp keeps the executables.
mount -t tmpfs scratch /scratch
export TMPDIR=/scratch
ip link set lo up
hostname guest
stty -F /dev/ttyS1 raw -echo
exec 3>/dev/ttyS1
echo "@@ init $(uname -r)"
send() {{ n=$(wc -c < "$2"); echo "=== $1 $((n))" >&3; cat "$2" >&3; echo >&3; }}
{peer} facts > /scratch/facts.json && send facts /scratch/facts.json
# Boot leaves work behind (kernel threads finishing their setup) that on
# one vCPU takes the benches' time in bursts of a tick: wait until one
# second of the guest's time is 99% idle, for at most 120 s (under icount
# an idle second costs the host nothing), and say who had been busy.
busy_idle() {{ read -r _ u n s i w q sq st _ < /proc/stat; echo "$((u+n+s+q+sq+st)) $((i+w))"; }}
waited=0
while [ $waited -lt 120 ]; do
    set -- $(busy_idle); b0=$1; i0=$2
    sleep 1
    set -- $(busy_idle); b=$(($1-b0)); i=$(($2-i0))
    [ $((b*100)) -le $((b+i)) ] && break
    waited=$((waited+1))
done
busiest=$(awk '{{print $14+$15, $2}}' /proc/[0-9]*/stat 2>/dev/null | sort -rn | head -3 | tr '\n' ' ')
echo "@@ settled $waited $busiest"
# A change of known size on this side (`lmbench.rig=seccomp,50` on the
# command line): sized first by the rig's bare loop, then every step
# runs under it.
rig=
for w in $(cat /proc/cmdline); do
    case "$w" in lmbench.rig=*) rig=$(echo "${{w#lmbench.rig=}}" | tr , ' ');; esac
done
if [ -n "$rig" ]; then
    echo "@@ rig $({rig} size $rig 2>&1 | tr '\n' ' ')"
fi
tab="$(printf '\t')"
while IFS="$tab" read -r name exe filter; do
    echo "@@ step $name"
    set -- "$exe" --bench {bench_args}
    [ -n "$filter" ] && set -- "$@" "$filter"
    [ -n "$rig" ] && set -- {rig} $rig -- "$@"
    # Through a pipe, so Criterion prints its plain lines (no progress
    # bar, no colour) as under cargo; pipefail keeps the bench's status.
    (cd /scratch && CRITERION_HOME=/scratch/criterion LMBENCH_PRESET={preset} "$@" </dev/null 2>&1) | cat
    rc=$?
    echo "@@ rc $name $rc"
    echo "=== rc $name $rc" >&3
done < /lmbench/steps
# Only the files the host reads (each bench's new/ three and the
# harness's record after them, which must not be older than its
# estimates): the serial port is slow, and Criterion's copies (base/,
# tukey.json) would double what it carries.
if [ -d /scratch/criterion ]; then
    cd /scratch/criterion
    {{ find . -type f -path '*/new/*' \( -name estimates.json -o -name sample.json -o -name benchmark.json \)
       find . -type f -name {activity}; }} | while read -r f; do send "file ${{f#./}}" "$f"; done
fi
echo "=== done" >&3
echo "@@ done"
sync
reboot -f
"#,
        peer = peer.display(),
        rig = rig.display(),
        activity = lmbench_support::activity::ACTIVITY_FILE,
    )
}

/// Writes the initramfs for `steps` at `out`: busybox, the init script,
/// the steps, and every file in `files` (executables and libraries): at
/// the first path, the contents of the second.
pub fn write_initramfs(
    out: &Path,
    steps: &[Step],
    files: &[(PathBuf, PathBuf)],
    peer: &Path,
    rig: &Path,
    preset: &str,
    bench_args: &str,
) -> Result<()> {
    let busybox = super::image::which("busybox")
        .filter(|p| is_static(p))
        .or_else(|| Some(PathBuf::from("/bin/busybox")).filter(|p| is_static(p)))
        .context("no static busybox for the guest's init: apt-get install busybox-static")?;
    let f = std::fs::File::create(out).with_context(|| format!("creating {}", out.display()))?;
    let mut c = Cpio::new(std::io::BufWriter::new(f));
    c.file("/bin/busybox", 0o755, &std::fs::read(&busybox)?)?;
    // lat_proc's shell test runs /bin/sh; busybox installs the rest.
    c.symlink("/bin/sh", "busybox")?;
    c.file(
        "/init",
        0o755,
        init_script(preset, bench_args, peer, rig).as_bytes(),
    )?;
    let mut list = String::new();
    for s in steps {
        list.push_str(&format!("{}\t{}\t{}\n", s.name, s.exe.display(), s.filter));
    }
    c.file("/lmbench/steps", 0o644, list.as_bytes())?;
    for (path, source) in files {
        c.host_file(path, source)?;
    }
    c.finish()?;
    Ok(())
}

/// True for an executable that loads no shared library (busybox-static).
fn is_static(p: &Path) -> bool {
    Command::new("ldd")
        .arg(p)
        .output()
        .map(|o| {
            !o.status.success() || String::from_utf8_lossy(&o.stdout).contains("not a dynamic")
        })
        .unwrap_or(false)
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
