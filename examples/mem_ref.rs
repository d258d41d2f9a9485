//! mem_ref: bare references for the memory-side columns, plain Rust
//! loops with no Criterion and none of the suite's kernels or chains,
//! to run beside the benches and check their figures.
//!
//! Run: `cargo run --release --example mem_ref -- MODE SIZE [PASSES]`
//! - `reread SIZE`: a cached file of SIZE bytes read with read(2) in 64 KB
//!   chunks, every 8-byte word summed (File reread's quantity);
//! - `mmap SIZE`: the same file mapped once and every word summed (Mmap
//!   reread's);
//! - `memrd SIZE`: a SIZE heap buffer, every word summed (Mem read's);
//!   `memrd_huge SIZE`: the same over an anonymous mapping advised
//!   MADV_HUGEPAGE, 2 MB aligned (what TLB reach is worth to it), with the
//!   share of it the kernel gave in huge pages;
//! - `thrash SIZE`, `page SIZE`, `inpage SIZE`: a dependent chase over the
//!   chain of that shape (see lat_mem_rd), built here from its own shuffle.
//!
//! - `ab SHAPE SIZE [ROUNDS]`: the bench's own chain (`chase::Buffer`
//!   and `Chain::chase`, as lat_mem_rd builds and warms it) and this
//!   reference's chain of the same shape, in one process, timed in
//!   alternating 16K-load chunks (ABBA, ROUNDS pairs, default 400), so
//!   both see the same moments of a host whose memory speed drifts: each
//!   side's fastest, 10th-percentile and median chunk, and their ratios.
//!
//! - `abw SIZE [ROUNDS]`: the bench's Mem read, Mmap reread and File
//!   reread (its own kernels: `kernels::frd`, `bw::Mapping::sum`,
//!   `bw::read_sum`) against this reference's plain loops, pass by pass
//!   alternated (ABBA, ROUNDS pairs, default 100), the reread pair on the
//!   same cached file: each side's median and best MB/s and the median
//!   of the paired ratios (bench / reference). Two pairs of the bench's
//!   own cells too: Mem read over huge pages against Mem read
//!   (`memrd_huge/memrd`, the summary's THP read) and Mmap reread against
//!   Mem read (`mmap/memrd`), so TLB reach is seen in one process, with
//!   the share of the mapping the kernel maps with 2 MB entries.
//!
//! - `par SIZE`: k = 1, 2, 4, 8, 16, 32 independent chains that split the
//!   thrash order of SIZE into k cycles, advanced in lock step (par_mem's
//!   quantity): ns per load and per hop, and the speed-up over k = 1.
//!
//! - `dtlb`: the data TLBs' entries for 4 KB pages (AMD's cpuid leaves;
//!   on Intel, every TLB of leaf 0x18).
//!
//! Bandwidths print the median of PASSES passes (default 11, lmbench's
//! count) in MB/s (10^6); chases print the minimum ns per load over chunks
//! of 16K loads, after the floor's warm-up laps. Sums are plain `wrapping_add` loops
//! the compiler may vectorise: the reference is "a plain loop".

use std::io::{Read, Seek, SeekFrom, Write};
use std::time::Instant;

// The chains' orders and first touch: the memory floors' (`lmbench-peer
// floor`), written apart from the bench's `chase::Buffer`.
use lmbench_support::peer::floor::chase::{order, touched_in_order};

fn parse(s: &str) -> usize {
    let (n, shift) = match s.as_bytes().last() {
        Some(b'k') => (&s[..s.len() - 1], 10),
        Some(b'm') => (&s[..s.len() - 1], 20),
        Some(b'g') => (&s[..s.len() - 1], 30),
        _ => (s, 0),
    };
    n.parse::<usize>().expect("SIZE like 64m") << shift
}

fn sum(bytes: &[u8]) -> u64 {
    let mut s = 0u64;
    for w in bytes.chunks_exact(8) {
        s = s.wrapping_add(u64::from_le_bytes(w.try_into().unwrap()));
    }
    s
}

/// A page of bytes, page aligned: read(2) buffers of whole pages, as
/// lmbench's valloc'd ones (a copy into a buffer off the page alignment
/// read 1.4-1.5x slower: `abw` on this guest).
#[derive(Clone)]
#[repr(C, align(4096))]
struct Page([u8; 4096]);

