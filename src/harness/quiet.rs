//! Is the machine quiet enough to measure? Seed 002 built "a quiet system ... no daemons or
//! other processes running". We cannot build one, but we can say when it is not.

use crate::model::environment::ClockRate;
use crate::model::unit::format_value;
use crate::model::{Environment, Summary, Unit};

/// The difference between CLOCK_MONOTONIC's rate and CLOCK_MONOTONIC_RAW's beyond which
/// the clock is being slewed harder than NTP ever slews it (500 ppm): every figure of the
/// run is then off by as much.
pub const SLEW_LIMIT_PPM: f64 = 1000.0;
/// The shortest comparison whose ppm is trusted: two pairs of reads 100 ms apart place the
/// rate within a fraction of a ppm; much shorter ones would be read noise.
pub const LEAST_CLOCK_WINDOW_S: f64 = 0.1;

/// What a run's clock-rate comparison says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ClockVerdict {
    /// Too short a window to tell.
    TooShort,
    /// Within [`SLEW_LIMIT_PPM`].
    Steady,
    /// Beyond it: the run's durations are biased by `ppm`.
    Slewed,
}

/// The verdict on a comparison of the two clocks.
pub fn classify_clock(rate: &ClockRate) -> ClockVerdict {
    if rate.window_s < LEAST_CLOCK_WINDOW_S {
        ClockVerdict::TooShort
    } else if rate.ppm.abs() > SLEW_LIMIT_PPM {
        ClockVerdict::Slewed
    } else {
        ClockVerdict::Steady
    }
}

/// The warning for a slewed clock, if the comparison shows one.
pub fn clock_rate_warning(rate: &ClockRate) -> Option<String> {
    (classify_clock(rate) == ClockVerdict::Slewed).then(|| {
        format!(
            "the clock was slewed during the run: CLOCK_MONOTONIC ran {:+.0} ppm against \
             CLOCK_MONOTONIC_RAW over {:.1} s (more than {SLEW_LIMIT_PPM:.0} ppm): every \
             figure of this run is off by as much",
            rate.ppm, rate.window_s
        )
    })
}

/// The row measured before and after a run to see whether the machine drifted: cheap,
/// one system call, and sensitive to what moves every figure (host scheduling, steal,
/// frequency, cache and TLB state after other work).
pub const REFERENCE: &str = "syscall.getpid";

/// The warning when the reference row's figure before the run and after it differ by
/// more than their two 95% intervals together allow (the intervals do not overlap):
/// the machine changed during the run by more than a within-run CI can show.
pub fn drift_warning(id: &str, unit: Unit, before: &Summary, after: &Summary) -> Option<String> {
    let apart = (after.median - before.median).abs();
    let allowed = (before.ci_high - before.ci_low) / 2.0 + (after.ci_high - after.ci_low) / 2.0;
    if before.median <= 0.0 || apart <= allowed {
        return None;
    }
    Some(format!(
        "the machine drifted during the run: {id} measured {} before and {} after \
         (±{:.1}% and ±{:.1}%), {:.1}% apart: more than the intervals allow, so figures of \
         this run can differ from another run's by more than their CIs say",
        format_value(before.median, unit),
        format_value(after.median, unit),
        before.relative_ci() * 100.0,
        after.relative_ci() * 100.0,
        apart / before.median * 100.0
    ))
}

