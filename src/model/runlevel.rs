//! The third level of the experiment: runs. A run across processes samples the process
//! level (see [`super::levels`]), but on a virtual machine the runs themselves differ by
//! more than their processes do: the share of processes that landed on a slow vCPU, and
//! the fast state itself by a few per cent, change from one run to the next. So an
//! interval built from one run's processes does not cover the next run's figure, however
//! many processes it has. What does is a **prediction interval** for another run's
//! headline, built from how far earlier runs of the same rows on the same machine
//! disagreed with each other:
//!
//! - the spread is of log headlines (the runs differ by ratios, not by nanoseconds):
//!   for every id seen in at least two earlier runs, the squared deviations of its log
//!   headlines from their mean; **pooled** over the ids (a machine's run-to-run spread is
//!   much the same for its rows, and pooling gives degrees of freedom from three runs on),
//!   and an id's own variance instead when it has [`OWN_FROM`] runs of its own and is
//!   noisier than the pool;
//! - two runs' headlines differ by two draws of that spread, so the interval around this
//!   run's headline that should hold another run's is `headline · exp(±t · √2 · s)`, with
//!   Student's t at the estimate's degrees of freedom;
//! - the runs' differences are not normal on a VM (mostly a few per cent, now and then
//!   the gap between a fast and a slower vCPU state), so the pooled `s` is at least what
//!   the differences themselves say: the rank bound that held 95% of the earlier runs'
//!   pairwise differences, turned back into an `s` (`distribution_free_half`);
//! - the headline's 95% interval is the union of that and the interval of this run's
//!   processes, which stays beside it, so neither level is lost.
//!
//! With no comparable earlier run the interval is of this run's processes only, and the
//! run says so. Everything here is a pure function of recorded figures.

use std::collections::BTreeMap;

use super::invocations::RunLevel;
use super::result::BenchResult;
use super::stats::t_quantile;

/// The newest comparable earlier runs the spread is estimated from.
pub const MAX_EARLIER_RUNS: usize = 20;

/// An id's own run-to-run variance is used (when larger than the pool's) once it has this
/// many earlier headlines: fewer give an estimate too rough to trust on its own.
pub const OWN_FROM: usize = 6;

/// The run-to-run spread of log headlines, from earlier runs like this one.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSpread {
    /// How many earlier runs it was estimated from.
    pub runs: usize,
    pooled_var: f64,
    pooled_df: usize,
    /// Each id's own variance of its log headlines and how many headlines it had.
    own: BTreeMap<String, (f64, usize)>,
}

/// The spread of `earlier` (one map of id → headline per earlier run); `None` when no
/// id has two positive headlines to compare.
pub fn spread(earlier: &[BTreeMap<String, f64>]) -> Option<RunSpread> {
    let mut logs: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for run in earlier {
        for (id, &x) in run {
            if x.is_finite() && x > 0.0 {
                logs.entry(id.as_str()).or_default().push(x.ln());
            }
        }
    }
    let mut own = BTreeMap::new();
    let (mut ss_total, mut df_total) = (0.0, 0);
    for (id, xs) in &logs {
        if xs.len() < 2 {
            own.insert(id.to_string(), (f64::NAN, xs.len()));
            continue;
        }
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let ss: f64 = xs.iter().map(|x| (x - mean).powi(2)).sum();
        ss_total += ss;
        df_total += xs.len() - 1;
        own.insert(id.to_string(), (ss / (xs.len() - 1) as f64, xs.len()));
    }
    if df_total == 0 {
        return None;
    }
    let normal_var = ss_total / df_total as f64;
    let implied = distribution_free_half(&logs).map(|half| {
        (half / (t_quantile(0.975, df_total as f64) * std::f64::consts::SQRT_2)).powi(2)
    });
    Some(RunSpread {
        runs: earlier.len(),
        pooled_var: normal_var.max(implied.unwrap_or(0.0)),
        pooled_df: df_total,
        own,
    })
}

