//! Seed 001's "big job" (Appendix A, `bigjob`): the null job plus 250 KB of initialised
//! data ("250 here is intended to approximate vi's text+data size"). The array is
//! mutable and non-zero, so the linker must place it in the initialised data segment
//! (`.data`, shown by `size` as "data"), not in read-only data or the zero-filled `.bss`;
//! `#[used]` keeps it although nothing reads it.

#![no_main]

/// 250 KB, as the seed's `char space[1024 * 250] = "force into data segment";`.
#[used]
#[no_mangle]
pub static mut TIMESHARE_BIG_JOB_SPACE: [u8; 250 * 1024] = [0x5a; 250 * 1024];

#[no_mangle]
pub extern "C" fn main(_argc: i32, _argv: *const *const u8) -> i32 {
    0
}
