//! `lmbench-exec-hello`: the program `lat_proc exec` and `shell` run, as
//! small as lmbench's C "hello": no Rust runtime (`no_std`, `no_main`),
//! linked against libc only, C's `main` writing one line with write(2).
//! A Rust std program would add its runtime start-up (and libgcc_s) to
//! every exec, a cost that moves with the toolchain, not the kernel.
//! Built by the workspace's build.rs with `rustc -C panic=abort`.
#![no_std]
#![no_main]

use core::ffi::{c_char, c_int, c_void};

#[link(name = "c")]
extern "C" {
    fn write(fd: c_int, buf: *const c_void, n: usize) -> isize;
}

const LINE: &[u8] = b"Hello world\n";

/// C's entry point, called by libc's start-up code.
#[no_mangle]
pub extern "C" fn main(_argc: c_int, _argv: *const *const c_char) -> c_int {
    // SAFETY: LINE is valid for LINE.len() bytes.
    let n = unsafe { write(1, LINE.as_ptr().cast(), LINE.len()) };
    // Like a C hello, the line's fate does not change the exit status
    // (lat_proc's child has stdout on /dev/null).
    let _ = n;
    0
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