/// The half-width (in ln) that held the difference of two earlier runs' headlines in at
/// least 95% of the cases, without assuming a shape: every pair of earlier runs of every
/// id gives one |ln a − ln b|, and the ⌈0.95 (n + 1)⌉-th smallest of the n differences
/// holds another such difference with probability at least 0.95 (the split-conformal
/// rank bound). `None` below 19 differences, where no rank reaches it.
///
/// Why beside the normal estimate: on a virtual machine whose processes land in a fast
/// or a slower state, most runs agree within a few per cent and now and then one
/// differs by the gap between the states. The variance of such a mixture says ±3% and
/// the normal interval misses the rare run; the ranks see it.
fn distribution_free_half(logs: &BTreeMap<&str, Vec<f64>>) -> Option<f64> {
    let mut diffs: Vec<f64> = logs
        .values()
        .flat_map(|xs| {
            xs.iter()
                .enumerate()
                .flat_map(move |(i, a)| xs[i + 1..].iter().map(move |b| (a - b).abs()))
        })
        .collect();
    let rank = (0.95 * (diffs.len() + 1) as f64).ceil() as usize;
    if rank > diffs.len() {
        return None;
    }
    diffs.sort_by(f64::total_cmp);
    Some(diffs[rank - 1])
}

impl RunSpread {
    /// The variance of one run's log headline of `id`, with its degrees of freedom; `None`
    /// for an id no earlier run measured (its spread is not known).
    pub fn of(&self, id: &str) -> Option<(f64, usize)> {
        let &(own_var, n) = self.own.get(id)?;
        if n >= OWN_FROM && own_var > self.pooled_var {
            Some((own_var, n - 1))
        } else {
            Some((self.pooled_var, self.pooled_df))
        }
    }
}

/// Widen `r`'s 95% interval to hold another run's headline (see the module's comment).
/// Only a measured positive figure measured across processes is widened; anything else
/// is left as it is.
pub fn widen(r: &mut BenchResult, spread: &RunSpread) {
    if !r.status.is_ok() || r.derived {
        return;
    }
    let Some((var, df)) = spread.of(&r.id) else {
        return;
    };
    let (Some(summary), Some(levels)) = (r.summary.as_mut(), r.invocations.as_mut()) else {
        return;
    };
    if summary.median <= 0.0 || !summary.median.is_finite() {
        return;
    }
    let half = t_quantile(0.975, df as f64) * (2.0 * var).sqrt();
    let level = RunLevel {
        earlier_runs: spread.runs,
        sd_log: var.sqrt(),
        df,
        low: summary.median * (-half).exp(),
        high: summary.median * half.exp(),
        process_low: summary.ci_low,
        process_high: summary.ci_high,
    };
    summary.ci_low = summary.ci_low.min(level.low);
    summary.ci_high = summary.ci_high.max(level.high);
    levels.runs = Some(level);
}

/// The run's note when its intervals were widened: from how many runs, and how far one
/// run's figure moves (one standard deviation of the pooled spread, as a percentage).
pub fn widened_note(spread: &RunSpread) -> String {
    format!(
        "the 95% intervals also hold the next run's figure: {} earlier runs of these rows on \
         this machine differed from each other by ±{:.1}% (one standard deviation per run, \
         pooled over the rows); the intervals of this run's processes alone are in the JSON \
         (invocations.runs)",
        spread.runs,
        (spread.pooled_var.sqrt().exp() - 1.0) * 100.0
    )
}

