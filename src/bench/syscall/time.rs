//! Clocks: the cost of reading the harness's own clock (002 Figure 2, the "event call",
//! measured first because it corrects every other figure), and time(2) through the vDSO
//! versus forced into the kernel.

use std::hint::black_box;

use super::{fig, raw, Calls, Convention};
use crate::harness::contract::{Benchmark, Workload};

pub fn rows() -> Vec<Benchmark> {
    vec![
        Benchmark::new(
            "timer.clock",
            "read CLOCK_MONOTONIC, the clock every sample is timed with (vDSO)",
            fig("Figure 2: event call timing"),
            |_| Ok(clock_loop(libc::CLOCK_MONOTONIC)),
        )
        .per("clock read"),
        Benchmark::new(
            "syscall.time",
            "clock_gettime(CLOCK_REALTIME) through the vDSO: no kernel entry",
            fig("Figure 4/5: time"),
            |_| Ok(clock_loop(libc::CLOCK_REALTIME)),
        ),
        Benchmark::new(
            "syscall.time.raw",
            "clock_gettime(CLOCK_REALTIME) forced into the kernel by the syscall instruction",
            fig("Figure 4/5: time"),
            |_| {
                let mut ts = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                };
                Ok(Calls::boxed("clock_gettime", Convention::Raw, move || {
                    let p = black_box(&mut ts as *mut libc::timespec) as i64;
                    // SAFETY: clock_gettime writes one timespec to p, which is valid.
                    unsafe {
                        raw::syscall(libc::SYS_clock_gettime, &[libc::CLOCK_REALTIME as i64, p])
                    }
                }))
            },
        )
        .per("system call"),
    ]
}

/// The clock read inside the kernel from the medians of (`syscall.time.raw`,
/// `syscall.args.0`): both are the syscall instruction with the same entry and exit, the
/// first reading CLOCK_REALTIME and copying the timespec out, the second doing nothing.
pub fn inside_the_kernel(medians: &[f64]) -> f64 {
    medians[0] - medians[1]
}

fn clock_loop(clock: libc::clockid_t) -> Box<dyn Workload> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    Calls::boxed("clock_gettime", Convention::Libc, move || {
        // SAFETY: ts is a valid timespec.
        unsafe { libc::clock_gettime(black_box(clock), black_box(&mut ts)) as i64 }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernel_s_clock_read_is_the_clock_call_less_the_empty_call() {
        let inside = inside_the_kernel(&[120e-9, 80e-9]);
        assert!((inside - 40e-9).abs() < 1e-18, "{inside}");
        // The order matters: the empty call is the one subtracted.
        assert!(inside_the_kernel(&[100e-9, 120e-9]) < 0.0);
    }
}