/// `len` bytes (whole pages) of page-aligned, zeroed buffer.
fn page_aligned(len: usize) -> Vec<Page> {
    vec![Page([0; 4096]); len.div_ceil(4096)]
}

fn bytes_of(pages: &mut [Page]) -> &mut [u8] {
    // SAFETY: Page is repr(C) over a byte array, so the pages are
    // contiguous initialised bytes, borrowed mutably with the slice.
    unsafe { std::slice::from_raw_parts_mut(pages.as_mut_ptr().cast(), pages.len() * 4096) }
}

/// One reread pass: `f` from its start in reads of `buf`, every word
/// summed; the file must hold exactly `size` bytes.
fn reread(f: &mut std::fs::File, buf: &mut [u8], size: usize) -> u64 {
    f.seek(SeekFrom::Start(0)).unwrap();
    let (mut s, mut total) = (0u64, 0);
    loop {
        let n = f.read(buf).unwrap();
        if n == 0 {
            break;
        }
        total += n;
        s = s.wrapping_add(sum(&buf[..n]));
    }
    assert_eq!(total, size);
    s
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// MB/s of `passes` timed calls of `f`, each moving `bytes`.
fn bandwidth(bytes: usize, passes: usize, mut f: impl FnMut() -> u64) -> f64 {
    std::hint::black_box(f());
    let rates = (0..passes)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            bytes as f64 / t.elapsed().as_secs_f64() / 1e6
        })
        .collect();
    median(rates)
}

fn scratch_file(size: usize) -> std::fs::File {
    let dir = std::env::var_os("LMBENCH_FSDIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let mut f = tempfile::tempfile_in(dir).expect("scratch file");
    let chunk = vec![0x5au8; 1 << 16];
    for _ in 0..size / chunk.len() {
        f.write_all(&chunk).unwrap();
    }
    f.sync_all().unwrap();
    f
}

/// The floor's chase (`lmbench-peer floor`'s `Chase`: its own shuffle,
/// pages touched in order, unrolled by 100, checked one cycle): the
/// fastest 16K-load chunk over 4M-32M loads, in ns per load.
fn chase(shape: &str, size: usize) -> f64 {
    use lmbench_support::peer::floor::chase::Chase;
    let mut c = Chase::build(shape, size).expect("chain shape and size");
    let total = (c.len() as u64).clamp(1 << 22, 1 << 25);
    c.timed(total) as f64 / total as f64
}

/// MB/s of one timed call of `f`, moving `bytes`.
fn pass(bytes: usize, f: &mut impl FnMut() -> u64) -> f64 {
    let t = Instant::now();
    std::hint::black_box(f());
    bytes as f64 / t.elapsed().as_secs_f64() / 1e6
}

/// Prints `what`: bench against reference over `rounds` alternated passes.
fn ab_passes(
    what: &str,
    size: usize,
    rounds: usize,
    mut bench: impl FnMut() -> u64,
    mut reference: impl FnMut() -> u64,
) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    pass(size, &mut bench);
    pass(size, &mut reference);
    for r in 0..rounds {
        if r % 2 == 0 {
            a.push(pass(size, &mut bench));
            b.push(pass(size, &mut reference));
        } else {
            b.push(pass(size, &mut reference));
            a.push(pass(size, &mut bench));
        }
    }
    let ratios: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x / y).collect();
    let best = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    println!(
        "abw {what} {}m: bench median {:.0} best {:.0} MB/s; reference median {:.0} best {:.0} MB/s; \
         median of {rounds} paired ratios {:.3}",
        size >> 20,
        median(a.clone()),
        best(&a),
        median(b.clone()),
        best(&b),
        median(ratios),
    );
}

