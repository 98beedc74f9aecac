//! A token passed around a ring of processes, each touching a working set of its own
//! when it holds the token: lmbench's `lat_ctx -s SIZE N`.
//!
//! # Timing model
//! N processes (this one and N − 1 children) are joined in a ring of N pipes. One
//! operation is one lap: this process writes a one-byte token into the first pipe, each
//! child reads it from its pipe, sums its working set (every 64-bit word of S bytes of
//! its own, written once after the fork so no page is shared, summed with lmbench's
//! `bread`, one chain of scalar adds, as lat_ctx sums it: [`crate::bench::wordsum`])
//! and writes it into the next pipe, and this process reads it back from the last pipe and sums its own working
//! set. A lap is N token passes, so N context switches when the ring shares one CPU; the
//! row's figure is per lap, a job of N passes. lmbench subtracts from its figure the cost
//! of one pass done inside one process (a pipe write and read and the working-set sum,
//! its `ovr`); the row measures that too and says it in its notes, but leaves it in, and
//! the crosscheck adds lat_ctx's `ovr` back to its figure, so both are whole passes.
//!
//! The row also reads the CPU time its ring's processes spent from the first sample to
//! the last (`/proc/PID/schedstat`, nanoseconds on the CPU) and gives it per lap in its notes:
//! the lap's work apart from other programs' turns on the CPU, which a lap's wall time
//! includes (docs/crosscheck.md, the 16-process pair).

use std::hint::black_box;
use std::os::fd::OwnedFd;
use std::time::Instant;

use anyhow::{bail, Result};

use crate::bench::wordsum::bread;
use crate::harness::children::{self, Child};
use crate::harness::contract::Workload;

/// Sum every word of the working set (what makes a switch bring it back into the cache),
/// the way lat_ctx sums its own.
fn sum(set: &[u64]) -> u64 {
    black_box(bread(set))
}

pub struct Ring {
    first: OwnedFd,
    last: OwnedFd,
    set: Vec<u64>,
    children: Vec<Child>,
    /// Seconds of one pass done in one process (lmbench's overhead).
    pub overhead: f64,
    /// The ring's CPU nanoseconds before the first sample, once it has been set up.
    cpu_at_first_lap: Option<u64>,
    /// Laps run since then (from the first sample on).
    laps: u64,
    /// The ring's CPU seconds per lap, read when the row finished.
    pub cpu_per_lap: Option<f64>,
}

impl Ring {
    pub fn start(processes: usize, set_bytes: usize) -> Result<Ring> {
        if processes < 2 {
            bail!("a ring needs two processes at least");
        }
        let mut pipes: Vec<(OwnedFd, OwnedFd)> = (0..processes)
            .map(|_| children::pipe())
            .collect::<Result<_>>()?;
        let words = set_bytes / 8;
        let mut set: Vec<u64> = (0..words as u64).collect();
        let overhead = one_process_pass(&mut set)?;
        let mut kids = Vec::new();
        // Child i reads pipe i and writes pipe i + 1; this process writes pipe 0 and
        // reads pipe N − 1.
        for i in 1..processes {
            let (input, output) = (&pipes[i - 1].0, &pipes[i].1);
            let mut own = set.clone();
            kids.push(Child::fork(None, move || {
                // Write every word once: the pages become this child's own.
                for w in own.iter_mut() {
                    *w = w.wrapping_add(1);
                }
                let mut token = [0u8];
                loop {
                    match children::read_some_raw(input, &mut token) {
                        Ok(1) => {}
                        _ => return 0,
                    }
                    sum(&own);
                    if children::write_all_raw(output, &token).is_err() {
                        return 3;
                    }
                }
            })?);
        }
        let last = pipes.pop().unwrap().0;
        let first = pipes.swap_remove(0).1;
        Ok(Ring {
            first,
            last,
            set,
            children: kids,
            overhead,
            cpu_at_first_lap: None,
            laps: 0,
            cpu_per_lap: None,
        })
    }

    /// The CPU nanoseconds this thread and every child of the ring have used so far;
    /// `None` when a process's `schedstat` cannot be read (a kernel without it).
    fn ring_cpu_ns(&self) -> Option<u64> {
        // This side of the ring is the thread that runs the laps (the one calling this);
        // each child is a single-threaded process.
        let files = std::iter::once("/proc/thread-self/schedstat".to_string()).chain(
            self.children
                .iter()
                .map(|c| format!("/proc/{}/schedstat", c.pid())),
        );
        let mut total = 0;
        for file in files {
            total += on_cpu_ns(&std::fs::read_to_string(file).ok()?)?;
        }
        Some(total)
    }
}