/// Warnings about the state of the machine that will disturb the figures.
pub fn warnings(env: &Environment) -> Vec<String> {
    let mut w = Vec::new();
    let cpus = env.cpu.logical.max(1) as f64;
    if env.load_average[0] > 0.25 * cpus {
        w.push(format!(
            "load average {:.2} on {} CPUs: other work competes for the processor; \
             figures will be noisier",
            env.load_average[0], env.cpu.logical
        ));
    }
    if !env.busy_processes.is_empty() {
        w.push(format!(
            "other runnable processes: {}",
            crate::model::environment::few_processes(&env.busy_processes)
        ));
    }
    if let Some(g) = &env.governor {
        if g != "performance" {
            w.push(format!(
                "CPU frequency governor is '{g}', not 'performance': the clock rate may \
                 change during the run"
            ));
        }
    }
    if let Some(v) = &env.virtualization {
        w.push(format!(
            "running in a virtual machine ({v}): the hypervisor may steal time; \
             culled-sample counts show how much"
        ));
    }
    if let Some(q) = &env.cpu_quota {
        w.push(format!(
            "a cgroup CPU quota is set ({q}): throttling can stall samples"
        ));
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drift_beyond_both_intervals_is_warned_and_within_them_is_not() {
        let before = Summary::around(100e-9, 2e-9);
        // 3 ns apart, intervals ±2 ns each: they overlap; no warning.
        assert!(drift_warning(
            REFERENCE,
            Unit::SecondsPerOp,
            &before,
            &Summary::around(103e-9, 2e-9)
        )
        .is_none());
        // 12 ns apart: beyond 4 ns.
        let w = drift_warning(
            REFERENCE,
            Unit::SecondsPerOp,
            &before,
            &Summary::around(112e-9, 2e-9),
        )
        .unwrap();
        assert!(
            w.contains("syscall.getpid") && w.contains("12.0% apart"),
            "{w}"
        );
        assert!(drift_warning(
            REFERENCE,
            Unit::SecondsPerOp,
            &before,
            &Summary::around(88e-9, 2e-9)
        )
        .is_some());
    }

    #[test]
    fn a_quiet_machine_gets_no_warning_and_a_loaded_one_does() {
        let mut env = Environment::default();
        env.cpu.logical = 2;
        assert!(warnings(&env).is_empty());
        env.load_average = [1.9, 1.0, 0.5];
        env.governor = Some("powersave".into());
        let w = warnings(&env);
        assert!(w.iter().any(|m| m.contains("load average 1.90")));
        assert!(w.iter().any(|m| m.contains("powersave")));
    }

    #[test]
    fn many_runnable_processes_are_counted_and_the_busiest_named() {
        let mut env = Environment {
            busy_processes: (0..120).map(|i| format!("worker[{}]", 1000 + i)).collect(),
            ..Environment::default()
        };
        let w = warnings(&env);
        let line = w
            .iter()
            .find(|m| m.starts_with("other runnable processes"))
            .expect("a warning");
        assert!(line.contains("120, the busiest"), "{line}");
        assert!(
            line.contains("worker[1000]") && line.contains("and 115 more"),
            "{line}"
        );
        assert!(!line.contains("worker[1005]"), "{line}");
        assert!(line.len() < 200, "{line}");
        env.busy_processes.truncate(2);
        let w = warnings(&env);
        assert!(
            w.iter()
                .any(|m| m.ends_with("2: worker[1000], worker[1001]")),
            "{w:?}"
        );
    }

    #[test]
    fn the_clock_rate_is_classified_by_its_ppm_and_its_window() {
        let rate = |window_s: f64, ppm: f64| ClockRate { window_s, ppm };
        assert_eq!(classify_clock(&rate(5.0, 12.0)), ClockVerdict::Steady);
        assert_eq!(classify_clock(&rate(5.0, -999.0)), ClockVerdict::Steady);
        assert_eq!(classify_clock(&rate(5.0, 1500.0)), ClockVerdict::Slewed);
        assert_eq!(classify_clock(&rate(5.0, -1500.0)), ClockVerdict::Slewed);
        // A few ms cannot tell a slewed clock from read noise.
        assert_eq!(classify_clock(&rate(0.005, 5000.0)), ClockVerdict::TooShort);
        assert!(clock_rate_warning(&rate(5.0, 12.0)).is_none());
        let w = clock_rate_warning(&rate(2.0, -2500.0)).expect("slewed");
        assert!(w.contains("-2500 ppm") && w.contains("2.0 s"), "{w}");
    }

    #[test]
    fn the_clock_rate_is_the_monotonic_clock_s_excess_over_the_raw_one() {
        // 1 s of raw time in which the monotonic clock advanced 1.002 s: +2000 ppm.
        let r = ClockRate::between((10_000, 50_000), (1_002_010_000, 1_000_050_000)).unwrap();
        assert!((r.window_s - 1.0).abs() < 1e-12, "{r:?}");
        assert!((r.ppm - 2000.0).abs() < 1e-6, "{r:?}");
        // No raw time between the readings: nothing to compare.
        assert!(ClockRate::between((5, 7), (9, 7)).is_none());
    }
}
