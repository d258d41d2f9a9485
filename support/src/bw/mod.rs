//! Bandwidth plumbing: pipe, socketpair and loopback TCP endpoints for the
//! writer peers, the "read N bytes" loop, file maps, and (submodules) the
//! memory kernels and the memcpy/memset ceilings.
//!
//! Separate from the latency endpoints (`crate::ipc`), though the two
//! could be merged.

pub mod add_chain;
pub mod block_store;
pub mod ceiling;
pub mod kernels;

use std::io;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::process::{Command, Stdio};
use std::time::Duration;

use nix::errno::Errno;

use crate::child::{wait_readable, ChildGuard};

/// lmbench's transfer unit: the writers write, and readers read, at most
/// this much per call.
pub const XFER: usize = 64 * 1024;

/// Bytes moved per timed iteration by bw_pipe, bw_unix and bw_tcp
/// (lmbench's default 10 MB, binary as its command-line sizes).
pub const MOVE: usize = 10 << 20;

/// Socket buffer size bw_tcp asks for on both ends (lmbench: 1 MB).
pub const TCP_BUF: usize = 1 << 20;

/// Parses an id size segment into bytes: `crate::size::parse`, the one
/// size grammar ("512b", "4k", "64m", "1g", or a bare byte count), as a
/// `usize`.
pub fn parse_size(s: &str) -> Option<usize> {
    usize::try_from(crate::size::parse(s).ok()?).ok()
}

// Pipes and socketpairs come from `ipc` (close-on-exec, as here).
pub use crate::ipc::{pipe, socketpair};

/// setsockopt(SOL_SOCKET, opt) with an int value (SO_SNDBUF, SO_RCVBUF).
pub fn set_sockopt(fd: RawFd, opt: libc::c_int, value: usize) -> io::Result<()> {
    let v = value as libc::c_int;
    // SAFETY: v is a valid int for the duration of the call.
    Errno::result(unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            opt,
            (&v as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    })?;
    Ok(())
}

/// A listener on 127.0.0.1 with a kernel-chosen port whose accepted
/// sockets inherit a receive buffer of `rcvbuf` bytes.
pub fn tcp_listen(rcvbuf: usize) -> io::Result<TcpListener> {
    let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    // Connections not yet received clone the listener's buffer setting.
    set_sockopt(l.as_raw_fd(), libc::SO_RCVBUF, rcvbuf)?;
    Ok(l)
}

/// Accepts one connection, failing after `timeout` (a peer that never
/// connects must not hang the bench).
pub fn accept_within(l: &TcpListener, timeout: Duration) -> io::Result<TcpStream> {
    if !wait_readable(l, timeout)? {
        return Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!("no connection within {timeout:?}"),
        ));
    }
    Ok(l.accept()?.0)
}

/// How long a bandwidth reader waits for data before it fails: the
/// deadline of each timed iteration (10 MB), armed with `stall::Stall`.
pub const STALL: Duration = Duration::from_secs(3);

/// Reads exactly `total` bytes from `fd` in reads of at most `buf.len()`.
/// End of file before that is an error, and so is a read interrupted by a
/// `stall::Stall` deadline (EINTR).
#[inline]
pub fn read_total(fd: RawFd, buf: &mut [u8], total: usize) -> io::Result<()> {
    let mut left = total;
    while left > 0 {
        let want = left.min(buf.len());
        let n = crate::sys::read(fd, &mut buf[..want]).map_err(|e| {
            if e.kind() == io::ErrorKind::Interrupted {
                // A `stall::Stall` deadline passed with the read blocked.
                io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("no data for {STALL:?} with {left} of {total} bytes unread (the writer stopped)"),
                )
            } else {
                e
            }
        })?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("end of stream with {left} of {total} bytes unread"),
            ));
        }
        left -= n;
    }
    Ok(())
}

