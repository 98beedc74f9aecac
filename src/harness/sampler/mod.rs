//! Sampling one prepared workload.
//!
//! # Timing model
//! A sample times one call `run(k)`: k operations between two clock reads, with the
//! measuring thread's involuntary context switches and CPU read just outside the timed
//! region. The interval contains, besides the k operations, one clock read's worth of
//! time (`Overhead::clock`) and k iterations of the workload's loop (`Overhead::per_iter`),
//! so the corrected figure per operation is
//!
//! ```text
//!     per_op = (t1 − t0 − clock − k·per_iter) / k
//! ```
//!
//! (the loop term only for plans with `subtract_loop`). A median at or below zero is
//! reported as below resolution with the raw figure, never as zero. k is calibrated by
//! doubling until a batch lasts the plan's target (seed 002 had to time 100 calls at once
//! because its clock ticked every 10 µs; ours ticks every nanosecond but costs ~20 ns).

use std::hint::black_box;

use super::clock::{self, now_ns};
use super::contract::{Batch, LoopWorkload, OwnFigures, Plan, Workload};
use super::counters::Snapshot;
use super::cpu::current_cpu;
use super::interrupt::{self, Interrupted};
use super::rusage::{self, thread_preemptions, Usage};
use crate::model::{
    Calibration, CounterDeltas, Metric, Mode, OpTimes, Overhead, Sample, SingleCalls, Summary, Unit,
};
use anyhow::{bail, Result};

/// Measure the overheads through the very code path samples take: a sample of zero
/// operations is the empty timed region (clock reads, the dynamic call into `run`, the
/// loop's set-up), and a calibrated empty loop gives the cost per iteration.
pub fn measure_overhead() -> Result<Overhead> {
    let mut empty = LoopWorkload::new(|| {
        black_box(());
    });
    let clock_s = empty_sample_s(&mut empty, 20_001)?;
    // The empty loop itself is timed with the sample correction only.
    let uncorrected = Overhead {
        clock_s,
        ..Overhead::none()
    };
    let mut plan = Plan::calibrated(crate::model::Mode::Quick);
    plan.subtract_loop = false;
    plan.samples = 15;
    let m = measure(&mut empty, &plan, &Metric::latency(), &uncorrected)?;
    Ok(Overhead {
        clock_s,
        per_iter_s: m.summary.median.max(0.0),
        resolution_s: clock::resolution_ns() as f64 * 1e-9,
    })
}

/// `overhead` with the empty sample timed again now. On a virtual machine the cost of a
/// clock read drifts within a run (22 to 31 ns here, from one benchmark to the next), so
/// the runner takes it afresh just before each benchmark (~0.2 ms).
pub fn refresh_overhead(overhead: &Overhead) -> Result<Overhead> {
    let mut empty = LoopWorkload::new(|| {
        black_box(());
    });
    Ok(Overhead {
        clock_s: empty_sample_s(&mut empty, 5_001)?,
        ..*overhead
    })
}

/// Everything the sampler learned about one workload.
#[derive(Debug, Clone)]
pub struct Measured {
    pub calibration: Calibration,
    pub samples: Vec<Sample>,
    pub summary: Summary,
    pub raw_summary: Summary,
    pub below_resolution: bool,
    pub culled: usize,
    pub times: OpTimes,
    pub counters: CounterDeltas,
    pub notes: Vec<String>,
}

/// What the sampler reads around each timed batch: the clock, the measuring thread's
/// involuntary context switches and the CPU it runs on. The real probe reads the kernel;
/// tests give a virtual one, so that the sampler's arithmetic (calibration, overhead
/// correction, culling, units) is checked exactly rather than against a busy machine's
/// clock.
pub trait Probe {
    fn now_ns(&self) -> u64;
    fn preemptions(&self) -> u64;
    fn cpu(&self) -> i32;
    /// The steal time of `cpu` so far, in seconds, where the kernel counts it.
    fn steal_s(&self, _cpu: i32) -> Option<f64> {
        None
    }
    /// The frequency of `cpu` now, in Hz, where the kernel exposes it.
    fn freq_hz(&self, _cpu: i32) -> Option<f64> {
        None
    }
}

/// The machine's own clock and counters.
pub struct RealProbe;

impl Probe for RealProbe {
    #[inline(always)]
    fn now_ns(&self) -> u64 {
        now_ns()
    }
    fn preemptions(&self) -> u64 {
        thread_preemptions()
    }
    fn cpu(&self) -> i32 {
        current_cpu()
    }
    fn steal_s(&self, cpu: i32) -> Option<f64> {
        super::disturb::steal_s(cpu)
    }
    fn freq_hz(&self, cpu: i32) -> Option<f64> {
        super::disturb::freq_hz(cpu)
    }
}

