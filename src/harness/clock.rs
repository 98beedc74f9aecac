//! The clock: CLOCK_MONOTONIC through the vDSO (METHOD.md), and the cost of reading it —
//! seed 002's "event call", calibrated first and used to correct every other figure.

/// Nanoseconds on CLOCK_MONOTONIC.
#[inline(always)]
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
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
