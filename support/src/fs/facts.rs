//! Facts about the scratch root: the mount that holds it (file system,
//! options, device) and an ext4 journal, recorded with every run because
//! file and mmap figures depend on them (tmpfs vs ext4, a journal or none).

use std::path::{Path, PathBuf};

use super::scratch_root;

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