struct RawSample {
    ns: u64,
    preemptions: u64,
    cpu_start: i32,
    cpu_end: i32,
    steal_s: Option<f64>,
    freq_hz: Option<f64>,
}

/// What is read around the timed region besides the clock, for the samples kept (not
/// for calibration): steal, and the frequency where the kernel exposes it (decided once).
#[derive(Debug, Clone, Copy, Default)]
struct Around {
    steal: bool,
    freq: bool,
}

fn time_batch(w: &mut dyn Workload, k: u64, probe: &dyn Probe) -> Result<RawSample> {
    time_batch_around(w, k, probe, Around::default())
}

/// One timed batch. The steal of the starting CPU is read before and after, outside the
/// timed region (a CPU it moved to is not followed: the move culls the sample anyway).
fn time_batch_around(
    w: &mut dyn Workload,
    k: u64,
    probe: &dyn Probe,
    around: Around,
) -> Result<RawSample> {
    let c0 = probe.cpu();
    let s0 = around.steal.then(|| probe.steal_s(c0)).flatten();
    let p0 = probe.preemptions();
    let t0 = probe.now_ns();
    w.run(k)?;
    let t1 = probe.now_ns();
    let c1 = probe.cpu();
    let p1 = probe.preemptions();
    let s1 = around.steal.then(|| probe.steal_s(c0)).flatten();
    Ok(RawSample {
        ns: t1.saturating_sub(t0),
        preemptions: p1.saturating_sub(p0),
        cpu_start: c0,
        cpu_end: c1,
        // To the microsecond: the counters are whole ticks, their difference should read so.
        steal_s: s0
            .zip(s1)
            .map(|(a, b)| ((b - a) * 1e6).round().max(0.0) / 1e6),
        freq_hz: if around.freq { probe.freq_hz(c1) } else { None },
    })
}

/// The median duration of `tries` samples of zero operations, in seconds: seed 002's
/// calibration of its "event call", done through the same path as every real sample.
fn empty_sample_s(w: &mut dyn Workload, tries: usize) -> Result<f64> {
    let mut d = Vec::with_capacity(tries);
    for _ in 0..tries.max(1) {
        d.push(time_batch(w, 0, &RealProbe)?.ns as f64);
    }
    d.sort_by(|a, b| a.total_cmp(b));
    Ok(crate::model::stats::median_of_sorted(&d) * 1e-9)
}

/// The batch size whose run lasts about `target_ns`: double until a batch is long enough
/// to extrapolate from (an eighth of the target), then scale.
pub fn calibrate(w: &mut dyn Workload, target_ns: u64, probe: &dyn Probe) -> Result<u64> {
    calibrate_with(target_ns, |k| {
        w.before_sample(k)?;
        Ok(time_batch(w, k, probe)?.ns)
    })
}

/// [`calibrate`] with the timing of a batch of k operations given as a function: the seam
/// that lets tests check the arithmetic with exact, synthetic costs.
pub fn calibrate_with(target_ns: u64, mut time: impl FnMut(u64) -> Result<u64>) -> Result<u64> {
    let mut k: u64 = 1;
    loop {
        if interrupt::requested() {
            return Err(Interrupted.into());
        }
        let t = time(k)?.max(1);
        if t >= target_ns {
            return Ok(k);
        }
        if t >= target_ns / 8 {
            let scaled = (k as f64 * target_ns as f64 / t as f64).ceil() as u64;
            return Ok(scaled.max(k));
        }
        if k >= 1 << 40 {
            bail!("cannot calibrate: {k} operations took only {t} ns");
        }
        // Jump faster while the batch is far too short.
        k = if t < target_ns / 1000 { k * 16 } else { k * 2 };
    }
}

/// Sample `w` as `plan` says and summarise the result in `metric`'s unit.
pub fn measure(
    w: &mut dyn Workload,
    plan: &Plan,
    metric: &Metric,
    overhead: &Overhead,
) -> Result<Measured> {
    measure_with(w, plan, metric, overhead, &RealProbe)
}

