//! The sampler's arithmetic on virtual time (the `Probe` seam): exact, whatever the
//! machine is doing.

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