/// `abw`: the bench's bandwidth kernels against plain loops, pass by pass.
fn abw(size: usize, rounds: usize) {
    use lmbench_support::bw::{self, kernels};
    use std::os::fd::AsRawFd;
    let kbuf = kernels::Buf::new(size, 0x5a).expect("bench buffer");
    let heap = vec![0x5au8; size];
    ab_passes(
        "memrd",
        size,
        rounds,
        || kernels::frd(kbuf.as_u64()),
        || sum(&heap),
    );
    drop(heap);

    // Mem read over huge pages against Mem read (both the bench's kernel):
    // what TLB reach is worth at this size.
    if let Ok(huge) = kernels::Buf::huge(size.next_multiple_of(kernels::HUGE_PAGE), 0x5a) {
        let share = huge.huge_bytes().unwrap_or(0) as f64 / huge.len() as f64;
        println!(
            "abw memrd_huge: {:.0}% of the buffer in huge pages",
            100.0 * share
        );
        let h = &huge.as_u64()[..size / 8];
        ab_passes(
            "memrd_huge/memrd",
            size,
            rounds,
            || kernels::frd(h),
            || kernels::frd(kbuf.as_u64()),
        );
    }

    let mut f = scratch_file(size);
    let fd = f.as_raw_fd();
    let map = bw::Mapping::new(fd, size).expect("bench mapping");
    // SAFETY: a read-only shared mapping of a scratch file only this
    // process holds; nothing writes or truncates it meanwhile.
    let plain = unsafe { memmap2::MmapOptions::new().len(size).map(&f) }.expect("mmap");
    // How much of the mapping the kernel maps with 2 MB entries (page-cache
    // large folios): the TLB reach Mmap reread has over Mem read's heap.
    if let Some(pmd) = lmbench_support::vm::file_pmd_mapped_bytes(map.as_u64().as_ptr().cast()) {
        println!(
            "abw mmap: {:.0}% of the mapping mapped with 2 MB entries (FilePmdMapped)",
            100.0 * pmd as f64 / size as f64
        );
    }
    ab_passes("mmap", size, rounds, || map.sum(), || sum(&plain));
    // The summary's two cells side by side: Mmap reread against Mem read.
    ab_passes(
        "mmap/memrd",
        size,
        rounds,
        || map.sum(),
        || kernels::frd(kbuf.as_u64()),
    );
    drop((map, plain, kbuf));

    let mut kb = kernels::Buf::new(bw::XFER, 0).expect("bench transfer buffer");
    let mut pages = page_aligned(1 << 16);
    let rb = bytes_of(&mut pages);
    let bench = || {
        bw::rewind(fd)
            .and_then(|_| bw::read_sum(fd, &mut kb, size))
            .expect("bench reread")
    };
    ab_passes("reread", size, rounds, bench, || reread(&mut f, rb, size));
}

/// The bench's chain of `shape` over `size` bytes, built and warmed as
/// lat_mem_rd builds and warms it (`Buffer::lat_mem_rd_chain`,
/// `Chain::warm`).
fn bench_chain(
    shape: &str,
    size: usize,
) -> (
    lmbench_support::chase::Buffer,
    lmbench_support::chase::Chain,
) {
    use lmbench_support::chase::Buffer;
    let mut buf = Buffer::new(size).expect("buffer");
    let stride = lmbench_support::catalog::lat_mem_rd::SHAPES
        .iter()
        .find(|(f, _)| *f == shape)
        .map(|&(_, s)| s as usize)
        .unwrap_or_else(|| panic!("unknown chase {shape}"));
    let mut chain = buf
        .lat_mem_rd_chain(shape, stride, size)
        .expect("the bench's chain");
    chain.warm(&buf).expect("the bench's chain");
    (buf, chain)
}

/// `ab`: the bench's chain against the reference's, chunk for chunk.
fn ab(shape: &str, size: usize, rounds: usize) {
    use lmbench_support::peer::floor::chase::{Chase, CHUNK};
    let (buf, mut bench) = bench_chain(shape, size);
    let mut reference = Chase::build(shape, size).expect("the reference's chain");
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut time_bench = || {
        let t = Instant::now();
        bench.chase(&buf, CHUNK);
        t.elapsed().as_nanos() as f64 / CHUNK as f64
    };
    for r in 0..rounds {
        if r % 2 == 0 {
            a.push(time_bench());
            b.push(reference.timed(CHUNK) as f64 / CHUNK as f64);
        } else {
            b.push(reference.timed(CHUNK) as f64 / CHUNK as f64);
            a.push(time_bench());
        }
    }
    let pairs: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x / y).collect();
    let q = |v: &[f64], f: f64| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[((v.len() - 1) as f64 * f) as usize]
    };
    println!(
        "ab {shape} {}: bench min {:.1} p10 {:.1} median {:.1} ns; reference min {:.1} p10 {:.1} median {:.1} ns; \
         bench/reference min {:.3} p10 {:.3} median {:.3}; median of {rounds} paired chunk ratios {:.3}",
        size >> 20,
        q(&a, 0.0),
        q(&a, 0.1),
        q(&a, 0.5),
        q(&b, 0.0),
        q(&b, 0.1),
        q(&b, 0.5),
        q(&a, 0.0) / q(&b, 0.0),
        q(&a, 0.1) / q(&b, 0.1),
        q(&a, 0.5) / q(&b, 0.5),
        q(&pairs, 0.5),
    );
}