/// [`measure`] reading time, preemptions and CPU through `probe`.
pub fn measure_with(
    w: &mut dyn Workload,
    plan: &Plan,
    metric: &Metric,
    overhead: &Overhead,
    probe: &dyn Probe,
) -> Result<Measured> {
    let (k, calibrated) = match plan.batch {
        Batch::Calibrated => (calibrate(w, plan.target.as_nanos() as u64, probe)?, true),
        Batch::Fixed(k) => {
            if plan.warmup {
                w.before_sample(k)?;
                w.run(k)?;
            }
            (k.max(1), false)
        }
    };
    let loop_s = if plan.subtract_loop {
        overhead.per_iter_s
    } else {
        0.0
    };

    let wanted = plan.samples.max(1);
    let limit = if plan.resample { 3 * wanted } else { wanted };
    let around = Around {
        steal: true,
        freq: probe.freq_hz(probe.cpu()).is_some(),
    };
    let before = Snapshot::take();
    let mut raw = Vec::with_capacity(limit);
    let mut clean = 0;
    // User and system time of the timed batches alone: what `before_sample` does untimed
    // (dropping the caches before a cold lookup, making the files unlink will delete)
    // is no part of an operation's CPU time either.
    let mut usage = Usage::default();
    while raw.len() < limit && clean < wanted {
        if interrupt::requested() {
            return Err(Interrupted.into());
        }
        w.before_sample(k)?;
        let u0 = rusage::process_and_children();
        let s = time_batch_around(w, k, probe, around)?;
        usage = usage.plus(&rusage::process_and_children().since(&u0));
        if !s.perturbed() {
            clean += 1;
        }
        raw.push(s);
        if raw.len() >= wanted && !can_still_reach(wanted, clean, raw.len(), limit) {
            break;
        }
    }
    let after = Snapshot::take();

    let per_op_raw: Vec<f64> = raw.iter().map(|s| s.ns as f64 * 1e-9 / k as f64).collect();
    let per_op_corrected: Vec<f64> = per_op_raw
        .iter()
        .map(|r| r - overhead.clock_s / k as f64 - loop_s)
        .collect();

    let mut notes = Vec::new();
    let keep = if plan.cull {
        cull(&raw, (wanted / 2).max(3), &mut notes)
    } else {
        vec![true; raw.len()]
    };
    let culled = raw.len() - keep.iter().filter(|&&x| x).count();
    let kept = |v: &[f64]| -> Vec<f64> {
        v.iter()
            .zip(&keep)
            .filter(|(_, &k)| k)
            .map(|(x, _)| *x)
            .collect()
    };
    let corrected_median = Summary::from_values(&kept(&per_op_corrected))?.median;
    let below_resolution = corrected_median <= 0.0;
    if below_resolution {
        notes.push(format!(
            "below resolution: the operation costs less than the clock and loop overhead \
             ({:.2} ns per sample, {:.3} ns per iteration); raw figure shown",
            overhead.clock_s * 1e9,
            loop_s * 1e9
        ));
    }
    let chosen = if below_resolution {
        &per_op_raw
    } else {
        &per_op_corrected
    };
    let values: Vec<f64> = chosen.iter().map(|&s| in_unit(s, metric)).collect();
    let raw_values: Vec<f64> = per_op_raw.iter().map(|&s| in_unit(s, metric)).collect();

    let samples = raw
        .iter()
        .zip(&values)
        .zip(&keep)
        .map(|((r, &value), &kept)| Sample {
            value,
            preemptions: r.preemptions,
            cpu_start: r.cpu_start,
            cpu_end: r.cpu_end,
            culled: !kept,
            invocation: None,
            steal_s: r.steal_s,
            freq_hz: r.freq_hz,
        })
        .collect();

    let ops = k * raw.len() as u64;
    let elapsed: f64 = raw.iter().map(|s| s.ns as f64 * 1e-9).sum();
    Ok(Measured {
        calibration: Calibration {
            batch: k,
            calibrated,
            target_s: plan.target.as_secs_f64(),
            clock_overhead_s: overhead.clock_s,
            loop_overhead_s: loop_s,
        },
        samples,
        summary: Summary::from_values(&kept(&values))?,
        raw_summary: Summary::from_values(&kept(&raw_values))?,
        below_resolution,
        culled,
        times: OpTimes {
            ops,
            elapsed_s: elapsed / ops as f64,
            user_s: usage.user_s / ops as f64,
            system_s: usage.system_s / ops as f64,
        },
        counters: before.delta(&after),
        notes,
    })
}

