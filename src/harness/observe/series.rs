//! The vmstat series sampled during one benchmark (`run --observe`): a thread that wakes
//! every interval, reads /proc and keeps one line, kept off the measuring CPU when the run
//! is pinned (`--cpu N`), so that it never runs inside a timed sample there; unpinned, the
//! scheduler places it, and a sample it preempts is culled like any other.
//!
//! The thread sleeps on a channel: stopping it wakes it at once, it reads the last
//! (partial) interval and ends, so the series covers the benchmark from start to end.

use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};

use super::vmstat::{physical_disks, Reading};
use crate::model::observe::Series;

/// A running series; [`Sampling::stop`] ends it and returns the lines.
pub struct Sampling {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<Result<Series>>>,
}

impl Sampling {
    /// Start sampling every `interval`, on the CPUs in `cpus` when given.
    pub fn start(interval: Duration, cpus: Option<Vec<usize>>) -> Result<Sampling> {
        let (tx, rx) = mpsc::channel::<()>();
        let disks = physical_disks();
        // The first reading on the caller's thread, before the benchmark starts: however
        // late the thread is scheduled, the series covers the benchmark from its start.
        let start = Reading::take(&disks)?;
        let thread = std::thread::Builder::new()
            .name("timeshare-observe".into())
            .spawn(move || -> Result<Series> {
                if let Some(cpus) = cpus.filter(|c| !c.is_empty()) {
                    // Best effort: on a machine with one usable CPU it stays where it is.
                    let _ = crate::harness::cpu::pin_to(&cpus);
                }
                let mut last = start.clone();
                let mut lines = Vec::new();
                let mut next = start.at + interval;
                loop {
                    let wait = next.saturating_duration_since(Instant::now());
                    let stopping = match rx.recv_timeout(wait) {
                        Err(RecvTimeoutError::Timeout) => false,
                        Ok(()) | Err(RecvTimeoutError::Disconnected) => true,
                    };
                    let now = Reading::take(&disks)?;
                    // A stop right after a tick adds no empty line.
                    if !stopping
                        || lines.is_empty()
                        || now.at.duration_since(last.at) >= interval / 20
                    {
                        let t = now.at.duration_since(start.at).as_secs_f64();
                        lines.push(now.line_since(&last, t));
                    }
                    if stopping {
                        return Ok(Series {
                            interval_s: interval.as_secs_f64(),
                            lines,
                        });
                    }
                    last = now;
                    next += interval;
                    // Fell behind (a stopped machine, a suspended process): skip ahead.
                    if next < Instant::now() {
                        next = Instant::now() + interval;
                    }
                }
            })?;
        Ok(Sampling {
            stop: Some(tx),
            thread: Some(thread),
        })
    }

    /// Stop now and return the series.
    pub fn stop(mut self) -> Result<Series> {
        self.finish()
    }

    fn finish(&mut self) -> Result<Series> {
        drop(self.stop.take());
        let thread = self
            .thread
            .take()
            .ok_or_else(|| anyhow!("the series was already stopped"))?;
        thread
            .join()
            .map_err(|_| anyhow!("the observing thread panicked"))?
    }
}

impl Drop for Sampling {
    /// An interrupted benchmark still ends its sampler: no thread outlives the row.
    fn drop(&mut self) {
        if self.thread.is_some() {
            let _ = self.finish();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_series_has_a_line_per_interval_and_covers_the_whole_time() {
        let s = Sampling::start(Duration::from_millis(20), None).unwrap();
        std::thread::sleep(Duration::from_millis(110));
        let series = s.stop().unwrap();
        // About five full intervals and a partial one; how many depends on how busy the
        // machine is (no timing claim here), their coverage does not.
        assert!(!series.lines.is_empty(), "{series:?}");
        let last = series.lines.last().unwrap();
        assert!(last.t_s >= 0.11, "{}", last.t_s);
        let covered: f64 = series.lines.iter().map(|l| l.interval_s).sum();
        assert!((covered - last.t_s).abs() < 1e-6);
        assert!(series.lines.windows(2).all(|w| w[0].t_s < w[1].t_s));
    }

    #[test]
    fn a_short_benchmark_keeps_one_line_from_start_to_end() {
        let s = Sampling::start(Duration::from_secs(5), None).unwrap();
        std::thread::sleep(Duration::from_millis(10));
        let series = s.stop().unwrap();
        assert_eq!(series.lines.len(), 1);
        assert!(series.lines[0].interval_s >= 0.01);
    }
}