/// Minimum ns per hop of K independent pointer chains advanced together,
/// over chunks of 16K hops, after a warm-up of 64K hops.
fn hops<const K: usize>(starts: &[usize]) -> f64 {
    let mut ps = [std::ptr::null::<usize>(); K];
    for (p, &s) in ps.iter_mut().zip(starts) {
        *p = s as *const usize;
    }
    // SAFETY: as in `chase`: every start is a linked slot of a live buffer.
    let hop = |p: *const usize| unsafe { std::ptr::read_volatile(p) as *const usize };
    let run = |n: usize, ps: &mut [*const usize; K]| {
        let t = Instant::now();
        for _ in 0..n {
            for p in ps.iter_mut() {
                *p = hop(*p);
            }
        }
        t.elapsed().as_nanos() as f64 / n as f64
    };
    run(1 << 16, &mut ps);
    let best = (0..256)
        .map(|_| run(1 << 14, &mut ps))
        .fold(f64::INFINITY, f64::min);
    std::hint::black_box(ps);
    best
}

/// par_mem's check: k disjoint cycles over the thrash order of `size`.
fn par(size: usize) {
    let mut buf = touched_in_order(size / 8);
    let base = buf.as_mut_ptr() as usize;
    let o = order("thrash", size).expect("chain size");
    let mut one = 0.0;
    for k in [1usize, 2, 4, 8, 16, 32] {
        let parts: Vec<&[usize]> = (0..k)
            .map(|i| &o[i * o.len() / k..(i + 1) * o.len() / k])
            .collect();
        for part in &parts {
            for w in part.windows(2) {
                buf[w[0]] = base + 8 * w[1];
            }
            buf[*part.last().unwrap()] = base + 8 * part[0];
        }
        let starts: Vec<usize> = parts.iter().map(|p| base + 8 * p[0]).collect();
        let hop = match k {
            1 => hops::<1>(&starts),
            2 => hops::<2>(&starts),
            4 => hops::<4>(&starts),
            8 => hops::<8>(&starts),
            16 => hops::<16>(&starts),
            _ => hops::<32>(&starts),
        };
        if k == 1 {
            one = hop;
        }
        println!(
            "ref par {} k={k:2}: {hop:7.1} ns/hop {:6.1} ns/load, speed-up {:.1}",
            size >> 20,
            hop / k as f64,
            k as f64 * one / hop
        );
    }
}

/// The data TLBs' 4 KB-page entries from AMD's cpuid leaves 0x80000005
/// (L1) and 0x80000006 (L2): the first-principles figure for `tlb pages`.
#[cfg(target_arch = "x86_64")]
fn amd_dtlb() -> Option<(u32, u32)> {
    use std::arch::x86_64::__cpuid;
    // Leaves past the maximum extended leaf are checked first.
    if __cpuid(0x8000_0000).eax < 0x8000_0006 {
        return None;
    }
    let l1 = (__cpuid(0x8000_0005).ebx >> 16) & 0xff;
    let l2 = (__cpuid(0x8000_0006).ebx >> 16) & 0xfff;
    Some((l1, l2))
}

#[cfg(not(target_arch = "x86_64"))]
fn amd_dtlb() -> Option<(u32, u32)> {
    None
}

