//! A workload made of one repeated operation, plus the per-operation percentiles that
//! latency rows report beside the harness's per-sample statistics.
//!
//! # Timing model
//! The harness times `run(n)`: n calls of [`Op::op`], nothing else (the interrupt flag is
//! polled every 256 operations, a relaxed atomic load). The percentiles come from a
//! separate pass after sampling (`details`): `pass` operations, each between two clock
//! reads, with the clock's own cost subtracted, so that the headline figure carries no
//! per-operation clock read.

use anyhow::Result;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::harness::clock::{empty_interval_ns, now_ns};
use crate::harness::contract::{Ctx, Workload};
use crate::harness::{interrupt, interrupt::Interrupted};
use crate::model::details::io::{CheckFailed, Latency, OpRecord, Percentiles};
use crate::model::Details;

/// One operation of a row and the facts it records.
pub trait Op {
    fn op(&mut self) -> Result<()>;
    /// Untimed, before each sample and before the percentile pass of `n` operations: rows
    /// that consume what they work on, like unlink, make more here.
    fn before_pass(&mut self, _n: u64) -> Result<()> {
        Ok(())
    }
    /// After sampling: check the work was really done; an error fails the row.
    fn finish(&mut self) -> Result<()> {
        Ok(())
    }
    /// Parameters, checks made, what the cache did: the family's record for this row.
    type Facts: Serialize + DeserializeOwned;
    fn facts(&mut self) -> Result<Self::Facts>;
    /// Notes for the main table (what was bypassed, fsync).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}

pub struct OpWorkload<T: Op> {
    inner: T,
    /// Operations in the percentile pass; 0 for throughput rows.
    pass: u64,
}

impl<T: Op + 'static> OpWorkload<T> {
    /// `inner` sampled, then a percentile pass of `pass` operations — in the first process
    /// of the run to measure the row only ([`Ctx::percentile_ops`]).
    pub fn boxed(ctx: &Ctx, inner: T, pass: u64) -> Box<dyn Workload> {
        Box::new(OpWorkload {
            inner,
            pass: ctx.percentile_ops(pass),
        })
    }
}

impl<T: Op> Workload for OpWorkload<T> {
    fn run(&mut self, n: u64) -> Result<()> {
        for i in 0..n {
            if i % 256 == 255 && interrupt::requested() {
                return Err(Interrupted.into());
            }
            self.inner.op()?;
        }
        Ok(())
    }

    fn before_sample(&mut self, n: u64) -> Result<()> {
        self.inner.before_pass(n)
    }

    fn details(&mut self) -> Option<Details> {
        let facts = match self.inner.facts() {
            Ok(facts) => facts,
            Err(e) => {
                return Some(Details::of(&CheckFailed {
                    check_failed: format!("{e:#}"),
                }))
            }
        };
        let latency = (self.pass > 0).then(|| {
            percentile_pass(&mut self.inner, self.pass).unwrap_or_else(|e| Percentiles::Failed {
                error: format!("{e:#}"),
            })
        });
        Some(Details::of(&OpRecord { facts, latency }))
    }

    fn finish(&mut self) -> Result<()> {
        self.inner.finish()
    }

    fn notes(&self) -> Vec<String> {
        self.inner.notes()
    }
}

fn percentile_pass(op: &mut impl Op, n: u64) -> Result<Percentiles> {
    op.before_pass(n)?;
    let clock = empty_interval_ns(1001);
    let mut times = Vec::with_capacity(n as usize);
    for i in 0..n {
        if i % 64 == 0 && interrupt::requested() {
            return Err(Interrupted.into());
        }
        let t0 = now_ns();
        op.op()?;
        let t1 = now_ns();
        times.push(((t1 - t0) as f64 - clock).max(0.0) * 1e-9);
    }
    Ok(Percentiles::Measured(latency(&mut times)))
}

/// p50, p90, p99 and max of per-operation times in seconds (nearest rank).
pub fn latency(times: &mut [f64]) -> Latency {
    times.sort_by(f64::total_cmp);
    Latency {
        ops: times.len(),
        p50_s: percentile(times, 50.0),
        p90_s: percentile(times, 90.0),
        p99_s: percentile(times, 99.0),
        max_s: times.last().copied().unwrap_or(0.0),
        how: "a separate pass after sampling, each operation between two clock reads, \
              the clock's cost subtracted"
            .into(),
    }
}

/// The nearest-rank percentile of sorted values.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), 50.0);
        assert_eq!(percentile(&v, 99.0), 99.0);
        assert_eq!(percentile(&v, 100.0), 100.0);
        assert_eq!(percentile(&[3.0], 99.0), 3.0);
    }

    struct Counter(u64);

    #[derive(serde::Serialize, serde::Deserialize)]
    struct Count {
        count: u64,
    }
    impl Op for Counter {
        fn op(&mut self) -> Result<()> {
            self.0 += 1;
            Ok(())
        }
        type Facts = Count;
        fn facts(&mut self) -> Result<Count> {
            Ok(Count { count: self.0 })
        }
    }

    #[test]
    fn run_does_exactly_n_operations_and_the_pass_its_own() {
        let mut w = OpWorkload {
            inner: Counter(0),
            pass: 10,
        };
        w.run(1000).unwrap();
        assert_eq!(w.inner.0, 1000);
        let d: OpRecord<Count> = w.details().unwrap().read().unwrap();
        assert_eq!(d.facts.count, 1000);
        assert_eq!(d.latency.unwrap().measured().unwrap().ops, 10);
        assert_eq!(w.inner.0, 1010);
    }
}
