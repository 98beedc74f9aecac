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
mod tests {
    use super::*;

    fn sample(preemptions: u64, cpu_start: i32, cpu_end: i32) -> RawSample {
        RawSample {
            ns: 100,
            preemptions,
            cpu_start,
            cpu_end,
            steal_s: None,
            freq_hz: None,
        }
    }

    #[test]
    fn culling_removes_a_preempted_sample() {
        let raw = vec![
            sample(0, 0, 0),
            sample(1, 0, 0),
            sample(0, 0, 0),
            sample(0, 0, 0),
        ];
        let mut notes = Vec::new();
        assert_eq!(cull(&raw, 3, &mut notes), vec![true, false, true, true]);
        assert!(notes.is_empty());
    }

    #[test]
    fn culling_removes_a_migrated_sample() {
        let raw = vec![
            sample(0, 0, 0),
            sample(0, 0, 1),
            sample(0, 1, 1),
            sample(0, 1, 1),
        ];
        let mut notes = Vec::new();
        assert_eq!(cull(&raw, 3, &mut notes), vec![true, false, true, true]);
    }

    /// Moves itself to another CPU during its third call: a migration the sampler must see.
    struct MigrateOnce {
        calls: u32,
        cpus: Vec<usize>,
    }
    impl Workload for MigrateOnce {
        fn run(&mut self, _n: u64) -> Result<()> {
            self.calls += 1;
            if self.calls == 3 {
                let here = current_cpu() as usize;
                let other = *self.cpus.iter().find(|&&c| c != here).unwrap();
                crate::harness::cpu::pin_to(&[other])?;
            }
            Ok(())
        }
    }

    #[test]
    fn a_migrated_sample_is_culled_and_replaced() {
        let cpus = crate::harness::cpu::usable_cpus();
        if cpus.len() < 2 {
            eprintln!("one usable CPU: no migration possible, nothing checked");
            return;
        }
        let start = current_cpu() as usize;
        crate::harness::cpu::pin_to(&[start]).unwrap();
        let mut w = MigrateOnce {
            calls: 0,
            cpus: cpus.clone(),
        };
        let mut plan = Plan::fixed(1, 5);
        plan.warmup = false;
        let m = measure(&mut w, &plan, &Metric::latency(), &Overhead::none()).unwrap();
        crate::harness::cpu::pin_to(&cpus).unwrap();
        let migrated: Vec<_> = m
            .samples
            .iter()
            .filter(|s| s.cpu_start != s.cpu_end)
            .collect();
        assert!(!migrated.is_empty(), "{:?}", m.samples);
        assert!(migrated.iter().all(|s| s.culled));
        assert_eq!(m.summary.n, 5, "five clean samples after replacement");
        assert!(m.culled >= 1);
    }

    /// Burns CPU untimed before each sample and does nothing in the timed batch.
    struct CostlySetUp {
        burned_s: f64,
    }
    impl Workload for CostlySetUp {
        fn run(&mut self, _n: u64) -> Result<()> {
            Ok(())
        }
        fn before_sample(&mut self, _n: u64) -> Result<()> {
            let start = rusage::this_thread().cpu_s();
            let mut x = 0u64;
            while rusage::this_thread().cpu_s() - start < 0.02 {
                x = black_box(x.wrapping_add(1));
            }
            self.burned_s += rusage::this_thread().cpu_s() - start;
            Ok(())
        }
    }

