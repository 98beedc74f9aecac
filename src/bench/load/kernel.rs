//! The compute-bound program of Table 9 and Table 11: "trivial integer calculations on a
//! large external array" (seed 000). Each round walks the whole footprint one cache line
//! at a time, updating and folding every line, so the memory really is touched (a copy
//! cannot share or skip it) and the result depends on every step.
//!
//! The footprint is mapped with mmap, not the allocator: the kernel runs in forked
//! children of a process that may have other threads, where malloc is not safe.

use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{bail, Context, Result};

use crate::harness::children::Child;
use crate::harness::clock::thread_cpu_s;

/// 64-bit words per 64-byte cache line.
const LINE_WORDS: usize = 8;

/// Run `rounds` rounds over `footprint` bytes; the checksum proves the work was done.
pub fn compute(footprint: u64, rounds: u64) -> Option<u64> {
    let words = (footprint as usize / 8).max(LINE_WORDS);
    let bytes = words * 8;
    // SAFETY: a private anonymous mapping, zero-filled, unmapped below.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return None;
    }
    // SAFETY: the mapping is `bytes` long, aligned, and ours alone.
    let buf = unsafe { std::slice::from_raw_parts_mut(p as *mut u64, words) };
    let mut acc: u64 = 0x9e37_79b9_7f4a_7c15;
    for r in 0..rounds {
        for i in (0..words).step_by(LINE_WORDS) {
            let v = buf[i]
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(r ^ i as u64);
            buf[i] = v;
            acc = acc.rotate_left(5) ^ v;
        }
    }
    let acc = std::hint::black_box(acc);
    // SAFETY: the mapping was made here with this length and is not used after.
    unsafe { libc::munmap(p, bytes) };
    Some(acc)
}

/// A calibrated amount of work: this many rounds last about the target on this machine,
/// and must give this checksum.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Work {
    pub footprint: u64,
    pub rounds: u64,
    pub checksum: u64,
}

impl Work {
    /// The rounds that take about `target_s` of CPU time here, with the checksum, found
    /// in a forked child: the doubling costs about twice the target, which in the driver
    /// would be a load beside the copies it measures (and count as the driver's CPU).
    pub fn calibrate(footprint: u64, target_s: f64) -> Result<Work> {
        let result = SharedCounters::new(2)?;
        let (rounds, checksum) = (result.get(0), result.get(1));
        let child = Child::fork(None, || match calibrate_here(footprint, target_s) {
            Some((r, c)) => {
                rounds.store(r, Ordering::Relaxed);
                checksum.store(c, Ordering::Relaxed);
                0
            }
            None => 4,
        })?;
        child
            .finish("calibrating the compute program")
            .with_context(|| {
                format!(
                    "cannot calibrate the compute program over {} KiB (4: no memory)",
                    footprint >> 10
                )
            })?;
        Ok(Work {
            footprint,
            rounds: rounds.load(Ordering::Relaxed),
            checksum: checksum.load(Ordering::Relaxed),
        })
    }

    /// The body of a child: 0 when the checksum is right, 3 when it is not, 4 when the
    /// memory could not be had.
    pub fn run_in_child(&self) -> i32 {
        match compute(self.footprint, self.rounds) {
            Some(c) if c == self.checksum => 0,
            Some(_) => 3,
            None => 4,
        }
    }
}

/// The calibration itself, by doubling: (rounds, checksum), or `None` when the footprint
/// cannot be mapped. CPU time, not wall time: on a busy machine the wall clock would count
/// other processes' turns and make the work too small. Runs in a forked child: no
/// allocation.
fn calibrate_here(footprint: u64, target_s: f64) -> Option<(u64, u64)> {
    let mut rounds = 1u64;
    loop {
        let t = thread_cpu_s();
        compute(footprint, rounds)?;
        let took = thread_cpu_s() - t;
        if took >= target_s / 4.0 || rounds >= 1 << 40 {
            let rounds = ((rounds as f64 * target_s / took.max(1e-9)).ceil() as u64).max(1);
            return Some((rounds, compute(footprint, rounds)?));
        }
        rounds *= 2;
    }
}

/// Counters in memory shared with forked children (the readers' bytes, a calibration's
/// result).
pub struct SharedCounters {
    ptr: *mut AtomicU64,
    len: usize,
}

impl SharedCounters {
    pub fn new(len: usize) -> Result<SharedCounters> {
        // SAFETY: a shared anonymous mapping, zero-filled (a valid AtomicU64 array).
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len * 8,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            bail!(
                "cannot map counters shared with children: {}",
                std::io::Error::last_os_error()
            );
        }
        Ok(SharedCounters {
            ptr: p as *mut AtomicU64,
            len,
        })
    }

    pub fn get(&self, i: usize) -> &AtomicU64 {
        assert!(i < self.len);
        // SAFETY: in bounds of the mapping, which lives as long as self.
        unsafe { &*self.ptr.add(i) }
    }

    pub fn total(&self) -> u64 {
        (0..self.len)
            .map(|i| self.get(i).load(Ordering::Relaxed))
            .sum()
    }
}

impl Drop for SharedCounters {
    fn drop(&mut self) {
        // SAFETY: the mapping was made here with this length and is not used after.
        unsafe { libc::munmap(self.ptr as *mut libc::c_void, self.len * 8) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // That the time grows in proportion to the rounds is a timing claim, checked by
    // `timeshare selftest load.kernel.doubling`.
    #[test]
    fn a_calibration_in_a_child_gives_the_parent_a_work_with_its_checksum() {
        let w = Work::calibrate(1 << 16, 0.01).unwrap();
        assert!(w.rounds >= 1);
        assert_eq!(compute(w.footprint, w.rounds), Some(w.checksum));
        assert_eq!(w.run_in_child(), 0);
    }

    #[test]
    fn the_checksum_depends_on_the_work() {
        let a = compute(1 << 16, 3).unwrap();
        assert_eq!(a, compute(1 << 16, 3).unwrap());
        assert_ne!(a, compute(1 << 16, 4).unwrap());
        assert_ne!(a, compute(1 << 17, 3).unwrap());
    }
}