/// Replace the timed figures of `m` by a workload's own (see [`OwnFigures`]): each
/// sample's value, both summaries and the per-operation times. Refused when the workload
/// gives a different number of values than samples were taken.
pub fn restate(m: &mut Measured, own: OwnFigures) -> Result<()> {
    if own.values.len() != m.samples.len() {
        bail!(
            "the row gave {} figures for {} samples",
            own.values.len(),
            m.samples.len()
        );
    }
    for (s, v) in m.samples.iter_mut().zip(&own.values) {
        s.value = *v;
    }
    let kept: Vec<f64> = m
        .samples
        .iter()
        .filter(|s| !s.culled)
        .map(|s| s.value)
        .collect();
    m.summary = Summary::from_values(&kept)?;
    m.raw_summary = m.summary.clone();
    m.below_resolution = false;
    m.times = own.times;
    m.notes.push(own.note);
    Ok(())
}

/// How many single calls a row timed one by one takes: cheap in quick mode (a few ms of
/// system calls), enough in full mode for a steady SD. Odd, so the median is one call.
pub fn single_call_count(mode: Mode) -> usize {
    match mode {
        Mode::Quick => 2_001,
        Mode::Full => 10_001,
    }
}

/// Seed 002's way of timing: `n` operations, each between two clock reads of its own, the
/// clock's cost (an empty timed region) and, with `subtract_loop`, one loop iteration taken
/// from each. A call cheaper than the clock's jitter may come out negative; it is kept,
/// so that the mean is not biased upwards by dropping it.
pub fn single_calls(
    w: &mut dyn Workload,
    n: usize,
    overhead: &Overhead,
    subtract_loop: bool,
) -> Result<SingleCalls> {
    single_calls_with(w, n, overhead, subtract_loop, &RealProbe)
}

/// [`single_calls`] reading time through `probe`.
pub fn single_calls_with(
    w: &mut dyn Workload,
    n: usize,
    overhead: &Overhead,
    subtract_loop: bool,
    probe: &dyn Probe,
) -> Result<SingleCalls> {
    let subtracted_s = overhead.clock_s
        + if subtract_loop {
            overhead.per_iter_s
        } else {
            0.0
        };
    let mut values = Vec::with_capacity(n);
    for _ in 0..n.max(1) {
        if interrupt::requested() {
            return Err(Interrupted.into());
        }
        w.before_sample(1)?;
        let start = probe.now_ns();
        w.run(1)?;
        let end = probe.now_ns();
        values.push(end.saturating_sub(start) as f64 * 1e-9 - subtracted_s);
    }
    let s = Summary::from_values(&values)?;
    Ok(SingleCalls {
        n: values.len(),
        subtracted_s,
        median_s: s.median,
        mean_s: s.mean,
        sd_s: s.sd,
    })
}

/// Seconds per operation in the metric's unit (bytes/s for throughput rows).
fn in_unit(per_op_s: f64, metric: &Metric) -> f64 {
    match (metric.unit, metric.bytes_per_op) {
        (Unit::BytesPerSecond, Some(bytes)) if per_op_s > 0.0 => bytes as f64 / per_op_s,
        (Unit::BytesPerSecond, _) => 0.0,
        _ => per_op_s,
    }
}

/// After `taken` samples of which `clean` were unperturbed, can `wanted` clean ones still be
/// had within `limit` samples at the clean rate seen so far? When the machine perturbs
/// nearly every sample, more samples only cost time.
fn can_still_reach(wanted: usize, clean: usize, taken: usize, limit: usize) -> bool {
    if clean >= wanted {
        return false;
    }
    if clean == 0 {
        return false;
    }
    let rate = clean as f64 / taken as f64;
    taken as f64 + (wanted - clean) as f64 / rate <= limit as f64
}

/// Which samples to keep: the unperturbed ones (no preemption, no migration), provided at
/// least `min_clean` of them remain; otherwise all, with a note saying so.
pub fn cull(raw: &[impl Perturbation], min_clean: usize, notes: &mut Vec<String>) -> Vec<bool> {
    let clean: Vec<bool> = raw.iter().map(|s| !s.perturbed()).collect();
    let n_clean = clean.iter().filter(|&&c| c).count();
    if n_clean >= min_clean.min(raw.len()) {
        clean
    } else {
        notes.push(format!(
            "{}/{} samples perturbed, too few clean to cull: all kept",
            raw.len() - n_clean,
            raw.len()
        ));
        vec![true; raw.len()]
    }
}

/// Whether a sample was disturbed by the scheduler.
pub trait Perturbation {
    fn perturbed(&self) -> bool;
}

impl Perturbation for RawSample {
    fn perturbed(&self) -> bool {
        self.preemptions > 0 || self.cpu_start != self.cpu_end
    }
}

#[cfg(test)]
mod tests;