    #[test]
    fn the_cpu_time_of_untimed_set_up_is_not_charged_to_the_operations() {
        // The charge is the whole process's CPU during the timed batches: the other tests,
        // on other threads of this process, would be charged with it whenever this one is
        // preempted inside a batch. So the check runs alone, in a child of its own.
        const NAME: &str = "harness::sampler::tests::\
                            the_cpu_time_of_untimed_set_up_is_not_charged_to_the_operations";
        if std::env::var_os("TIMESHARE_TEST_ALONE").is_none() {
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", NAME, "--test-threads=1"])
                .env("TIMESHARE_TEST_ALONE", "1")
                .output()
                .unwrap();
            let said = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(out.status.success() && said.contains("1 passed"), "{said}");
            return;
        }
        let mut w = CostlySetUp { burned_s: 0.0 };
        let mut plan = Plan::fixed(1, 5);
        plan.warmup = false;
        let m = measure(&mut w, &plan, &Metric::latency(), &Overhead::none()).unwrap();
        let charged = (m.times.user_s + m.times.system_s) * m.times.ops as f64;
        assert!(w.burned_s >= 0.1, "{}", w.burned_s);
        // The empty batches cost microseconds; a whole set-up's 20 ms would show.
        assert!(
            charged < 0.5 * w.burned_s / 5.0,
            "{charged} s charged of {} s burned untimed",
            w.burned_s
        );
    }

    #[test]
    fn resampling_goes_on_only_while_it_can_succeed() {
        // 21 wanted, limit 63: 15 clean of 21 → 6 more at 71% ≈ 8.4 samples: go on.
        assert!(can_still_reach(21, 15, 21, 63));
        // 2 clean of 21 → 19 more at 9.5% ≈ 200 samples: stop.
        assert!(!can_still_reach(21, 2, 21, 63));
        assert!(!can_still_reach(21, 0, 21, 63));
        assert!(!can_still_reach(21, 21, 25, 63));
    }

    #[test]
    fn culling_keeps_everything_when_too_few_are_clean() {
        let raw = vec![
            sample(1, 0, 0),
            sample(2, 0, 0),
            sample(0, 0, 0),
            sample(1, 0, 0),
        ];
        let mut notes = Vec::new();
        assert_eq!(cull(&raw, 2, &mut notes), vec![true; 4]);
        assert!(notes[0].contains("3/4 samples perturbed"), "{notes:?}");
    }

    #[test]
    fn calibration_scales_with_the_cost_of_an_operation() {
        // Twice the cost per operation → half the batch for the same target.
        let target = 2_000_000;
        for per_op in [7u64, 20, 333, 20_000, 1_500_000] {
            let k1 = calibrate_with(target, |k| Ok(k * per_op)).unwrap();
            let k2 = calibrate_with(target, |k| Ok(k * 2 * per_op)).unwrap();
            let ratio = k1 as f64 / k2 as f64;
            assert!(
                (1.9..2.1).contains(&ratio) || k2 == 1,
                "{per_op} ns: {k1} vs {k2}"
            );
            // The chosen batch lasts the target, within the rounding of one operation.
            assert!(
                k1 * per_op >= target && (k1 - 1) * per_op < target,
                "{per_op}: k = {k1}"
            );
        }
    }

    #[test]
    fn calibration_gives_up_on_free_operations() {
        let err = calibrate_with(1_000_000, |_| Ok(0)).unwrap_err();
        assert!(err.to_string().contains("cannot calibrate"), "{err}");
    }

    /// Virtual time: a clock that only the workload and the clock reads advance, with
    /// preemptions and CPU moves injected on chosen samples. The sampler reads it through
    /// the same [`Probe`] seam as the real clock.
    #[derive(Default)]
    struct Virtual {
        now: std::cell::Cell<u64>,
        /// What one clock read costs, in virtual ns (seed 002's event call).
        read_cost: u64,
        preemptions: std::cell::Cell<u64>,
        cpu: std::cell::Cell<i32>,
        /// Steal of every CPU so far, in virtual seconds.
        steal: std::cell::Cell<f64>,
        /// The CPU's frequency, where this virtual kernel exposes one.
        freq_hz: Option<f64>,
    }

