//! `lmbench-exec-exit`: the smallest program exec can start: static, no
//! libc, no dynamic loader; its entry point makes the raw exit(0) system
//! call. Timing its fork+exec (`lat_proc/exec_static`) against
//! `lmbench-exec-hello`'s splits "exec proc" into the kernel's exec and the
//! dynamic loading and libc start-up of a C-sized program. Linux on x86_64
//! and aarch64 only (the syscall is written in assembly); built by the
//! workspace's build.rs with `rustc -C panic=abort`, linked with
//! `-nostartfiles -static`.
#![no_std]
#![no_main]

/// The process's first instruction (no C start-up code runs before it).
#[no_mangle]
pub extern "C" fn _start() -> ! {
    // SAFETY: exit(0) takes no memory and never returns.
    unsafe {
        #[cfg(target_arch = "x86_64")]
        core::arch::asm!("syscall", in("rax") 60usize, in("rdi") 0usize, options(noreturn, nostack));
        #[cfg(target_arch = "aarch64")]
        core::arch::asm!("svc #0", in("x8") 93usize, in("x0") 0usize, options(noreturn, nostack));
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
