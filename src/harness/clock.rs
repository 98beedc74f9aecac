//! The clock: CLOCK_MONOTONIC through the vDSO (docs/method.md), and the cost of reading it —
//! seed 002's "event call", calibrated first and used to correct every other figure.

/// Nanoseconds on CLOCK_MONOTONIC.
#[inline(always)]
pub fn now_ns() -> u64 {
    read_ns(libc::CLOCK_MONOTONIC)
}

/// Nanoseconds on CLOCK_MONOTONIC_RAW: the hardware counter, never slewed by NTP.
pub fn raw_ns() -> u64 {
    read_ns(libc::CLOCK_MONOTONIC_RAW)
}

/// Nanoseconds of CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID): what a
/// loop costs its own thread, whatever else shares its CPU.
pub fn thread_cpu_ns() -> u64 {
    read_ns(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// [`thread_cpu_ns`] in seconds.
pub fn thread_cpu_s() -> f64 {
    thread_cpu_ns() as f64 * 1e-9
}

/// Nanoseconds on `clock`, one of the clocks Linux always has (MONOTONIC, MONOTONIC_RAW
/// since 2.6.28, THREAD_CPUTIME_ID).
#[inline(always)]
fn read_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec and `clock` a clock id the kernel has.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// CLOCK_MONOTONIC and CLOCK_MONOTONIC_RAW read together: the raw read between two
/// monotonic ones, whose midpoint stands for the same instant.
pub fn monotonic_and_raw_ns() -> (u64, u64) {
    let before = now_ns();
    let raw = raw_ns();
    let after = now_ns();
    (before + (after - before) / 2, raw)
}

/// The resolution CLOCK_MONOTONIC claims, in nanoseconds.
pub fn resolution_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: as above.
    unsafe { libc::clock_getres(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The time between two back-to-back inline clock reads, in nanoseconds (the median of
/// `pairs` tries): the overhead of timing one operation inline, as percentile passes do.
/// The sampler measures its own overhead through its own path instead.
pub fn empty_interval_ns(pairs: usize) -> f64 {
    let mut d: Vec<f64> = (0..pairs.max(1))
        .map(|_| {
            let t0 = now_ns();
            let t1 = now_ns();
            (t1 - t0) as f64
        })
        .collect();
    d.sort_by(|a, b| a.total_cmp(b));
    crate::model::stats::median_of_sorted(&d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_is_monotonic_and_cheap() {
        let a = now_ns();
        let b = now_ns();
        assert!(b >= a);
        assert!(b - a < 1_000_000, "two clock reads {} ns apart", b - a);
    }
}
