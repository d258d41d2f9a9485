use super::*;

#[test]
fn map_touch_count_unmap() {
    let page = page_size();
    let p = map(
        4 * page,
        libc::PROT_READ | libc::PROT_WRITE,
        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
        -1,
    )
    .unwrap();
    let before = faults().unwrap();
    for i in 0..4 {
        // SAFETY: inside the 4-page mapping.
        unsafe { p.add(i * page).write_volatile(1) };
    }
    assert!(faults().unwrap() > before);
    advise(p, 4 * page, MmapAdvise::MADV_RANDOM).unwrap();
    assert!(advise(p, 4 * page, MmapAdvise::MADV_DONTNEED).is_err());
    protect(p, 4 * page, libc::PROT_READ).unwrap();
    assert!(protect(std::ptr::null_mut(), page, libc::PROT_READ).is_err());
    // SAFETY: nothing refers to the mapping anymore.
    unsafe { unmap(p, 4 * page) }.unwrap();
    assert!(map(
        0,
        libc::PROT_READ,
        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
        -1
    )
    .is_err());
}

#[test]
fn smaps_gives_the_huge_bytes_of_the_mapping_at_an_address() {
    let smaps = "\
55d0c0000000-55d0c0400000 r--p 00000000 fd:01 123  /usr/bin/x
Size:               4096 kB
AnonHugePages:         0 kB
FilePmdMapped:      2048 kB
7f0000000000-7f0008000000 rw-p 00000000 00:00 0 
Size:             131072 kB
Rss:              131072 kB
AnonHugePages:    126976 kB
ShmemPmdMapped:        0 kB
7f0008000000-7f0008001000 rw-p 00000000 00:00 0 
AnonHugePages:         4 kB
";
    assert_eq!(
        smaps_field(smaps, 0x7f00_0400_0000, "AnonHugePages"),
        Some(126_976 * 1024)
    );
    assert_eq!(
        smaps_field(smaps, 0x7f00_0000_0000, "AnonHugePages"),
        Some(126_976 * 1024)
    );
    let anon = |addr| smaps_field(smaps, addr, "AnonHugePages");
    assert_eq!(anon(0x55d0_c000_0100), Some(0));
    assert_eq!(anon(0x7f00_0800_0000), Some(4096));
    assert_eq!(anon(0x1000), None);
    // Another field of the same mapping; a field it lacks is None.
    assert_eq!(
        smaps_field(smaps, 0x55d0_c000_0100, "FilePmdMapped"),
        Some(2048 * 1024)
    );
    assert_eq!(smaps_field(smaps, 0x7f00_0800_0000, "FilePmdMapped"), None);
}

#[cfg(target_os = "linux")]
#[test]
fn this_process_has_a_mapping_at_its_own_stack() {
    let x = 5u8;
    assert!(anon_huge_bytes(&x).is_some());
    assert_eq!(anon_huge_bytes(std::ptr::null()), None);
}

#[test]
fn region_aligns_touches_and_discards() {
    let page = page_size();
    let r = Region::anon(4 * page, 8 * page).unwrap();
    assert_eq!(r.addr() as usize % (8 * page), 0);
    assert_eq!(r.len(), 4 * page);
    let before = faults().unwrap();
    r.touch_every(page, 4);
    assert!(faults().unwrap() >= before + 4);
    // DONTNEED empties the pages: the next touches fault again.
    r.advise(MmapAdvise::MADV_DONTNEED).unwrap();
    let before = faults().unwrap();
    r.touch_every(page, 4);
    assert!(faults().unwrap() >= before + 4);
    r.protect(ProtFlags::PROT_READ).unwrap();
    r.protect(ProtFlags::PROT_READ | ProtFlags::PROT_WRITE)
        .unwrap();
    r.touch_every(page, 0);
    assert!(Region::anon(0, page).is_err());
    assert!(Region::anon(page, 3).is_err());
}

#[test]
#[should_panic(expected = "overrun")]
fn region_refuses_a_touch_outside() {
    let page = page_size();
    Region::anon(page, 0).unwrap().touch_every(page, 2);
}

#[test]
fn shared_atomics_are_one_memory_with_a_forked_child() {
    use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
    let m = SharedAtomics::new(4096).unwrap();
    assert_eq!(m.at::<AtomicU64>(8).load(SeqCst), 0, "zeroed");
    // The child's add lands in the parent's view of the page.
    // SAFETY: a test thread may share the process with others; the
    // child only adds and exits (no allocation, no lock).
    let child = unsafe {
        crate::kpath::fork_child(|| {
            m.at::<AtomicU64>(8).fetch_add(5, SeqCst);
            Ok(())
        })
    }
    .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while m.at::<AtomicU64>(8).load(SeqCst) != 5 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    drop(child); // killed if still there, and reaped
    assert_eq!(m.at::<AtomicU64>(8).load(SeqCst), 5);
    assert_eq!(m.at::<AtomicU32>(4092).load(SeqCst), 0);
}

#[test]
#[should_panic(expected = "8-byte atomic at 4 of 4096 shared bytes")]
fn shared_atomics_refuse_a_misaligned_word() {
    use std::sync::atomic::AtomicU64;
    SharedAtomics::new(4096).unwrap().at::<AtomicU64>(4);
}

#[test]
#[should_panic(expected = "4-byte atomic at 4096 of 4096 shared bytes")]
fn shared_atomics_refuse_a_word_outside() {
    use std::sync::atomic::AtomicU32;
    SharedAtomics::new(4096).unwrap().at::<AtomicU32>(4096);
}