/// The run's note when it had no earlier run to learn the run-to-run spread from.
pub fn no_earlier_run_note() -> String {
    "the 95% intervals are of this run's processes only: no earlier run of these rows on \
     this machine (same host, kernel, CPU, mode and processes) to learn how far runs \
     differ from each other; from the third such run on, they also hold the next run's \
     figure"
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::invocations::Invocations;
    use crate::model::levels::merge;
    use crate::model::{Better, Summary, Unit};

    fn runs(figures: &[&[(&str, f64)]]) -> Vec<BTreeMap<String, f64>> {
        figures
            .iter()
            .map(|run| run.iter().map(|&(id, x)| (id.to_string(), x)).collect())
            .collect()
    }

    /// A result measured across ten processes whose medians are `medians`.
    fn across(id: &str, medians: &[f64]) -> BenchResult {
        let parts: Vec<BenchResult> = medians
            .iter()
            .map(|&m| {
                let mut r =
                    BenchResult::new(id, "t", "test", Unit::SecondsPerOp, Better::Lower, None);
                r.summary = Some(Summary::from_values(&[m * 0.99, m, m * 1.01]).unwrap());
                r
            })
            .collect();
        merge(&parts)
    }

    #[test]
    fn the_spread_is_pooled_over_ids_in_log_space() {
        // Two ids, three runs each: ln ratios ±0.1 around each id's mean.
        let e = (0.1f64).exp();
        let s = spread(&runs(&[
            &[("a", 100.0), ("b", 10.0)],
            &[("a", 100.0 * e), ("b", 10.0 * e)],
            &[("a", 100.0 / e), ("b", 10.0 / e)],
        ]))
        .unwrap();
        let (var, df) = s.of("a").unwrap();
        assert_eq!(df, 4, "two ids of three runs: 2 + 2 degrees of freedom");
        assert!((var - 0.01).abs() < 1e-12, "{var}");
        assert_eq!(
            s.of("b"),
            Some((var, df)),
            "a quiet id is judged on the pool"
        );
        assert_eq!(
            s.of("never"),
            None,
            "an id no earlier run measured gets no run level"
        );
    }

    /// The normal estimate alone, computed here from scratch: the variance of each id's
    /// log headlines about their mean, pooled over the ids (every id in every run).
    fn pooled_variance(earlier: &[BTreeMap<String, f64>]) -> f64 {
        let (mut ss, mut df) = (0.0, 0);
        for id in earlier[0].keys() {
            let xs: Vec<f64> = earlier.iter().map(|run| run[id].ln()).collect();
            let m = xs.iter().sum::<f64>() / xs.len() as f64;
            ss += xs.iter().map(|x| (x - m).powi(2)).sum::<f64>();
            df += xs.len() - 1;
        }
        ss / df as f64
    }

    #[test]
    fn a_rare_jump_between_states_widens_the_spread_beyond_the_variance() {
        // 40 ids, four runs within 0.5% of each other, but four ids jumped 35% in the last
        // run (all their processes in the slower state): 12 of 240 pairwise differences.
        let ids: Vec<String> = (0..40).map(|i| format!("id{i}")).collect();
        let earlier: Vec<BTreeMap<String, f64>> = (0..4)
            .map(|r| {
                ids.iter()
                    .enumerate()
                    .map(|(i, id)| {
                        let jump = if i < 4 && r == 3 { 1.35 } else { 1.0 };
                        (id.clone(), 100.0 * (1.0 + 0.005 * (r % 2) as f64) * jump)
                    })
                    .collect()
            })
            .collect();
        let s = spread(&earlier).unwrap();
        let (var, df) = s.of("id20").unwrap();
        let half = t_quantile(0.975, df as f64) * (2.0 * var).sqrt();
        assert!(half >= 1.35f64.ln() - 1e-9, "the jump is held: ±{half}");
        // The variance alone would have said less than half of that.
        let normal = pooled_variance(&earlier);
        let normal_half = t_quantile(0.975, df as f64) * (2.0 * normal).sqrt();
        assert!(normal_half < 0.5 * half, "{normal_half} against {half}");
    }

    #[test]
    fn runs_that_agree_keep_the_variance_s_spread() {
        // The same 40 ids without a jump: the ranks say no more than the variance.
        let earlier: Vec<BTreeMap<String, f64>> = (0..4)
            .map(|r| {
                (0..40)
                    .map(|i| {
                        let wobble = 1.0 + 0.01 * (((i * 7 + r * 3) % 5) as f64 - 2.0);
                        (format!("id{i}"), 100.0 * wobble)
                    })
                    .collect()
            })
            .collect();
        let s = spread(&earlier).unwrap();
        let (var, _) = s.of("id3").unwrap();
        let normal = pooled_variance(&earlier);
        assert!(var >= normal - 1e-15);
        assert!(var < normal * 1.5, "{var} against {normal}");
    }

    #[test]
    fn one_earlier_run_gives_no_spread() {
        assert_eq!(spread(&runs(&[&[("a", 1.0), ("b", 2.0)]])), None);
        assert_eq!(spread(&[]), None);
    }

    #[test]
    fn a_noisy_id_with_enough_runs_of_its_own_uses_its_own_spread() {
        let mut figures: Vec<Vec<(&str, f64)>> = Vec::new();
        for i in 0..OWN_FROM {
            let quiet = 100.0 * if i % 2 == 0 { 1.01 } else { 0.99 };
            let noisy = 100.0 * if i % 2 == 0 { 1.3 } else { 0.7 };
            figures.push(vec![("quiet1", quiet), ("quiet2", quiet), ("noisy", noisy)]);
        }
        let refs: Vec<&[(&str, f64)]> = figures.iter().map(|v| v.as_slice()).collect();
        let s = spread(&runs(&refs)).unwrap();
        let (noisy, df) = s.of("noisy").unwrap();
        let (quiet, pooled_df) = s.of("quiet1").unwrap();
        assert_eq!(df, OWN_FROM - 1, "its own degrees of freedom");
        assert_eq!(
            pooled_df,
            3 * (OWN_FROM - 1),
            "the quiet ones get the pool's"
        );
        // The pool averages the noisy id with two quiet ones: a third of its variance.
        assert!(noisy > 2.5 * quiet, "noisy {noisy} pool {quiet}");
    }

    #[test]
    fn widening_holds_a_run_that_differs_by_the_spread_and_keeps_the_process_interval() {
        // Runs differ by about 5% (sd of ln ≈ 0.05): ten tight processes at 100 do not
        // reach 108, the widened interval does; the process interval is kept beside it.
        let e = (0.05f64).exp();
        let earlier = runs(&[
            &[("a", 100.0)],
            &[("a", 100.0 * e)],
            &[("a", 100.0 / e)],
            &[("a", 100.0 * e)],
            &[("a", 100.0 / e)],
        ]);
        let s = spread(&earlier).unwrap();
        let mut r = across(
            "a",
            &[
                99.0, 99.5, 100.0, 100.0, 100.0, 100.0, 100.5, 101.0, 100.2, 99.8,
            ],
        );
        let before = r.summary.clone().unwrap();
        assert!(before.ci_high < 108.0);
        widen(&mut r, &s);
        let after = r.summary.as_ref().unwrap();
        assert_eq!(after.median, before.median, "the headline does not move");
        assert!(after.ci_low < 92.6 && after.ci_high > 108.0, "{after:?}");
        let level = r.invocations.as_ref().unwrap().runs.as_ref().unwrap();
        assert_eq!(
            (level.process_low, level.process_high),
            (before.ci_low, before.ci_high)
        );
        assert_eq!(level.earlier_runs, 5);
        assert!(
            (level.low * level.high - 100.0 * 100.0).abs() < 1e-6,
            "symmetric in ratio"
        );
    }

    #[test]
    fn a_process_interval_wider_than_the_runs_spread_is_kept() {
        let earlier = runs(&[&[("a", 100.0)], &[("a", 100.1)], &[("a", 99.9)]]);
        let s = spread(&earlier).unwrap();
        let mut r = across(
            "a",
            &[
                80.0, 85.0, 90.0, 95.0, 100.0, 100.0, 105.0, 110.0, 115.0, 120.0,
            ],
        );
        let before = r.summary.clone().unwrap();
        widen(&mut r, &s);
        let after = r.summary.unwrap();
        assert_eq!(
            (after.ci_low, after.ci_high),
            (before.ci_low, before.ci_high)
        );
    }

    #[test]
    fn one_process_failed_or_derived_rows_are_left_alone() {
        let earlier = runs(&[&[("a", 100.0)], &[("a", 120.0)]]);
        let s = spread(&earlier).unwrap();
        let mut single =
            BenchResult::new("a", "t", "test", Unit::SecondsPerOp, Better::Lower, None);
        single.summary = Some(Summary::from_values(&[99.0, 100.0, 101.0]).unwrap());
        let before = single.summary.clone();
        widen(&mut single, &s);
        assert_eq!(
            single.summary, before,
            "one process: no invocation level to widen"
        );
        let mut derived = across("a", &[100.0; 10]);
        derived.derived = true;
        let before = derived.summary.clone();
        widen(&mut derived, &s);
        assert_eq!(derived.summary, before);
        assert!(derived
            .invocations
            .as_ref()
            .is_some_and(|i: &Invocations| i.runs.is_none()));
    }
}
