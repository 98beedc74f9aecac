//! Seed 001's "null job" (Appendix A, `nulljob`): a program that exits at once, exec'd by
//! the `proc.exec.null.*`, `proc.spawn` and `proc.shell` benchmarks. It bypasses Rust's
//! runtime start-up (`no_main`) so that, like the seed's C program, it does nothing but
//! exit: what is measured is the exec, not our initialisation.

#![no_main]

#[no_mangle]
pub extern "C" fn main(_argc: i32, _argv: *const *const u8) -> i32 {
    0
}
