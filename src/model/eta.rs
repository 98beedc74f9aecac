//! How long a run has left, from its plan: each row × process weighs what the newest
//! earlier run of this machine took for that row in one process, so that a row of
//! seconds (a load row, a network sweep) and a row of milliseconds (a system call) move
//! the bar by what they cost, not alike. The plan's seconds left are stretched by the
//! pace so far: rows running slower than they did before lengthen the estimate. The pace
//! starts at the plan's and is learned as rows finish (a quarter of the plan's seconds
//! weighs as done at the plan's pace), so that the first rows — the seconds of setting
//! up before them, a row that happened to be slow — do not swing the estimate.
//!
//! Without an earlier run every row weighs alike (the median of those known, or one
//! second), and the estimate is the rows left at the rate of the rows done.

use std::collections::BTreeMap;

/// The share of the plan's seconds counted as done at the plan's own pace when the pace
/// so far is reckoned.
pub const PRIOR: f64 = 0.25;

/// The work of a run and how much of it is done, in expected seconds.
#[derive(Debug, Clone)]
pub struct PlanEta {
    /// Seconds one process took for each row in the newest earlier run.
    expected: BTreeMap<String, f64>,
    /// The weight of a row without an expectation.
    fallback_s: f64,
    total_s: f64,
    done_s: f64,
    rows_planned: usize,
    rows_done: usize,
}

impl PlanEta {
    /// `plan`: each row and the processes that measure it; `expected`: seconds per
    /// process of the rows an earlier run measured (others weigh the median of these).
    pub fn new(plan: &[(String, usize)], expected: BTreeMap<String, f64>) -> PlanEta {
        let mut known: Vec<f64> = expected
            .values()
            .copied()
            .filter(|s| s.is_finite() && *s > 0.0)
            .collect();
        known.sort_by(f64::total_cmp);
        let fallback_s = known.get(known.len() / 2).copied().unwrap_or(1.0);
        let mut eta = PlanEta {
            expected,
            fallback_s,
            total_s: 0.0,
            done_s: 0.0,
            rows_planned: 0,
            rows_done: 0,
        };
        for (id, processes) in plan {
            eta.total_s += eta.weight(id) * *processes as f64;
            eta.rows_planned += processes;
        }
        eta
    }

    /// Whether any row's weight came from an earlier run.
    pub fn from_earlier_run(&self) -> bool {
        !self.expected.is_empty()
    }

    fn weight(&self, id: &str) -> f64 {
        self.expected
            .get(id)
            .copied()
            .filter(|s| s.is_finite() && *s > 0.0)
            .unwrap_or(self.fallback_s)
    }

    /// One process has finished row `id`.
    pub fn row_done(&mut self, id: &str) {
        self.done_s = (self.done_s + self.weight(id)).min(self.total_s);
        self.rows_done += 1;
    }

    pub fn rows(&self) -> (usize, usize) {
        (self.rows_done, self.rows_planned)
    }

    /// Of the plan's expected seconds, the share done (0 to 1).
    pub fn fraction_done(&self) -> f64 {
        if self.total_s > 0.0 {
            (self.done_s / self.total_s).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }

    /// Seconds left after `elapsed_s` of running: the plan's seconds not yet done, at the
    /// pace so far (elapsed ÷ expected seconds done, with [`PRIOR`] of the plan counted
    /// as done at the plan's pace); the plan as it is before any row has finished.
    pub fn remaining_s(&self, elapsed_s: f64) -> f64 {
        let left = (self.total_s - self.done_s).max(0.0);
        if self.done_s <= 0.0 {
            return left;
        }
        let prior = PRIOR * self.total_s;
        left * (elapsed_s + prior) / (self.done_s + prior)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(rows: &[(&str, usize)]) -> Vec<(String, usize)> {
        rows.iter().map(|(id, n)| (id.to_string(), *n)).collect()
    }

    fn expected(rows: &[(&str, f64)]) -> BTreeMap<String, f64> {
        rows.iter().map(|(id, s)| (id.to_string(), *s)).collect()
    }

    #[test]
    fn rows_weigh_what_they_took_before() {
        // A load row of 30 s in one process, two quick rows in three.
        let p = plan(&[("load", 1), ("getpid", 3), ("pipe", 3)]);
        let mut eta = PlanEta::new(
            &p,
            expected(&[("load", 30.0), ("getpid", 1.0), ("pipe", 2.0)]),
        );
        assert!(eta.from_earlier_run());
        assert_eq!(eta.rows(), (0, 7));
        assert_eq!(eta.remaining_s(0.0), 39.0, "the plan before any row");
        eta.row_done("load");
        assert_eq!(eta.remaining_s(30.0), 9.0, "on time: the plan's 9 s left");
        assert!((eta.fraction_done() - 30.0 / 39.0).abs() < 1e-12);
        eta.row_done("getpid");
        eta.row_done("pipe");
        assert_eq!(eta.rows(), (3, 7));
        assert!((eta.remaining_s(33.0) - 6.0).abs() < 1e-9);
    }

    #[test]
    fn a_slower_pace_stretches_what_is_left() {
        let p = plan(&[("a", 1), ("b", 1)]);
        let mut eta = PlanEta::new(&p, expected(&[("a", 10.0), ("b", 10.0)]));
        eta.row_done("a");
        // 10 s of the plan done, 5 s counted as done at its pace (a quarter of 20).
        let pace = |elapsed: f64| (elapsed + 5.0) / (10.0 + 5.0);
        assert!((eta.remaining_s(20.0) - 10.0 * pace(20.0)).abs() < 1e-9);
        assert!(
            eta.remaining_s(20.0) > 15.0,
            "twice as slow as before: longer"
        );
        assert!(eta.remaining_s(5.0) < 7.0, "twice as fast: shorter");
        assert_eq!(eta.remaining_s(10.0), 10.0, "on time");
    }

    #[test]
    fn without_an_earlier_run_rows_weigh_alike() {
        let p = plan(&[("a", 2), ("b", 2)]);
        let mut eta = PlanEta::new(&p, BTreeMap::new());
        assert!(!eta.from_earlier_run());
        assert_eq!(eta.remaining_s(0.0), 4.0);
        eta.row_done("a");
        assert_eq!(eta.remaining_s(1.0), 3.0, "3 rows left at 1 s a row");
        assert_eq!(
            eta.remaining_s(5.0),
            9.0,
            "slower rows stretch it: 3 × (5 + 1) ÷ (1 + 1)"
        );
    }

    #[test]
    fn a_new_row_weighs_the_median_of_those_known() {
        let p = plan(&[("a", 1), ("b", 1), ("c", 1), ("new", 1)]);
        let eta = PlanEta::new(&p, expected(&[("a", 1.0), ("b", 4.0), ("c", 100.0)]));
        assert_eq!(eta.remaining_s(0.0), 109.0);
        let mut done = eta.clone();
        for _ in 0..10 {
            done.row_done("c");
        }
        assert_eq!(done.fraction_done(), 1.0, "never past the plan");
    }
}