/// Writes `buf` to `fd` over and over until the reader goes away (EPIPE or
/// a reset, which end the loop normally) or another error.
pub fn write_forever(fd: RawFd, buf: &[u8]) -> io::Result<()> {
    loop {
        let mut off = 0;
        while off < buf.len() {
            match crate::sys::write(fd, &buf[off..]) {
                Ok(n) => off += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionReset
                    ) =>
                {
                    return Ok(())
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// Starts `peer bw_write ARGS...` with `stdout` (if given) as its fd 1,
/// stdin closed. The guard kills and reaps it.
pub fn spawn_writer(peer: &str, args: &[&str], stdout: Option<OwnedFd>) -> io::Result<ChildGuard> {
    let mut cmd = Command::new(peer);
    cmd.arg("bw_write").args(args).stdin(Stdio::null());
    if let Some(fd) = stdout {
        cmd.stdout(Stdio::from(fd));
    }
    ChildGuard::spawn(&mut cmd)
        .map_err(|e| io::Error::new(e.kind(), format!("starting {peer} bw_write: {e}")))
}

/// lseek(2) to the start of the file.
#[inline]
pub fn rewind(fd: RawFd) -> io::Result<()> {
    // SAFETY: lseek touches no memory (a bad fd is an error return).
    Errno::result(unsafe { libc::lseek(fd, 0, libc::SEEK_SET) })?;
    Ok(())
}

/// A read-only shared mapping of a file (memmap2), unmapped on drop.
///
/// memmap2 ignores munmap's result on drop; unmapping a whole mapping of
/// ours cannot fail (no split, valid range), so nothing is lost.
pub struct Mapping(memmap2::Mmap);

impl Mapping {
    /// mmap(2) of the first `len` bytes of `fd` (PROT_READ, MAP_SHARED).
    #[inline]
    pub fn new(fd: RawFd, len: usize) -> io::Result<Mapping> {
        // SAFETY: the suite maps only its own scratch files, which nothing
        // writes or truncates while they are mapped (memmap2's contract).
        let map = unsafe { memmap2::MmapOptions::new().len(len).map(fd) }?;
        Ok(Mapping(map))
    }

    /// The mapping as 8-byte words (mappings are page aligned; a trailing
    /// partial word is left out).
    pub fn as_u64(&self) -> &[u64] {
        let bytes: &[u8] = &self.0;
        // SAFETY: page aligned (so aligned for u64), readable for
        // bytes.len() bytes while self lives; any bit pattern is a u64.
        unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast(), bytes.len() / 8) }
    }

    /// Sums every 8-byte word of the mapping: the reread pass of
    /// bw_mmap_rd (see [`sum_words`]).
    #[inline]
    pub fn sum(&self) -> u64 {
        sum_words(self.as_u64())
    }
}

/// Sums every 8-byte word of `words` (wrapping): the reread sum of
/// bw_file_rd and bw_mmap_rd. lmbench's reread loops (its bread) add up
/// every long of each 1 KB block they read, so the bytes counted are the
/// bytes loaded. Whole blocks go through [`add_chain::long_blocks`], the
/// 128-add chain per block that lmbench's compiled bread is; a tail of
/// less than a block (lmbench leaves it unread; a short read can end one
/// here) through a plain volatile loop, so the sum is still every word's.
#[inline]
pub fn sum_words(words: &[u64]) -> u64 {
    let blocks = words.len() * 8 / add_chain::LONG_BLOCK;
    let bulk = blocks * add_chain::LONG_BLOCK / 8;
    // SAFETY: a u64 slice's bytes, 8-aligned; blocks * 1 KB <= its length.
    let sum = unsafe { add_chain::long_blocks(words.as_ptr().cast(), blocks) };
    sum.wrapping_add(kernels::sum_tail(&words[bulk..]))
}

/// Reads `size` bytes of the open file from its current offset in reads of
/// up to `buf.len()` bytes, summing every 8-byte word of each read
/// ([`sum_words`]): bw_file_rd's timed pass (the file may be longer: the
/// reread programs read prefixes of one file of their largest size).
/// Errors when the file ends first, or when a read ends inside a word.
#[inline]
pub fn read_sum(fd: RawFd, buf: &mut kernels::Buf, size: usize) -> io::Result<u64> {
    let mut total = 0;
    let mut sum = 0u64;
    while total < size {
        let want = buf.len().min(size - total);
        let n = crate::sys::read(fd, &mut buf.as_bytes_mut()[..want])?;
        if n == 0 {
            return Err(io::Error::other(format!(
                "read {total} bytes, wanted {size}: the file ended"
            )));
        }
        if n % 8 != 0 {
            return Err(io::Error::other(format!(
                "a read of {n} bytes at offset {total} ends inside a word"
            )));
        }
        total += n;
        sum = sum.wrapping_add(sum_words(&buf.as_u64()[..n / 8]));
    }
    Ok(sum)
}

/// The size every memory-bandwidth figure of this machine is measured at
/// (bw_mem's top size, and the reread programs' largest size): see
/// `catalog::bw_mem::top_size`. Returns (bytes, capped by memory, the
/// last-level cache the size was derived from).
pub fn machine_top_size() -> (u64, bool, Option<u64>) {
    let llc = machine_llc();
    let (top, capped) = crate::catalog::bw_mem::top_size(llc, mem_available());
    (top, capped, llc)
}

/// This machine's last-level cache as the OS reports it (L3, else L2), in
/// bytes: what the memory sweeps' top sizes are derived from.
pub fn machine_llc() -> Option<u64> {
    let facts = crate::machine::Facts::collect();
    ["l3", "l2"].iter().find_map(|l| facts.cache_bytes(l))
}

/// The metrics of a reread program (bw_file_rd, bw_mmap_rd) this machine
/// measures, with their sizes in bytes: `catalog::bw_file_rd::runs_at`
/// for memory bandwidth top size `top`, none above `cap` bytes.
pub fn reread_sizes(
    program: &'static crate::catalog::Program,
    top: u64,
    cap: usize,
) -> RereadSizes {
    program
        .metrics
        .iter()
        .copied()
        .filter_map(|m| {
            let id = m.function_and_parameter().1?;
            let size = parse_size(id)?;
            (crate::catalog::bw_file_rd::runs_at(id, top) && size <= cap).then_some((m, size))
        })
        .collect()
}

/// A reread program's plan: one scratch file of its largest size on this
/// machine (written and synced once, removed on drop), and the sizes
/// ([`reread_sizes`] at [`machine_top_size`], none above `cap`).
pub fn reread_plan(
    program: &'static crate::catalog::Program,
    cap: usize,
) -> io::Result<(crate::fs::ScratchFile, RereadSizes)> {
    let sizes = reread_sizes(program, machine_top_size().0, cap);
    let largest = sizes.iter().map(|&(_, s)| s).max().unwrap_or(8);
    Ok((crate::fs::ScratchFile::new(largest)?, sizes))
}

/// The metrics a reread program measures here, with their sizes (bytes).
pub type RereadSizes = Vec<(&'static crate::catalog::Metric, usize)>;

/// MemAvailable from /proc/meminfo, in bytes.
#[cfg(target_os = "linux")]
pub fn mem_available() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb << 10)
}

#[cfg(not(target_os = "linux"))]
pub fn mem_available() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of `words` 8-byte words, word i holding i: its every-word sum
    /// is words * (words - 1) / 2, and a skipped or short block changes it.
    fn counting_file(words: usize) -> (tempfile::NamedTempFile, u64) {
        use std::io::Write;
        let mut f = tempfile::NamedTempFile::new().unwrap();
        let bytes: Vec<u8> = (0..words as u64).flat_map(|i| i.to_le_bytes()).collect();
        f.write_all(&bytes).unwrap();
        f.flush().unwrap();
        let w = words as u64;
        (f, w * (w - 1) / 2)
    }

    #[test]
    fn reread_sums_every_word_of_the_file() {
        // 3 full 64 KB reads and a 1000-word tail (not a multiple of 8
        // words, so the tail loop counts too).
        let words = 3 * XFER / 8 + 1003;
        let (f, want) = counting_file(words);
        let fd = f.as_file().as_raw_fd();
        let mut buf = kernels::Buf::new(XFER, 0).unwrap();
        rewind(fd).unwrap(); // writing left the offset at the end
        assert_eq!(read_sum(fd, &mut buf, words * 8).unwrap(), want);
        // A second pass after a rewind gives the same sum (the bench's loop).
        rewind(fd).unwrap();
        assert_eq!(read_sum(fd, &mut buf, words * 8).unwrap(), want);
        // A file shorter than claimed fails.
        rewind(fd).unwrap();
        assert!(read_sum(fd, &mut buf, words * 8 + 8).is_err());
        // A prefix: the first 1000 words sum to 1000 * 999 / 2.
        rewind(fd).unwrap();
        assert_eq!(read_sum(fd, &mut buf, 8000).unwrap(), 1000 * 999 / 2);
        // Through a mapping: the same sum.
        let map = Mapping::new(fd, words * 8).unwrap();
        assert_eq!(map.sum(), want);
        // Every word counts: one fewer word is a different sum.
        assert_ne!(sum_words(&map.as_u64()[..words - 1]), want);
        drop(map);
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("4k"), Some(4096));
        assert_eq!(parse_size("512m"), Some(512 << 20));
        assert_eq!(parse_size("10m"), Some(10 << 20));
        assert_eq!(parse_size("12"), Some(12));
        assert_eq!(parse_size("m"), None);
        assert_eq!(parse_size(""), None);
    }

    #[test]
    fn read_total_reads_all_and_reports_eof() {
        let (r, w) = socketpair().unwrap();
        crate::sys::write(w.as_raw_fd(), &[7u8; 1000]).unwrap();
        let mut buf = [0u8; 64];
        read_total(r.as_raw_fd(), &mut buf, 1000).unwrap();
        drop(w);
        let err = read_total(r.as_raw_fd(), &mut buf, 10).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    }
}
