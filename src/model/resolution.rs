//! What a row's figure may be shown as: a measured figure, or only a bound, because it
//! is under one CPU cycle or under what the clock can resolve in one sample, or because
//! the correction took it below zero (a negative cost is never a cost). Pure.

use serde::{Deserialize, Serialize};

use super::{BenchResult, Overhead, Status, Unit};

/// How a row's headline is to be shown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shown {
    /// A figure that was resolved: print it.
    Figure(f64),
    /// Under one CPU cycle (the bound, in seconds).
    BelowCycle(f64),
    /// Under the clock's resolution for one sample's batch (the bound, in seconds per op).
    BelowClock(f64),
    /// Zero or less after correction: no cost was resolved.
    NotPositive,
}

impl Shown {
    /// The median may be printed as a measured figure.
    pub fn is_figure(&self) -> bool {
        matches!(self, Shown::Figure(_))
    }

    /// The classification's name, for CSV and scripts: `measured`, `below_cycle`,
    /// `below_clock` or `not_positive`.
    pub fn kind(&self) -> &'static str {
        match self {
            Shown::Figure(_) => "measured",
            Shown::BelowCycle(_) => "below_cycle",
            Shown::BelowClock(_) => "below_clock",
            Shown::NotPositive => "not_positive",
        }
    }

    /// The upper bound in seconds per operation of a figure not resolved.
    pub fn bound_s(&self) -> Option<f64> {
        match self {
            Shown::BelowCycle(b) | Shown::BelowClock(b) => Some(*b),
            Shown::Figure(_) | Shown::NotPositive => None,
        }
    }

    /// Why only a bound is shown, in every printer's words; `None` for a figure.
    pub fn why(&self) -> Option<&'static str> {
        match self {
            Shown::Figure(_) => None,
            Shown::BelowCycle(_) => Some("below one CPU cycle: not resolved"),
            Shown::BelowClock(_) => Some("below the clock's resolution: not resolved"),
            Shown::NotPositive => Some("no positive cost resolved (the correction exceeds it)"),
        }
    }
}

/// How a result's figure is to be read, said explicitly in the JSON export and the fleet
/// view: every printer shows the rows that are not `measured` or `derived` as a bound or
/// not at all, never as a figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reading {
    /// A figure measured and resolved.
    Measured,
    /// A resolved figure computed from other rows of the run (e.g. `ctx.switch`).
    Derived,
    /// Under one CPU cycle: only the bound is known.
    BelowCycle,
    /// Under what the clock resolves in one sample: only the bound is known.
    BelowClock,
    /// Zero or less after the overhead correction: no cost was resolved.
    NotPositive,
    /// No figure at all (skipped, failed, or no clean sample).
    NoFigure,
}

/// A result's [`Reading`], with the bound and the reason where it is not a figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Classification {
    pub reading: Reading,
    /// The upper bound in the result's unit (seconds per operation), for `below_cycle`
    /// and `below_clock`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound_s: Option<f64>,
    /// Why the figure is not to be read as one, in the printers' words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// The classification of a stored result (see [`shown_stored`]).
pub fn classify(r: &BenchResult, mhz: Option<f64>) -> Classification {
    let shown = if r.status.is_ok() {
        shown_stored(r, mhz)
    } else {
        None
    };
    let reading = match shown {
        None => Reading::NoFigure,
        Some(Shown::Figure(_)) if r.derived => Reading::Derived,
        Some(Shown::Figure(_)) => Reading::Measured,
        Some(Shown::BelowCycle(_)) => Reading::BelowCycle,
        Some(Shown::BelowClock(_)) => Reading::BelowClock,
        Some(Shown::NotPositive) => Reading::NotPositive,
    };
    let why = match (shown, &r.status) {
        (Some(s), _) => s.why().map(str::to_string),
        (None, Status::Ok) => Some("no clean sample gave a figure".to_string()),
        (None, Status::Skipped { .. }) => Some("skipped".to_string()),
        (None, Status::Failed { .. }) => Some("failed".to_string()),
    };
    Classification {
        reading,
        bound_s: shown.and_then(|s| s.bound_s()),
        why,
    }
}

/// [`shown`] from what a stored run keeps: its CPU's frequency and the row's own
/// calibration. A run does not keep the clock's claimed resolution, so the floor is the
/// cost of the clock reads around a sample (the larger of the two on every machine seen).
pub fn shown_stored(r: &BenchResult, mhz: Option<f64>) -> Option<Shown> {
    let overhead = Overhead {
        clock_s: f64::NAN,
        per_iter_s: f64::NAN,
        resolution_s: 0.0,
    };
    shown(r, cycle_s(mhz), &overhead)
}