/// The first field of `/proc/PID/schedstat`: nanoseconds the task has run on a CPU.
pub fn on_cpu_ns(schedstat: &str) -> Option<u64> {
    schedstat.split_whitespace().next()?.parse().ok()
}

/// Seconds of one pass inside one process: write the token into a pipe, read it back,
/// sum the working set (the best of a few hundred).
fn one_process_pass(set: &mut [u64]) -> Result<f64> {
    let (r, w) = children::pipe()?;
    let mut token = [7u8];
    let mut best = f64::MAX;
    for _ in 0..300 {
        let t0 = Instant::now();
        children::write_all_raw(&w, &token).map_err(|e| children::io_error("pipe", e))?;
        children::read_exact_raw(&r, &mut token).map_err(|e| children::io_error("pipe", e))?;
        sum(set);
        best = best.min(t0.elapsed().as_secs_f64());
    }
    Ok(best)
}

impl Workload for Ring {
    /// The ring's CPU time is first read here, untimed, so no sample pays for the reads.
    fn before_sample(&mut self, _n: u64) -> Result<()> {
        if self.cpu_at_first_lap.is_none() {
            self.cpu_at_first_lap = self.ring_cpu_ns();
        }
        Ok(())
    }

    fn run(&mut self, n: u64) -> Result<()> {
        if self.cpu_at_first_lap.is_some() {
            self.laps += n;
        }
        let mut token = [b't'];
        for _ in 0..n {
            children::write_all_raw(&self.first, &token)
                .and_then(|_| children::read_exact_raw(&self.last, &mut token))
                .map_err(|e| children::io_error("token ring", e))?;
            sum(&self.set);
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        if let (Some(start), Some(now)) = (self.cpu_at_first_lap, self.ring_cpu_ns()) {
            if self.laps > 0 {
                self.cpu_per_lap = Some(now.saturating_sub(start) as f64 * 1e-9 / self.laps as f64);
            }
        }
        for c in &mut self.children {
            c.check_alive("a process of the ring")?;
        }
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        let mut notes = vec![format!(
            "{} processes; one pass inside one process (pipe write + read + working-set sum, what lat_ctx subtracts) took {:.2} µs",
            self.children.len() + 1,
            self.overhead * 1e6
        )];
        if let Some(cpu) = self.cpu_per_lap {
            notes.push(format!(
                "the ring's processes were on the CPU {:.1} µs per lap over {} laps (schedstat; a lap's wall time adds other programs' turns)",
                cpu * 1e6,
                self.laps
            ));
        }
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::micro::testing::forking;

    #[test]
    fn the_token_goes_round_and_the_ring_ends_with_this_process() {
        let _one_at_a_time = forking();
        let mut r = Ring::start(4, 16 << 10).unwrap();
        // Laps before the first sample's set-up are not counted.
        r.run(10).unwrap();
        r.before_sample(50).unwrap();
        r.run(50).unwrap();
        r.finish().unwrap();
        assert_eq!(r.children.len(), 3);
        // The working set is S bytes of 64-bit words, lat_ctx's `-s` KiB.
        assert_eq!(r.set.len() * 8, 16 << 10);
        assert!(r.overhead > 0.0);
        assert!(r.notes()[0].starts_with("4 processes"));
        // Four processes did 50 laps of real pipe traffic: some CPU time, and no more per
        // lap than the wall time the laps could have taken (a second each, generously).
        let cpu = r.cpu_per_lap.expect("schedstat is read on Linux");
        assert!(cpu > 0.0 && cpu < 1.0, "{cpu}");
        assert!(r.notes()[1].contains("over 50 laps"), "{:?}", r.notes());
    }

    #[test]
    fn schedstat_s_first_field_is_the_time_on_a_cpu_and_garbage_is_none() {
        assert_eq!(on_cpu_ns("123456789 2345 67\n"), Some(123_456_789));
        assert_eq!(on_cpu_ns(""), None);
        assert_eq!(on_cpu_ns("-5 1 2"), None);
        assert_eq!(on_cpu_ns("12.5 1 2"), None);
    }
}