    impl Probe for Virtual {
        fn now_ns(&self) -> u64 {
            let t = self.now.get();
            self.now.set(t + self.read_cost);
            t
        }
        fn preemptions(&self) -> u64 {
            self.preemptions.get()
        }
        fn cpu(&self) -> i32 {
            self.cpu.get()
        }
        fn steal_s(&self, _cpu: i32) -> Option<f64> {
            Some(self.steal.get())
        }
        fn freq_hz(&self, _cpu: i32) -> Option<f64> {
            self.freq_hz
        }
    }

    /// A workload whose operations cost exactly `per_op` virtual ns; on the calls listed in
    /// `preempt_on` (1-based) the thread is preempted once.
    struct Exact<'a> {
        clock: &'a Virtual,
        per_op: u64,
        calls: u32,
        preempt_on: Vec<u32>,
        /// Calls during which the hypervisor steals one 10 ms tick.
        steal_on: Vec<u32>,
    }

    impl Workload for Exact<'_> {
        fn run(&mut self, n: u64) -> Result<()> {
            self.calls += 1;
            self.clock.now.set(self.clock.now.get() + n * self.per_op);
            if self.preempt_on.contains(&self.calls) {
                self.clock.preemptions.set(self.clock.preemptions.get() + 1);
            }
            if self.steal_on.contains(&self.calls) {
                self.clock.steal.set(self.clock.steal.get() + 0.01);
            }
            Ok(())
        }
    }

    fn exact(clock: &Virtual, per_op: u64) -> Exact<'_> {
        Exact {
            clock,
            per_op,
            calls: 0,
            preempt_on: Vec::new(),
            steal_on: Vec::new(),
        }
    }

    /// The clock's overhead as the runner would have measured it: one read.
    fn overhead_of(clock: &Virtual, per_iter_ns: f64) -> Overhead {
        Overhead {
            clock_s: clock.read_cost as f64 * 1e-9,
            per_iter_s: per_iter_ns * 1e-9,
            resolution_s: 1e-9,
        }
    }

    #[test]
    fn a_workload_s_own_figures_replace_the_timed_ones_sample_for_sample() {
        // A batch of copies lasting 1 s whose copies averaged 0.6 s: the figure is 0.6 s.
        let clock = Virtual::default();
        let mut m = measure_with(
            &mut exact(&clock, 1_000_000_000),
            &Plan::job(crate::model::Mode::Quick),
            &Metric::job(),
            &overhead_of(&clock, 0.0),
            &clock,
        )
        .unwrap();
        assert_eq!(m.samples.len(), 3);
        assert!((m.summary.median - 1.0).abs() < 1e-9);
        let times = OpTimes {
            ops: 6,
            elapsed_s: 0.6,
            user_s: 0.5,
            system_s: 0.1,
        };
        let own = |values: Vec<f64>| OwnFigures {
            values,
            times: times.clone(),
            note: "per copy".into(),
        };
        assert!(
            restate(&mut m, own(vec![0.6, 0.7])).is_err(),
            "one figure short"
        );
        restate(&mut m, own(vec![0.6, 0.5, 0.7])).unwrap();
        assert_eq!(
            m.samples.iter().map(|s| s.value).collect::<Vec<_>>(),
            vec![0.6, 0.5, 0.7]
        );
        assert!((m.summary.median - 0.6).abs() < 1e-12);
        assert!((m.summary.mean - 0.6).abs() < 1e-12);
        assert_eq!(m.times, times);
        assert!(m.notes.contains(&"per copy".to_string()));
    }

    #[test]
    fn steal_during_a_sample_is_recorded_on_that_sample_and_frequency_where_exposed() {
        let clock = Virtual::default();
        let mut w = exact(&clock, 100);
        // Call 1 is the warm-up; calls 3 and 6 are the second and fifth samples.
        w.steal_on = vec![3, 6];
        let m = measure_with(
            &mut w,
            &Plan::fixed(10, 6),
            &Metric::latency(),
            &overhead_of(&clock, 0.0),
            &clock,
        )
        .unwrap();
        let steal: Vec<Option<f64>> = m.samples.iter().map(|s| s.steal_s).collect();
        let tick = Some(0.01);
        assert_eq!(
            steal,
            vec![Some(0.0), tick, Some(0.0), Some(0.0), tick, Some(0.0)]
        );
        assert!(m.samples.iter().all(|s| s.freq_hz.is_none()));
        let clock = Virtual {
            freq_hz: Some(2.4e9),
            ..Default::default()
        };
        let m = measure_with(
            &mut exact(&clock, 100),
            &Plan::fixed(10, 3),
            &Metric::latency(),
            &overhead_of(&clock, 0.0),
            &clock,
        )
        .unwrap();
        assert!(m.samples.iter().all(|s| s.freq_hz == Some(2.4e9)));
    }

    #[test]
    fn the_corrected_figure_is_the_operation_itself() {
        // 100 ns of work + 3 ns of loop per operation, 40 ns per clock read: the sampler
        // must subtract one read per sample and the loop per operation, and nothing else.
        let clock = Virtual {
            read_cost: 40,
            ..Default::default()
        };
        let m = measure_with(
            &mut exact(&clock, 103),
            &Plan::fixed(50, 9),
            &Metric::latency(),
            &overhead_of(&clock, 3.0),
            &clock,
        )
        .unwrap();
        assert!(
            (m.summary.median - 100e-9).abs() < 1e-15,
            "{}",
            m.summary.median
        );
        assert!((m.raw_summary.median - (50.0 * 103.0 + 40.0) / 50.0 * 1e-9).abs() < 1e-15);
        assert_eq!((m.summary.n, m.culled, m.calibration.batch), (9, 0, 50));
        assert!(!m.below_resolution);
    }

    #[test]
    fn twice_the_work_is_twice_the_figure_exactly() {
        let figure = |per_op| {
            let clock = Virtual {
                read_cost: 25,
                ..Default::default()
            };
            let m = measure_with(
                &mut exact(&clock, per_op),
                &Plan::calibrated(crate::model::Mode::Quick),
                &Metric::latency(),
                &overhead_of(&clock, 0.0),
                &clock,
            )
            .unwrap();
            (m.summary.median, m.calibration.batch)
        };
        let (one, k1) = figure(500);
        let (two, k2) = figure(1000);
        assert!((two / one - 2.0).abs() < 1e-9, "{one} vs {two}");
        // The calibrated batch halves with twice the cost, and lasts the 2 ms target.
        assert!((k1 as f64 / k2 as f64 - 2.0).abs() < 0.01, "{k1} vs {k2}");
        assert!(k1 * 500 >= 2_000_000);
    }

    #[test]
    fn a_preempted_sample_is_culled_and_replaced() {
        let clock = Virtual::default();
        let mut w = exact(&clock, 10);
        // Call 1 is the warm-up; calls 3 and 6 are the second and fifth samples.
        w.preempt_on = vec![3, 6];
        let m = measure_with(
            &mut w,
            &Plan::fixed(10, 7),
            &Metric::latency(),
            &overhead_of(&clock, 0.0),
            &clock,
        )
        .unwrap();
        assert_eq!(m.culled, 2);
        assert_eq!(m.summary.n, 7, "seven clean samples after replacement");
        assert_eq!(m.samples.len(), 9);
        let culled: Vec<usize> = (0..9).filter(|&i| m.samples[i].culled).collect();
        assert_eq!(culled, [1, 4]);
    }

    #[test]
    fn a_partnered_plan_keeps_its_preempted_samples() {
        let clock = Virtual::default();
        let mut w = exact(&clock, 10);
        w.preempt_on = vec![2, 3];
        let mut plan = Plan::fixed(10, 5);
        plan.cull = false;
        plan.resample = false;
        let m = measure_with(
            &mut w,
            &plan,
            &Metric::latency(),
            &overhead_of(&clock, 0.0),
            &clock,
        )
        .unwrap();
        assert_eq!((m.culled, m.summary.n, m.samples.len()), (0, 5, 5));
    }

    #[test]
    fn an_operation_cheaper_than_the_overhead_is_below_resolution() {
        // 2 ns of work against a 3 ns loop correction: the corrected figure would be
        // negative, so the raw one is shown and the row says so.
        let clock = Virtual {
            read_cost: 30,
            ..Default::default()
        };
        let m = measure_with(
            &mut exact(&clock, 2),
            &Plan::fixed(100, 5),
            &Metric::latency(),
            &overhead_of(&clock, 3.0),
            &clock,
        )
        .unwrap();
        assert!(m.below_resolution);
        assert!((m.summary.median - (200.0 + 30.0) / 100.0 * 1e-9).abs() < 1e-15);
        assert!(m.notes.iter().any(|n| n.contains("below resolution")));
    }

    #[test]
    fn throughput_is_bytes_over_the_corrected_time() {
        // 1000 bytes per 100 ns = 10 GB/s, once the clock read is subtracted.
        let clock = Virtual {
            read_cost: 50,
            ..Default::default()
        };
        let m = measure_with(
            &mut exact(&clock, 100),
            &Plan::fixed(10, 5),
            &Metric::throughput(1000),
            &Overhead {
                per_iter_s: 0.0,
                ..overhead_of(&clock, 0.0)
            },
            &clock,
        )
        .unwrap();
        assert!(
            (m.summary.median - 10e9).abs() < 1.0,
            "{}",
            m.summary.median
        );
    }

    #[test]
    fn single_calls_take_the_clock_and_the_loop_from_each_call() {
        // Each call costs 300 virtual ns; each clock read 40, each loop iteration 2 (of
        // which the virtual workload has none, so the figure is 2 ns short: it shows the
        // subtraction happened).
        let clock = Virtual {
            read_cost: 40,
            ..Virtual::default()
        };
        let s = single_calls_with(
            &mut exact(&clock, 300),
            101,
            &overhead_of(&clock, 2.0),
            true,
            &clock,
        )
        .unwrap();
        assert_eq!(s.n, 101);
        assert!((s.subtracted_s - 42e-9).abs() < 1e-15, "{s:?}");
        assert!((s.mean_s - 298e-9).abs() < 1e-12, "{s:?}");
        assert!((s.median_s - 298e-9).abs() < 1e-12, "{s:?}");
        assert!(
            s.sd_s.abs() < 1e-12,
            "identical calls have no spread: {s:?}"
        );
    }

    #[test]
    fn single_calls_spread_is_the_calls_not_a_batch_mean_s() {
        // Calls alternating 100 and 500 ns: a batch of two would always read 300 ns (no
        // spread); one by one the SD is that of {100, 500}.
        struct Alternating<'a> {
            clock: &'a Virtual,
            calls: u64,
        }
        impl Workload for Alternating<'_> {
            fn run(&mut self, n: u64) -> Result<()> {
                for _ in 0..n {
                    self.calls += 1;
                    let cost = if self.calls.is_multiple_of(2) {
                        500
                    } else {
                        100
                    };
                    self.clock.now.set(self.clock.now.get() + cost);
                }
                Ok(())
            }
        }
        let clock = Virtual::default();
        let s = single_calls_with(
            &mut Alternating {
                clock: &clock,
                calls: 0,
            },
            1000,
            &overhead_of(&clock, 0.0),
            false,
            &clock,
        )
        .unwrap();
        assert!((s.mean_s - 300e-9).abs() < 1e-12, "{s:?}");
        // Sample SD of 500 values of 100 and 500 of 500 (n − 1 denominator).
        let expected = 200e-9 * (1000.0f64 / 999.0).sqrt();
        assert!((s.sd_s - expected).abs() < 1e-12, "{s:?}");
    }
}
