//! The kernels a sitting compares: what `--kernel K[:ARGS]` names, found
//! or fetched, and checked to be a bootable x86 image before any guest
//! starts.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

/// One side of the comparison: a kernel image and its command line.
#[derive(Debug, Clone)]
pub struct Side {
    /// What the user wrote (before `:ARGS`), for messages.
    pub spec: String,
    pub image: PathBuf,
    /// Kernel arguments of this side only (`K:ARGS`), after `--append`'s.
    pub args: String,
    /// A change of known size the guest applies to this side's benches
    /// (`lmbench-rig`'s words: `seccomp 50`), from `--rig`.
    pub rig: Option<String>,
}

/// `K[:ARGS]` split: the kernel and its own arguments.
pub fn split_spec(spec: &str) -> (&str, &str) {
    match spec.split_once(':') {
        Some((k, args)) => (k, args.trim()),
        None => (spec, ""),
    }
}

/// Resolves `K[:ARGS]`: an image path, a kernel build tree, or a Debian
/// kernel package's version (downloaded into `cache`, never installed).
pub fn resolve(spec: &str, cache: &Path) -> Result<Side> {
    let (kernel, args) = split_spec(spec);
    if kernel.is_empty() {
        bail!(
            "--kernel {spec:?}: no kernel named (give an image, a build tree or a Debian version)"
        );
    }
    let path = Path::new(kernel);
    let image = if path.is_dir() {
        let bz = path.join("arch/x86/boot/bzImage");
        if !bz.is_file() {
            bail!(
                "{kernel}: a directory without arch/x86/boot/bzImage: build the kernel \
                 (make bzImage) or give the image's path"
            );
        }
        bz
    } else if path.exists() {
        path.to_path_buf()
    } else if is_debian_version(kernel) {
        debian_image(kernel, cache)?
    } else {
        bail!(
            "{kernel}: no such file, and not a Debian kernel version (such as \
             6.12.118+deb12-amd64)"
        );
    };
    check_bzimage(&image)?;
    Ok(Side {
        spec: kernel.to_string(),
        image,
        args: args.to_string(),
        rig: None,
    })
}

/// A Debian kernel package's version: `6.1.0-57-amd64`,
/// `6.12.118+deb12-amd64` (what follows `linux-image-`).
fn is_debian_version(s: &str) -> bool {
    let mut parts = s.splitn(3, '.');
    let num =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    num(parts.next())
        && num(parts.next())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".+-~".contains(&b))
}

/// An x86 boot image: the "HdrS" signature of the boot protocol at 0x202.
/// Anything else (an ELF vmlinux, a module, a text file) is refused here,
/// not by a guest that never prints a line.
pub fn check_bzimage(path: &Path) -> Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut magic = [0u8; 4];
    let ok = f.seek(SeekFrom::Start(0x202)).is_ok() && f.read_exact(&mut magic).is_ok();
    if !ok || &magic != b"HdrS" {
        bail!(
            "{}: not an x86 kernel image (no boot header): give a bzImage or vmlinuz \
             (arch/x86/boot/bzImage of a build tree, /boot/vmlinuz-*), not vmlinux",
            path.display()
        );
    }
    Ok(())
}

/// The image of Debian's `linux-image-VERSION`, from the cache or
/// downloaded with apt-get and unpacked with dpkg-deb into it. Only the
/// image and its config are kept; nothing is installed.
fn debian_image(version: &str, cache: &Path) -> Result<PathBuf> {
    let dir = cache.join(version);
    let image = dir.join(format!("vmlinuz-{version}"));
    if image.is_file() {
        return Ok(image);
    }
    for tool in ["apt-get", "dpkg-deb", "tar"] {
        if which(tool).is_none() {
            bail!(
                "{version}: fetching a Debian kernel needs {tool} (a Debian or Ubuntu host); \
                 or give the kernel image's path"
            );
        }
    }
    std::fs::create_dir_all(cache).with_context(|| format!("creating {}", cache.display()))?;
    // Downloaded and unpacked beside the cache entry, renamed in place
    // only when complete: an interrupted fetch leaves no half image.
    let work = tempfile::Builder::new()
        .prefix(".fetch-")
        .tempdir_in(cache)
        .with_context(|| format!("creating a directory in {}", cache.display()))?;
    let package = format!("linux-image-{version}");
    eprintln!("fetching {package} (apt-get download)...");
    let out = Command::new("apt-get")
        .args(["download", "-q", &package])
        .current_dir(work.path())
        .output()
        .context("running apt-get")?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let err = err
            .lines()
            .find(|l| l.starts_with("E:"))
            .unwrap_or("")
            .trim();
        bail!(
            "{version}: apt-get download {package} failed ({err}): `apt-cache search \
             --names-only ^linux-image-` lists the versions (after `apt-get update`)"
        );
    }
    let deb = std::fs::read_dir(work.path())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "deb"))
        .with_context(|| format!("apt-get download {package} left no .deb"))?;
    let unpack = format!(
        "dpkg-deb --fsys-tarfile '{}' | tar -x -C '{}' ./boot",
        deb.display(),
        work.path().display()
    );
    let status = Command::new("sh")
        .args(["-c", &unpack])
        .status()
        .context("running dpkg-deb")?;
    let unpacked = work.path().join("boot").join(format!("vmlinuz-{version}"));
    if !status.success() || !unpacked.is_file() {
        bail!("{}: holds no boot/vmlinuz-{version}", deb.display());
    }
    let kept = work.path().join("keep");
    std::fs::create_dir(&kept)?;
    std::fs::rename(&unpacked, kept.join(format!("vmlinuz-{version}")))?;
    let config = work.path().join("boot").join(format!("config-{version}"));
    if config.is_file() {
        std::fs::rename(&config, kept.join(format!("config-{version}")))?;
    }
    std::fs::rename(&kept, &dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(image)
}

/// The path of an executable on `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    lmbench_support::profile::select::find_on_path(name, &std::env::var_os("PATH")?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_split_at_the_first_colon() {
        assert_eq!(split_spec("6.1.0-57-amd64"), ("6.1.0-57-amd64", ""));
        assert_eq!(
            split_spec("bzImage:mitigations=off nokaslr"),
            ("bzImage", "mitigations=off nokaslr")
        );
    }

    #[test]
    fn debian_versions() {
        for v in [
            "6.1.0-57-amd64",
            "6.12.118+deb12-amd64",
            "5.10.0-30-cloud-amd64",
        ] {
            assert!(is_debian_version(v), "{v}");
        }
        for v in ["bzImage", "6", "x.1", "6.1/../../etc", "6.1 -x"] {
            assert!(!is_debian_version(v), "{v}");
        }
    }

    #[test]
    fn a_file_that_is_not_a_kernel_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("vmlinux");
        std::fs::write(&f, b"\x7fELF not a boot image").unwrap();
        let err = resolve(f.to_str().unwrap(), dir.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("not an x86 kernel image"), "{err}");
        let mut bz = vec![0u8; 0x300];
        bz[0x202..0x206].copy_from_slice(b"HdrS");
        std::fs::write(&f, &bz).unwrap();
        let side = resolve(&format!("{}:quiet", f.display()), dir.path()).unwrap();
        assert_eq!((side.image, side.args.as_str()), (f, "quiet"));
    }

    #[test]
    fn neither_a_file_nor_a_version_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = resolve("/no/such/bzImage", dir.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("no such file"), "{err}");
        let err = resolve(dir.path().to_str().unwrap(), dir.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("without arch/x86/boot/bzImage"), "{err}");
    }
}