/// Intel's TLBs from cpuid leaf 0x18 (deterministic address translation
/// parameters), one line each: type, level, page sizes, entries.
#[cfg(target_arch = "x86_64")]
fn intel_tlbs() -> Vec<String> {
    use std::arch::x86_64::{__cpuid, __cpuid_count};
    if __cpuid(0).eax < 0x18 {
        return Vec::new();
    }
    let last = __cpuid_count(0x18, 0).eax;
    (0..=last)
        .filter_map(|sub| {
            let r = __cpuid_count(0x18, sub);
            let kind = match r.edx & 31 {
                1 => "data",
                2 => "instruction",
                3 => "unified",
                4 => "load",
                5 => "store",
                _ => return None,
            };
            let sizes: Vec<&str> = [(1, "4K"), (2, "2M"), (4, "4M"), (8, "1G")]
                .iter()
                .filter(|(bit, _)| r.ebx & bit != 0)
                .map(|&(_, name)| name)
                .collect();
            let ways = r.ebx >> 16;
            let full = if r.edx & (1 << 8) != 0 {
                ", fully associative"
            } else {
                ""
            };
            Some(format!(
                "cpuid 0x18: L{} {kind} TLB, {} pages: {} entries ({ways} ways x {} sets{full})",
                (r.edx >> 5) & 7,
                sizes.join("/"),
                ways * r.ecx,
                r.ecx
            ))
        })
        .collect()
}

#[cfg(not(target_arch = "x86_64"))]
fn intel_tlbs() -> Vec<String> {
    Vec::new()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("dtlb") {
        let intel = intel_tlbs();
        match amd_dtlb() {
            Some((l1, l2)) if l1 + l2 > 0 => {
                println!("cpuid dtlb 4K entries: L1 {l1}, L2 {l2}")
            }
            _ if !intel.is_empty() => intel.iter().for_each(|l| println!("{l}")),
            _ => println!("cpuid dtlb: not reported (AMD leaves 0x80000005/6, Intel leaf 0x18)"),
        }
        return;
    }
    if let [mode, size, rest @ ..] = args.as_slice() {
        if mode == "abw" {
            abw(
                parse(size),
                rest.first().map_or(100, |r| r.parse().expect("ROUNDS")),
            );
            return;
        }
    }
    if let [mode, shape, size, rest @ ..] = args.as_slice() {
        if mode == "ab" {
            let rounds = rest.first().map_or(400, |r| r.parse().expect("ROUNDS"));
            ab(shape, parse(size), rounds);
            return;
        }
    }
    let (mode, size) = match args.as_slice() {
        [m, s, ..] => (m.as_str(), parse(s)),
        _ => {
            eprintln!("usage: mem_ref reread|mmap|memrd|memrd_huge|thrash|page|inpage|par SIZE [PASSES] | ab SHAPE SIZE [ROUNDS] | abw SIZE [ROUNDS] | dtlb");
            std::process::exit(2);
        }
    };
    let passes = args.get(2).map_or(11, |p| p.parse().expect("PASSES"));
    match mode {
        "reread" => {
            let mut f = scratch_file(size);
            let mut pages = page_aligned(1 << 16);
            let buf = bytes_of(&mut pages);
            let mbps = bandwidth(size, passes, || reread(&mut f, buf, size));
            println!("ref reread {}: {mbps:.0} MB/s", args[1]);
        }
        "mmap" => {
            let f = scratch_file(size);
            // SAFETY: a read-only shared mapping of a scratch file only
            // this process holds; nothing writes or truncates it meanwhile.
            let map = unsafe { memmap2::MmapOptions::new().len(size).map(&f) }.expect("mmap");
            let mbps = bandwidth(size, passes, || sum(&map));
            println!("ref mmap {}: {mbps:.0} MB/s", args[1]);
        }
        "memrd" => {
            let buf = vec![0x5au8; size];
            let mbps = bandwidth(size, passes, || sum(&buf));
            println!("ref memrd {}: {mbps:.0} MB/s", args[1]);
        }
        "memrd_huge" => {
            // The same sum over an anonymous mapping asked for transparent
            // huge pages: how much of Mem read is TLB reach (`abw` prints
            // how much of a page-cache mapping the kernel maps 2 MB).
            let huge = lmbench_support::bw::kernels::Buf::huge(size, 0x5a).expect("huge buffer");
            let share = huge.huge_bytes().unwrap_or(0) * 100 / size as u64;
            let mbps = bandwidth(size, passes, || sum(huge.as_bytes()));
            println!(
                "ref memrd_huge {}: {mbps:.0} MB/s ({share}% in huge pages)",
                args[1]
            );
        }
        "par" => par(size),
        shape => {
            let ns = chase(shape, size);
            println!("ref chase {shape} {}: {ns:.2} ns", args[1]);
        }
    }
}
