//! Bare ceilings for bw_mem's libc modes: the same libc `memcpy`/`memset`
//! over the same kind of buffers in a plain timed loop (no Criterion), and
//! `perf bench mem memcpy|memset` at the same size where perf is
//! installed. bw_mem measures them right after its own bcopy/bzero at the
//! top size, on the same buffers, and prints them side by side, so a
//! harness overhead would show as a gap (target: within 5 %).

use std::process::{Command, Stdio};
use std::time::Instant;

use super::kernels::{bcopy, bzero, Buf};

/// Intervals per plain-loop measurement; the median is reported (as lmbench).
pub const INTERVALS: usize = 11;

/// MB/s (10^6) of `op`, which moves `bytes` per call: median of
/// [`INTERVALS`] intervals of `reps` calls each, after one untimed call.
pub fn plain_loop(bytes: usize, reps: u32, mut op: impl FnMut()) -> f64 {
    op();
    let mut rates: Vec<f64> = (0..INTERVALS)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                op();
            }
            (bytes as f64 * reps as f64) / t.elapsed().as_secs_f64() / 1e6
        })
        .collect();
    rates.sort_by(f64::total_cmp);
    rates[INTERVALS / 2]
}

/// Calls per interval so that one interval moves about 256 MB.
pub fn reps_for(bytes: usize) -> u32 {
    ((256usize << 20) / bytes).clamp(1, 1 << 20) as u32
}

/// libc memcpy from `src` to `dst` (equal sizes) in a plain loop.
pub fn memcpy_plain(src: &Buf, dst: &mut Buf) -> f64 {
    let bytes = src.len();
    plain_loop(bytes, reps_for(bytes), || {
        bcopy(src.as_bytes(), dst.as_bytes_mut())
    })
}

/// libc memset of `buf` in a plain loop.
pub fn memset_plain(buf: &mut Buf) -> f64 {
    let bytes = buf.len();
    plain_loop(bytes, reps_for(bytes), || bzero(buf.as_bytes_mut()))
}

/// `perf bench mem KIND -s BYTES -f all`, run `runs` times: per perf
/// function, the median of its runs in MB/s (10^6). None if perf is
/// missing or fails (e.g. no permission); perf's "GB/sec" are 2^30 bytes.
pub fn perf_bench(kind: &str, bytes: usize, runs: usize) -> Option<Vec<(String, f64)>> {
    let loops = reps_for(bytes).max(1).to_string();
    let mut per_fn: Vec<(String, Vec<f64>)> = Vec::new();
    for _ in 0..runs {
        let out = Command::new("perf")
            .args(["bench", "mem", kind, "-s", &bytes.to_string(), "-l", &loops])
            .args(["-f", "all"])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        for (name, mbps) in parse_perf(&String::from_utf8_lossy(&out.stdout)) {
            match per_fn.iter_mut().find(|(n, _)| *n == name) {
                Some((_, v)) => v.push(mbps),
                None => per_fn.push((name, vec![mbps])),
            }
        }
    }
    if per_fn.is_empty() {
        return None;
    }
    Some(
        per_fn
            .into_iter()
            .map(|(n, mut v)| {
                v.sort_by(f64::total_cmp);
                (n, v[v.len() / 2])
            })
            .collect(),
    )
}

/// Parses perf bench mem output: `# function 'NAME' (...)` followed by a
/// line `   X.Y GB/sec` (or MB/sec, KB/sec, bytes/sec; binary multiples).
pub fn parse_perf(text: &str) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    let mut name: Option<String> = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("# function '") {
            name = rest.split('\'').next().map(str::to_string);
            continue;
        }
        let mut words = line.split_whitespace();
        let (Some(num), Some(unit)) = (words.next(), words.next()) else {
            continue;
        };
        let mult = match unit {
            "GB/sec" => (1u64 << 30) as f64,
            "MB/sec" => (1u64 << 20) as f64,
            "KB/sec" | "KBd/sec" => 1024.0,
            "bytes/sec" => 1.0,
            _ => continue,
        };
        if let (Some(n), Ok(v)) = (name.take(), num.parse::<f64>()) {
            out.push((n, v * mult / 1e6));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perf_output_parses_in_decimal_megabytes() {
        let text = "# Running 'mem/memcpy' benchmark:\n\
            # function 'default' (Default memcpy() provided by glibc)\n\
            # Copying 268435456 bytes ...\n\n       6.0 GB/sec\n\
            # function 'x86-64-movsb' (movsb-based memcpy())\n\
            # Copying 268435456 bytes ...\n\n       512.0 MB/sec\n";
        let got = parse_perf(text);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0, "default");
        assert!((got[0].1 - 6.0 * 1073.741824).abs() < 1e-6);
        assert_eq!(got[1].0, "x86-64-movsb");
        assert!((got[1].1 - 536.870912).abs() < 1e-6);
    }

    #[test]
    fn plain_loop_measures_something() {
        let mut a = Buf::new(64 * 1024, 1).unwrap();
        let mut b = Buf::new(64 * 1024, 2).unwrap();
        assert!(memset_plain(&mut b) > 0.0);
        assert!(memcpy_plain(&a, &mut b) > 0.0);
        assert!(memset_plain(&mut a) > 0.0);
    }
}