/// One cycle in seconds at `mhz`, when the frequency is known and plausible.
pub fn cycle_s(mhz: Option<f64>) -> Option<f64> {
    mhz.filter(|m| m.is_finite() && *m > 1.0).map(|m| 1e-6 / m)
}

/// Classify a row's median. Only time per operation is checked; other units are figures.
///
/// The clock's floor per operation is the larger of its claimed resolution and the cost
/// of the clock reads around a sample, divided by the operations in a sample: a batch of
/// one operation cheaper than reading the clock is timed by the clock's own jitter.
pub fn shown(r: &BenchResult, cycle: Option<f64>, overhead: &Overhead) -> Option<Shown> {
    let median = r.median()?;
    if r.unit != Unit::SecondsPerOp {
        return Some(Shown::Figure(median));
    }
    if median <= 0.0 {
        return Some(Shown::NotPositive);
    }
    let clock_floor = r.calibration.as_ref().map(|c| {
        let region = overhead.resolution_s.max(c.clock_overhead_s);
        region / c.batch.max(1) as f64
    });
    if let Some(floor) = clock_floor {
        if r.below_resolution || median < floor {
            return Some(Shown::BelowClock(floor));
        }
    }
    if let Some(c) = cycle {
        if median < c {
            return Some(Shown::BelowCycle(c));
        }
    }
    Some(Shown::Figure(median))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Calibration, Status, Summary};

    fn row(median: f64, batch: u64, below: bool) -> BenchResult {
        let mut r = BenchResult::new(
            "cpu.stmt.i32.assign",
            "cpu",
            "x",
            Unit::SecondsPerOp,
            crate::model::Better::Lower,
            None,
        );
        r.status = Status::Ok;
        r.summary = Some(Summary::from_values(&[median]).unwrap());
        r.below_resolution = below;
        r.calibration = Some(Calibration {
            batch,
            calibrated: batch > 1,
            target_s: 0.002,
            clock_overhead_s: 20e-9,
            loop_overhead_s: 0.3e-9,
        });
        r
    }

    const CLOCK: Overhead = Overhead {
        clock_s: 20e-9,
        per_iter_s: 0.3e-9,
        resolution_s: 1e-9,
    };
    const CYCLE: Option<f64> = Some(0.36e-9);

    #[test]
    fn under_one_cycle_is_a_bound_not_a_figure() {
        let r = row(0.08e-9, 1_000_000, false);
        assert_eq!(shown(&r, CYCLE, &CLOCK), Some(Shown::BelowCycle(0.36e-9)));
        let r = row(3.5e-9, 1_000_000, false);
        assert_eq!(shown(&r, CYCLE, &CLOCK), Some(Shown::Figure(3.5e-9)));
    }

    #[test]
    fn single_calls_cheaper_than_a_clock_read_are_below_the_clock() {
        // call.subroutine.single: one call per sample, 3 ns against a 20 ns clock read.
        let r = row(3e-9, 1, false);
        assert_eq!(shown(&r, CYCLE, &CLOCK), Some(Shown::BelowClock(20e-9)));
        // A fork timed one by one is far above it.
        let r = row(500e-6, 1, false);
        assert_eq!(shown(&r, CYCLE, &CLOCK), Some(Shown::Figure(500e-6)));
    }

    #[test]
    fn a_negative_or_zero_cost_is_never_a_figure() {
        let mut r = row(-192e-9, 1000, false);
        r.calibration = None;
        assert_eq!(shown(&r, CYCLE, &CLOCK), Some(Shown::NotPositive));
        assert_eq!(
            shown(&row(0.0, 1000, false), None, &CLOCK),
            Some(Shown::NotPositive)
        );
    }

    #[test]
    fn the_sampler_s_below_resolution_flag_is_a_bound() {
        let r = row(5e-9, 1_000_000, true);
        assert!(matches!(
            shown(&r, CYCLE, &CLOCK),
            Some(Shown::BelowClock(_))
        ));
    }

    #[test]
    fn the_cycle_comes_from_a_plausible_frequency_only() {
        assert_eq!(cycle_s(Some(2800.0)), Some(1e-6 / 2800.0));
        assert_eq!(cycle_s(Some(0.0)), None);
        assert_eq!(cycle_s(None), None);
    }
}
