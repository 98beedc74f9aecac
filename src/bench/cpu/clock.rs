//! The length of a CPU cycle, measured: a chain of dependent register-to-register integer
//! adds, each of which takes exactly one cycle on every x86-64 core (its latency is 1;
//! an add of an *immediate* is not used, because Golden Cove and later cores can fold
//! small immediate adds in the renamer and run several per cycle), so the time per add is
//! the time per cycle at the frequency the core runs at now (turbo included). The nominal
//! figure of /proc/cpuinfo ("cpu MHz") is often the base or TSC frequency instead, which is
//! why statement costs in cycles use the measured cycle and record both.
//!
//! Elsewhere than x86-64 the cycle is not measured and cycle figures are left out.

use crate::harness::clock::now_ns;

/// Adds per timed loop iteration, and iterations per timing.
const ADDS_PER_ITER: u64 = 100;
const ITERS: u64 = 10_000;

/// Nanoseconds per cycle: the best of 25 timings of 1,000,000 dependent adds (about
/// 0.3 ms each at 3 GHz). The best, because on a loaded machine or a VM most timings are
/// stretched by preemption or stolen time, and none can be shortened.
#[cfg(target_arch = "x86_64")]
pub fn measured_cycle_ns() -> Option<f64> {
    let best = (0..25)
        .map(|_| {
            let t0 = now_ns();
            add_chain(ITERS);
            now_ns() - t0
        })
        .min()?;
    Some(best as f64 / (ITERS * ADDS_PER_ITER) as f64)
}

#[cfg(not(target_arch = "x86_64"))]
pub fn measured_cycle_ns() -> Option<f64> {
    None
}

#[cfg(target_arch = "x86_64")]
fn add_chain(iters: u64) -> u64 {
    let mut x: u64 = 0;
    let mut n = iters;
    // SAFETY: registers only; the loop counter and the chain are both outputs.
    unsafe {
        std::arch::asm!(
            "2:",
            ".rept 100",
            "add {x}, {one}",
            ".endr",
            "dec {n}",
            "jnz 2b",
            x = inout(reg) x,
            n = inout(reg) n,
            one = in(reg) 1u64,
            options(nomem, nostack),
        );
    }
    let _ = n;
    x
}

/// "cpu MHz" of the first CPU in /proc/cpuinfo, if any.
pub fn nominal_mhz() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines()
        .find(|l| l.starts_with("cpu MHz"))
        .and_then(|l| l.split(':').nth(1))
        .and_then(|v| v.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_add_chain_really_adds() {
        assert_eq!(add_chain(3), 300);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn a_cycle_lasts_between_0_1_and_2_ns() {
        // 0.5 GHz … 10 GHz: anything else means the chain was not timed.
        let ns = measured_cycle_ns().unwrap();
        assert!((0.1..2.0).contains(&ns), "{ns} ns per cycle");
    }
}
