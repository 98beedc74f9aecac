//! The verdicts of one run against another: every id both measured, tested together by
//! the model's one rule, with what the table's footnote says of how they were tested.

use crate::model::agreement;
use crate::model::change::{self, Verdict};

use super::cell::figures3;
use super::Column;

/// The verdicts of one run column against the first, decided together: one test per id
/// that both have a measured figure for, then the Benjamini–Hochberg correction over
/// all of them, then the effect-size threshold.
pub(super) struct Decisions {
    /// Per id: the verdict's text.
    pub(super) verdicts: Vec<(String, String)>,
    pub(super) tested: usize,
    pub(super) changed: usize,
    /// How many tests were at the process level, and how many on samples.
    pub(super) at_invocations: usize,
    pub(super) at_samples: usize,
    /// The bounds (as ratios, e.g. 1.07) of the tests also held against a run-to-run
    /// spread learned from earlier runs.
    pub(super) run_bounds: Vec<f64>,
}

impl Decisions {
    pub(super) fn of(id: &str, list: &[(String, String)]) -> Option<String> {
        list.iter().find(|(i, _)| i == id).map(|(_, v)| v.clone())
    }
}

impl Decisions {
    /// At which level the ids were tested: processes, samples, or some of each.
    pub(super) fn level_text(&self) -> String {
        match (self.at_invocations, self.at_samples) {
            (0, 0) => String::new(),
            (_, 0) => " (all at the process level)".to_string(),
            (0, _) => format!(
                " (all on samples: a run needs {} processes for the process level)",
                change::MIN_INVOCATIONS
            ),
            (i, s) => format!(" ({i} at the process level, {s} on samples)"),
        }
    }

    /// Whether the tests were also held against the run-to-run spread learned from
    /// earlier runs, and how wide that made the bound.
    pub(super) fn runs_text(&self) -> String {
        let (lo, hi) = self
            .run_bounds
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), &b| {
                (lo.min(b), hi.max(b))
            });
        let range = if hi - lo < 0.005 {
            format!("×{}", figures3(hi))
        } else {
            format!("×{} to ×{}", figures3(lo), figures3(hi))
        };
        match self.run_bounds.len() {
            0 if self.tested > 0 => "none against how far this machine's runs differ: \
                 neither run learned that from earlier runs like it (the first runs on a \
                 machine, or sides measured alternately as `ab` does)"
                .to_string(),
            0 => String::new(),
            n => format!(
                "{n} of them also against how far this machine's earlier runs differed (a \
                 change must exceed {range})"
            ),
        }
    }
}

/// Joins a verdict and why it was reached state for state ([`change::StateMatch`]); the
/// table prints the verdict, "state for state", and the why under the table.
pub(super) const STATE_FOR_STATE: &str = "; state for state: ";

/// The verdicts of `other` against `first` over `ids`, decided by the model's one rule
/// (`model::agreement::decide`: the same ids tested and corrected together as every A/A
/// check and detection figure counts them). Only two runs carry samples to test.
pub(super) fn decide(first: &Column, other: &Column, ids: &[String], min_effect: f64) -> Decisions {
    let decided: Vec<agreement::Decided> = match (first, other) {
        (Column::Run { run: a, .. }, Column::Run { run: b, .. }) => {
            agreement::decide_runs(a, b, min_effect)
                .into_iter()
                .filter(|d| ids.contains(&d.id))
                .collect()
        }
        _ => Vec::new(),
    };
    let mut d = Decisions {
        verdicts: Vec::new(),
        tested: decided.len(),
        changed: 0,
        at_invocations: 0,
        at_samples: 0,
        run_bounds: Vec::new(),
    };
    for agreement::Decided {
        id, verdict, test, ..
    } in decided
    {
        let t = &test;
        match t.level {
            change::Level::Invocations => d.at_invocations += 1,
            change::Level::Samples => d.at_samples += 1,
        }
        if let Some(bound) = t.run_bound {
            d.run_bounds.push(bound.exp());
        }
        let v = verdict;
        let mut text = match v {
            Verdict::Faster | Verdict::Slower => {
                d.changed += 1;
                format!("{} (p = {:.1e})", v.describe(), t.p_value)
            }
            v => v.describe().to_string(),
        };
        if let Some(states) = t.states {
            text = format!("{text}{STATE_FOR_STATE}{}", states.describe());
        }
        d.verdicts.push((id, text));
    }
    d
}
