//! Two levels of an experiment: samples within a process, and processes ("invocations").
//!
//! On a shared or virtual machine most of the uncertainty of a figure lies *between*
//! invocations — where the kernel placed the process, its memory and its neighbours, the
//! host's scheduling — and a confidence interval computed from the samples of one process
//! cannot see it (Kalibera and Jones, "Rigorous Benchmarking in Reasonable Time", ISMM
//! 2013). So a run may repeat every benchmark in k fresh processes, and its headline
//! figure is then of the invocation level:
//!
//! - each invocation's figure is the median of its clean samples (robust to the long tail
//!   of interrupts within a process);
//! - the headline is the **median of the invocation medians**, and its 95% confidence
//!   interval the distribution-free one of that median: the order statistics
//!   `[x₍ⱼ₎, x₍ₖ₋ⱼ₊₁₎]` of the k invocation medians with the largest j whose binomial
//!   coverage is still 95% (the same rule as within a process, [`Summary::from_values`]):
//!   `[x₍₂₎, x₍₉₎]` for ten invocations (97.9%). Why not the Student-t interval of their
//!   mean: on a VM the invocation medians are not normal but come in **modes** (a process
//!   runs its row at 127 ns or at 165 ns, by the state of the vCPU it landed on), and a
//!   t-interval built around their mean is centred between the modes while the median is
//!   in one of them — the headline and its interval described different things, and with
//!   three processes the interval missed the other runs' medians for half the ids. The
//!   order-statistic interval makes no assumption about the shape and is about the very
//!   figure shown.
//! - below six invocations no pair of order statistics reaches 95% (`[min, max]` of three
//!   covers the median 75% of the time), so the interval is the union of `[min, max]` and
//!   the Student-t interval of the mean, `mean ± t(k−1) · s / √k` (Kalibera and Jones's
//!   two-level estimator with the within level summarised by its median): wide unless the
//!   few processes agree, which is the truth about a few processes.
//! - the within-invocation summaries (their own order-statistic CIs) are kept beside it.
//!
//! Everything here is a pure function of recorded figures.

use super::invocations::{Components, Invocations};
use super::result::{BenchResult, Status};
use super::stats::{t_quantile, Summary, SummaryError};
use super::unit::Better;

/// A process whose median is more than this far from the run's best process (the lowest
/// median, the highest where higher is better) ran in a slower state of its vCPU, and is
/// left out of the headline (see [`fast_state`]).
pub const SLOWER_STATE: f64 = 0.10;

/// Which processes ran in the fast state, by their medians: on a virtual machine a process
/// lands in a fast or a slower state of its vCPU, set by the host and lasting seconds
/// (docs/noise.md measured 128–135 against 155–196 ns for `getpid`), and the *share* of
/// processes in the slower one changes from one run to the next — from one in ten to most
/// of them. A median of all the processes jumps between the states with that share, and so
/// does any quantile: a lower quartile is in the slower state whenever fewer than three of
/// ten processes were fast. The best process is in the fast state whenever any process
/// was, so it anchors the run, and a process further than [`SLOWER_STATE`] from it on the
/// slow side is in a slower state. Processes that agree (a run in one state) are all fast.
/// The same rule as culling a perturbed sample, one level up: what is left out is counted
/// and kept. (Replayed on five stored runs of seed 002's rows, docs/noise.md: the five
/// headlines within 5% of each other for 23 of 38 ids this way, 5 of 38 anchored on the
/// lower quartile.)
pub fn fast_state(medians: &[f64], better: Better) -> Vec<bool> {
    if medians.len() < 3 || medians.iter().any(|m| !m.is_finite()) {
        return vec![true; medians.len()];
    }
    let best = match better {
        Better::Lower => medians.iter().copied().fold(f64::INFINITY, f64::min),
        Better::Higher => medians.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    };
    medians
        .iter()
        .map(|&m| match better {
            Better::Lower => m <= best + SLOWER_STATE * best.abs(),
            Better::Higher => m >= best - SLOWER_STATE * best.abs(),
        })
        .collect()
}

/// The summary of a figure across invocations: `n` is the number of invocations, `median`
/// the median of their medians (the headline), `mean`, `sd`, `min` and `max` of the
/// invocation medians, and the 95% interval of the median: distribution-free from six
/// invocations on, else the union of `[min, max]` and the Student-t interval of the mean
/// (see the module's comment). One invocation gives its own summary back.
pub fn across(within: &[Summary]) -> Result<Summary, SummaryError> {
    if within.len() == 1 {
        return Ok(within[0].clone());
    }
    let medians: Vec<f64> = within.iter().map(|s| s.median).collect();
    let base = Summary::from_values(&medians)?;
    if base.ci_level >= 0.95 {
        return Ok(base);
    }
    let k = medians.len() as f64;
    let half = t_quantile(0.975, k - 1.0) * base.sd / k.sqrt();
    // A time or a rate is not below zero, whatever a wide t-interval of three processes
    // says (10, 40 and 10.2 give 20.1 ± 42.7): the interval stops at zero.
    let floor = if base.min >= 0.0 {
        0.0
    } else {
        f64::NEG_INFINITY
    };
    Ok(Summary {
        ci_low: base.min.min((base.mean - half).max(floor)),
        ci_high: base.max.max(base.mean + half),
        ci_level: 0.95,
        ..base
    })
}

/// A note with its figures blanked: two notes of one shape say the same thing of other
/// figures.
fn shape_of(note: &str) -> String {
    let mut shape = String::with_capacity(note.len());
    let mut in_number = false;
    for c in note.chars() {
        let part_of_number = c.is_ascii_digit() || (in_number && matches!(c, '.' | ','));
        if part_of_number {
            if !in_number {
                shape.push('#');
            }
        } else {
            shape.push(c);
        }
        in_number = part_of_number;
    }
    shape
}

/// A plan to reach a relative precision: how many invocations of how many samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    pub invocations: usize,
    pub samples: usize,
    /// The relative half-width of the 95% interval this plan is expected to give.
    pub expected: f64,
}

/// The cheapest plan (fewest samples in all, counting `cost_of_invocation` samples' worth
/// of time to start a process) whose expected relative half-width of the 95% interval of
/// the mean of invocation medians is at most `target`, given the measured `c` and
/// `centre`. Within-invocation variance falls as 1/samples; between does not. `None`
/// when no plan within `max_invocations` reaches it.
pub fn plan(
    c: &Components,
    centre: f64,
    target: f64,
    max_invocations: usize,
    cost_of_invocation: f64,
) -> Option<Plan> {
    if centre == 0.0 || !centre.is_finite() {
        return None;
    }
    let mut best: Option<(f64, Plan)> = None;
    for k in 2..=max_invocations.max(2) {
        for n in [5usize, 11, 21, 51, 101] {
            let var_one = c.between + c.within * c.samples / n as f64;
            let expected =
                t_quantile(0.975, (k - 1) as f64) * (var_one / k as f64).sqrt() / centre.abs();
            if expected > target {
                continue;
            }
            let cost = k as f64 * (n as f64 + cost_of_invocation);
            if best.as_ref().is_none_or(|(b, _)| cost < *b) {
                best = Some((
                    cost,
                    Plan {
                        invocations: k,
                        samples: n,
                        expected,
                    },
                ));
            }
        }
    }
    best.map(|(_, p)| p)
}

/// What is already measured of one id: `invocations` processes of `samples` samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Done {
    pub invocations: usize,
    pub samples: usize,
}

/// The expected relative half-width of the 95% interval of the mean of invocation medians
/// after `more` further invocations of `samples` samples on top of `done`. The variance
/// of one invocation's median is `between + within · n̄ / n` for n samples (the within
/// part falls as 1/n, the between part does not); the mean of k of them has the average
/// of their variances over k.
pub fn expected_precision(
    c: &Components,
    centre: f64,
    done: Done,
    more: usize,
    samples: usize,
) -> f64 {
    let var = |n: usize| c.between + c.within * c.samples / n.max(1) as f64;
    let k = done.invocations + more;
    if k < 2 || centre == 0.0 || !centre.is_finite() {
        return f64::INFINITY;
    }
    let sum = done.invocations as f64 * var(done.samples) + more as f64 * var(samples);
    let var_mean = sum / (k * k) as f64;
    t_quantile(0.975, (k - 1) as f64) * var_mean.sqrt() / centre.abs()
}

/// What a pilot's components say to do next to reach `target` (a relative half-width):
/// nothing when it is reached already, else the cheapest number of further invocations
/// and their samples (cost counted in samples, `cost_of_invocation` samples' worth to
/// start a process), or `None` when no plan of at most `max_invocations` in all reaches
/// it.
pub fn plan_more(
    c: &Components,
    centre: f64,
    done: Done,
    target: f64,
    max_invocations: usize,
    cost_of_invocation: f64,
) -> Option<Plan> {
    let now = expected_precision(c, centre, done, 0, done.samples);
    if now <= target {
        return Some(Plan {
            invocations: 0,
            samples: 0,
            expected: now,
        });
    }
    let mut best: Option<(f64, Plan)> = None;
    for more in 1..=max_invocations.saturating_sub(done.invocations) {
        for n in [5usize, 11, 21, 51, 101] {
            let expected = expected_precision(c, centre, done, more, n);
            if expected > target {
                continue;
            }
            let cost = more as f64 * (n as f64 + cost_of_invocation);
            if best.as_ref().is_none_or(|(b, _)| cost < *b) {
                best = Some((
                    cost,
                    Plan {
                        invocations: more,
                        samples: n,
                        expected,
                    },
                ));
            }
        }
    }
    best.map(|(_, p)| p)
}

/// One result from the results of the same id in several invocations (in the order they
/// ran): the invocations that measured it give the headline across them; their samples
/// are kept, each marked with its invocation; counters, times, details and calibration are
/// the first measuring invocation's. Skipped when every invocation skipped it; failed when
/// none measured it (with the first error).
pub fn merge(parts: &[BenchResult]) -> BenchResult {
    assert!(!parts.is_empty());
    let ok: Vec<(usize, &BenchResult)> = parts
        .iter()
        .enumerate()
        .filter(|(_, r)| r.status.is_ok() && r.summary.is_some())
        .collect();
    let Some(&(_, first)) = ok.first() else {
        let mut r = parts
            .iter()
            .find(|r| matches!(r.status, Status::Failed { .. }))
            .unwrap_or(&parts[0])
            .clone();
        r.duration_s = parts.iter().map(|p| p.duration_s).sum();
        return r;
    };
    let mut merged = first.clone();
    // Below resolution anywhere: every invocation's raw figure, so that all are alike.
    let below = ok.iter().any(|(_, r)| r.below_resolution);
    let within: Vec<Summary> = ok
        .iter()
        .map(|(_, r)| {
            if below {
                r.raw_summary.clone().or(r.summary.clone())
            } else {
                r.summary.clone()
            }
            .expect("filtered on summary")
        })
        .collect();
    let raw: Vec<Summary> = ok
        .iter()
        .filter_map(|(_, r)| r.raw_summary.clone())
        .collect();
    merged.below_resolution = below;
    let medians: Vec<f64> = within.iter().map(|s| s.median).collect();
    let fast = fast_state(&medians, first.better);
    let kept = |all: &[Summary]| -> Vec<Summary> {
        all.iter()
            .zip(&fast)
            .filter(|(_, &f)| f)
            .map(|(s, _)| s.clone())
            .collect()
    };
    merged.summary = across(&kept(&within)).ok();
    merged.raw_summary = if raw.len() == within.len() {
        across(&kept(&raw)).ok()
    } else {
        None
    };
    let slower: Vec<u32> = (0..fast.len() as u32)
        .filter(|&i| !fast[i as usize])
        .collect();
    merged.samples = ok
        .iter()
        .flat_map(|&(i, r)| {
            r.samples.iter().cloned().map(move |mut s| {
                s.invocation = Some(i as u32);
                s
            })
        })
        .collect();
    merged.culled = ok.iter().map(|(_, r)| r.culled).sum();
    merged.duration_s = parts.iter().map(|p| p.duration_s).sum();
    // Each process's notes, once: a note another process already gave with other
    // figures ("0.063 faults per page here" and "0.062 …") is the same note, and three
    // of them one after another read as noise; the first process's figures are kept.
    let mut notes: Vec<String> = Vec::new();
    for (_, r) in &ok {
        for n in &r.notes {
            if !notes.iter().any(|kept| shape_of(kept) == shape_of(n)) {
                notes.push(n.clone());
            }
        }
    }
    if ok.len() < parts.len() {
        // Why, in the words of the first process that gave no figure: a row that fails in
        // one process of three must say what failed, not only that something did.
        let why = parts.iter().find_map(|p| match &p.status {
            Status::Failed { error } => Some(format!("failed: {error}")),
            Status::Skipped { reason } => Some(format!("skipped: {reason}")),
            Status::Ok => None,
        });
        notes.push(format!(
            "measured in {} of {} invocations (the others failed or skipped it; the first {})",
            ok.len(),
            parts.len(),
            why.unwrap_or_else(|| "gave no figure".into())
        ));
    }
    let invocations = Invocations {
        within,
        runs: None,
        slower,
    };
    if let Some(ratio) = invocations.slower_ratio() {
        notes.push(format!(
            "{} of {} processes ran in a slower state (their median ×{:.2} the others') and \
             are not in the headline",
            invocations.slower.len(),
            invocations.count(),
            ratio
        ));
    }
    merged.notes = notes;
    merged.invocations = Some(invocations);
    merged
}

/// The results of `ids`, in that order, from the runs of several invocations (in the order
/// they ran): each id merged by [`merge`]; an id no invocation reached is left out.
pub fn merge_runs(runs: &[super::Run], ids: &[String]) -> Vec<BenchResult> {
    ids.iter()
        .filter_map(|id| {
            let parts: Vec<BenchResult> = runs
                .iter()
                .filter_map(|run| run.results.iter().find(|r| r.id == *id).cloned())
                .collect();
            (!parts.is_empty()).then(|| merge(&parts))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::invocations::components;
    use crate::model::stats::t_cdf;
    use crate::model::Unit;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * (1.0 + b.abs())
    }

    #[test]
    fn t_quantiles_match_the_published_table() {
        // Two-sided 95% critical values of Student's t.
        for (df, t) in [
            (1.0, 12.706),
            (2.0, 4.303),
            (4.0, 2.776),
            (9.0, 2.262),
            (30.0, 2.042),
        ] {
            let q = t_quantile(0.975, df);
            assert!(close(q, t, 2e-4), "df {df}: {q}");
        }
        assert!(close(t_cdf(0.0, 3.0), 0.5, 1e-12));
        assert!(close(t_cdf(-2.776, 4.0), 0.025, 1e-3));
    }

    fn summary(median: f64, half: f64, n: usize) -> Summary {
        Summary {
            n,
            median,
            mean: median,
            sd: half,
            min: median - 2.0 * half,
            max: median + 2.0 * half,
            ci_low: median - half,
            ci_high: median + half,
            ci_level: 0.95,
        }
    }

    #[test]
    fn few_invocations_get_the_t_interval_of_their_medians_at_least() {
        let w = [
            summary(10.0, 0.1, 21),
            summary(11.0, 0.1, 21),
            summary(12.0, 0.1, 21),
        ];
        let s = across(&w).unwrap();
        assert_eq!(s.n, 3);
        assert!(close(s.median, 11.0, 1e-12));
        // sd of 10, 11, 12 is 1; half-width 4.303 / √3, wider than [min, max].
        assert!(close(s.ci_high - s.mean, 4.303 / 3f64.sqrt(), 1e-3));
        assert!(close(s.mean - s.ci_low, 4.303 / 3f64.sqrt(), 1e-3));
        assert_eq!((s.min, s.max), (10.0, 12.0));
        assert_eq!(s.ci_level, 0.95);
        // An outlying process widens the interval but does not move the headline.
        let w = [
            summary(10.0, 0.1, 21),
            summary(40.0, 0.1, 21),
            summary(10.2, 0.1, 21),
        ];
        let s = across(&w).unwrap();
        assert!(close(s.median, 10.2, 1e-12));
        assert!(s.ci_low < 10.0 && s.ci_high > 40.0);
        assert_eq!(s.ci_low, 0.0, "a time is not below zero");
        // Four processes agree and one does not: the t-interval (10.4 ± 1.11) stops short
        // of the fifth, and [min, max] is kept, so no measured process is left outside.
        let w = [
            summary(10.0, 0.1, 21),
            summary(10.0, 0.1, 21),
            summary(10.0, 0.1, 21),
            summary(10.0, 0.1, 21),
            summary(12.0, 0.1, 21),
        ];
        let s = across(&w).unwrap();
        assert_eq!(s.ci_high, 12.0);
        assert!(close(
            s.ci_low,
            10.4 - 2.776 * 0.8f64.sqrt() / 5f64.sqrt(),
            1e-3
        ));
        // One invocation is its own summary.
        assert_eq!(across(&w[..1]).unwrap(), w[0]);
    }

    #[test]
    fn many_invocations_get_the_order_statistic_interval_of_their_median() {
        // Ten processes in two modes, as on the VM: seven at about 127, three at about
        // 165. The headline is in the majority mode; the interval [x₍₂₎, x₍₉₎] reaches
        // into the other one, and is not centred on the mean between them.
        let medians = [
            127.0, 165.0, 126.5, 128.0, 164.0, 127.5, 126.0, 170.0, 127.2, 126.8,
        ];
        let w: Vec<Summary> = medians.iter().map(|&m| summary(m, 1.0, 21)).collect();
        let s = across(&w).unwrap();
        assert_eq!(s.n, 10);
        assert!(close(s.median, (127.2 + 127.5) / 2.0, 1e-12), "{s:?}");
        assert_eq!((s.ci_low, s.ci_high), (126.5, 165.0));
        assert!(close(s.ci_level, 1.0 - 2.0 * 11.0 / 1024.0, 1e-12));
        assert!(
            s.mean > 135.0,
            "the mean lies between the modes: {}",
            s.mean
        );
        // Six is the fewest with a distribution-free 95%: [min, max] at 96.9%.
        let s = across(&w[..6]).unwrap();
        assert_eq!((s.ci_low, s.ci_high), (126.5, 165.0));
        assert!(close(s.ci_level, 1.0 - 2.0 / 64.0, 1e-12));
    }

    /// The invocation medians (ns) of three back-to-back `run syscall --full` of three
    /// processes each, recorded at rest (load average about 1) on the 2-vCPU VM: run by
    /// run, `syscall.getpid` and `syscall.args.6`.
    const AT_REST: [(&str, [[f64; 3]; 3]); 2] = [
        (
            "syscall.getpid",
            [
                [174.0, 166.5, 133.2],
                [132.7, 125.8, 127.8],
                [126.0, 125.5, 173.9],
            ],
        ),
        (
            "syscall.args.6",
            [
                [128.9, 125.6, 181.0],
                [128.3, 126.0, 179.6],
                [123.5, 126.7, 133.3],
            ],
        ),
    ];

    #[test]
    fn on_recorded_processes_the_order_statistic_interval_holds_every_run_s_median() {
        for (id, runs) in AT_REST {
            let pooled: Vec<Summary> = runs
                .iter()
                .flatten()
                .map(|&m| summary(m, 1.0, 51))
                .collect();
            let s = across(&pooled).unwrap();
            let headlines: Vec<f64> = runs
                .iter()
                .map(|r| across(&r.map(|m| summary(m, 1.0, 51))).unwrap().median)
                .collect();
            for h in &headlines {
                assert!(s.ci_low <= *h && *h <= s.ci_high, "{id}: {h} outside {s:?}");
            }
            // The Student-t interval of the mean of the same nine processes, as the
            // headline's interval was before, is centred between the two modes: for
            // getpid (126.0–159.6) it leaves out two of the three runs' medians, one in
            // each mode.
            let half = t_quantile(0.975, 8.0) * s.sd / 3.0;
            let missed = headlines
                .iter()
                .filter(|&&h| (h - s.mean).abs() > half)
                .count();
            if id == "syscall.getpid" {
                assert_eq!(missed, 2, "{headlines:?} against {} ± {half}", s.mean);
            }
        }
    }

    #[test]
    fn components_split_the_variance() {
        // Invocations that differ by far more than their own CIs: nearly all between.
        let w = [summary(10.0, 0.01, 21), summary(12.0, 0.01, 21)];
        let c = components(&w).unwrap();
        assert!(c.between_share() > 0.99, "{c:?}");
        // Invocations that agree within their CIs: nothing between.
        let w = [summary(10.0, 1.0, 21), summary(10.01, 1.0, 21)];
        let c = components(&w).unwrap();
        assert_eq!(c.between, 0.0);
        assert!(components(&w[..1]).is_none());
    }

    #[test]
    fn a_plan_buys_invocations_when_the_variance_is_between() {
        let c = Components {
            total: 0.04,
            within: 0.0001,
            between: 0.04,
            samples: 21.0,
        };
        // sd 0.2 around 10: 2% per invocation; ±1% needs t(k−1)·2%/√k ≤ 1%, which
        // t(17) = 2.110 over √18 = 4.243 first meets: 18 invocations.
        let p = plan(&c, 10.0, 0.01, 30, 10.0).unwrap();
        assert_eq!(p.invocations, 18, "{p:?}");
        assert_eq!(p.samples, 5, "samples do not help between-invocation noise");
        assert!(p.expected <= 0.01);
        assert!(plan(&c, 10.0, 0.001, 10, 10.0).is_none());
    }

    #[test]
    fn more_invocations_are_planned_on_top_of_the_pilot() {
        let done = Done {
            invocations: 3,
            samples: 21,
        };
        // Between-invocation sd 2% of the centre: the pilot's 3 give
        // t(2)·2%/√3 = 4.97%; ±2% needs the first k with t(k−1)·2%/√k ≤ 2%: k = 7.
        let between = Components {
            total: 0.04,
            within: 0.0,
            between: 0.04,
            samples: 21.0,
        };
        let now = expected_precision(&between, 10.0, done, 0, 21);
        assert!(close(now, 4.303 * 0.02 / 3f64.sqrt(), 1e-3), "{now}");
        let p = plan_more(&between, 10.0, done, 0.02, 50, 10.0).unwrap();
        assert_eq!((p.invocations, p.samples), (4, 5), "{p:?}");
        assert!(p.expected <= 0.02);
        // Too few invocations allowed: no plan.
        assert!(plan_more(&between, 10.0, done, 0.02, 6, 10.0).is_none());
        // Reached already: nothing more.
        let p = plan_more(&between, 10.0, done, 0.06, 50, 10.0).unwrap();
        assert_eq!(p.invocations, 0);
        // All the variance within a process and a process dear to start (100 samples'
        // worth): more samples per invocation pay, rather than many processes.
        let within = Components {
            total: 0.04,
            within: 0.04,
            between: 0.0,
            samples: 21.0,
        };
        let p = plan_more(&within, 10.0, done, 0.02, 50, 100.0).unwrap();
        assert_eq!((p.invocations, p.samples), (3, 51), "{p:?}");
        assert!(p.expected <= 0.02);
    }

    /// One process's result of `id` whose samples have the median `m`.
    fn part(m: f64, better: Better) -> BenchResult {
        let mut r = BenchResult::new("x", "t", "test", Unit::SecondsPerOp, better, None);
        r.summary = Some(Summary::from_values(&[m * 0.995, m, m * 1.005]).unwrap());
        r
    }

    #[test]
    fn processes_in_a_slower_state_are_told_apart_by_the_best_process() {
        // getpid's ten processes in a run where half landed in the slower state
        // (docs/noise.md: 103.4–104.6 against 130.8–138.6 ns).
        let m = [
            103.4, 131.2, 104.1, 138.6, 103.9, 130.8, 104.6, 135.0, 133.3, 104.0,
        ];
        let fast = fast_state(&m, Better::Lower);
        assert_eq!(
            fast,
            m.iter().map(|&x| x < 110.0).collect::<Vec<_>>(),
            "{fast:?}"
        );
        // Processes that agree within 10% of their best are one state.
        let one = [100.0, 104.0, 108.0, 101.0, 109.0, 103.0];
        assert!(fast_state(&one, Better::Lower).iter().all(|&f| f));
        // Higher is better (a rate): the slower processes are the low ones.
        let rates: Vec<f64> = m.iter().map(|x| 1e4 / x).collect();
        assert_eq!(fast_state(&rates, Better::Higher), fast);
        // One process of ten in the fast state (getppid through libc, 27 November: 202.6
        // ns beside 259.6–286.2): it is the headline, where a lower quartile would have
        // been in the slower state.
        let lone = [
            274.4, 259.6, 202.6, 269.3, 286.2, 280.9, 269.4, 282.5, 274.7, 286.1,
        ];
        let fast = fast_state(&lone, Better::Lower);
        assert_eq!(fast.iter().filter(|&&f| f).count(), 1, "{fast:?}");
        assert!(fast[2]);
        // Too few processes to tell states apart: all are kept.
        assert_eq!(fast_state(&[1.0, 2.0], Better::Lower), vec![true, true]);
    }

    #[test]
    fn the_headline_of_a_mixed_run_is_its_fast_processes_median() {
        let m = [
            103.4, 131.2, 104.1, 138.6, 103.9, 130.8, 104.6, 135.0, 133.3, 104.0,
        ];
        let parts: Vec<BenchResult> = m.iter().map(|&x| part(x, Better::Lower)).collect();
        let r = merge(&parts);
        let inv = r.invocations.as_ref().unwrap();
        assert_eq!(inv.slower, vec![1, 3, 5, 7, 8]);
        assert_eq!(inv.count(), 10, "every process stays in the record");
        let s = r.summary.as_ref().unwrap();
        // The median of all ten (118.7) would lie between the states.
        assert_eq!(s.median, 104.0);
        assert_eq!(s.n, 5);
        let ratio = inv.slower_ratio().unwrap();
        assert!((ratio - 133.3 / 104.0).abs() < 1e-9, "{ratio}");
        assert!(
            r.notes
                .iter()
                .any(|n| n.starts_with("5 of 10 processes ran in a slower state")),
            "{:?}",
            r.notes
        );
        // A run in one state loses nothing and says nothing.
        let same: Vec<BenchResult> = m[..5]
            .iter()
            .chain(&m[..5])
            .map(|&x| part(x.min(106.0), Better::Lower))
            .collect();
        let r = merge(&same);
        assert!(r.invocations.as_ref().unwrap().slower.is_empty());
        assert_eq!(r.summary.as_ref().unwrap().n, 10);
        assert!(!r.notes.iter().any(|n| n.contains("slower state")));
    }

    #[test]
    fn a_process_that_gave_no_figure_is_said_with_its_reason() {
        let mut failed = part(100.0, Better::Lower);
        failed.status = Status::Failed {
            error: "the check of its own work failed".into(),
        };
        failed.summary = None;
        let r = merge(&[
            part(100.0, Better::Lower),
            failed,
            part(101.0, Better::Lower),
        ]);
        assert!(
            r.notes.contains(
                &"measured in 2 of 3 invocations (the others failed or skipped it; the first \
                  failed: the check of its own work failed)"
                    .to_string()
            ),
            "{:?}",
            r.notes
        );
    }

    #[test]
    fn a_note_the_processes_give_with_other_figures_is_kept_once() {
        let with_notes = |x: f64, notes: &[&str]| {
            let mut r = part(x, Better::Lower);
            r.notes = notes.iter().map(|n| n.to_string()).collect();
            r
        };
        let parts = [
            with_notes(100.0, &["0.063 faults per page here", "16 pages a fault"]),
            with_notes(101.0, &["0.062 faults per page here", "16 pages a fault"]),
            with_notes(102.0, &["1,024 faults per page here", "a note of its own"]),
        ];
        let r = merge(&parts);
        assert_eq!(
            r.notes,
            [
                "0.063 faults per page here",
                "16 pages a fault",
                "a note of its own"
            ]
        );
        assert_ne!(
            shape_of("16 pages a fault"),
            shape_of("16 pages a fault (huge)")
        );
    }
}

/// Properties of the statistics across processes that hold for any processes, checked on
/// generated ones.
#[cfg(test)]
mod properties {
    use super::*;
    use crate::model::invocations::components;
    use crate::model::stats::t_cdf;
    use proptest::prelude::*;

    /// Each process's summary: its median (1 ns to 1 ms) and its interval, up to ±20%.
    fn processes() -> impl Strategy<Value = Vec<Summary>> {
        proptest::collection::vec((1e-9f64..1e-3, 0.0f64..0.2), 1..25).prop_map(|v| {
            v.into_iter()
                .map(|(m, relative)| Summary::around(m, m * relative))
                .collect()
        })
    }

    proptest! {
        #[test]
        fn the_interval_across_processes_holds_its_median(within in processes()) {
            let s = across(&within).unwrap();
            prop_assert!(s.ci_low <= s.median && s.median <= s.ci_high, "{:?}", s);
            prop_assert!(s.min <= s.median && s.median <= s.max);
        }

        #[test]
        fn the_processes_order_changes_nothing(within in processes(), turn in 0usize..25) {
            let mut turned = within.clone();
            turned.rotate_left(turn % within.len());
            prop_assert_eq!(across(&within).unwrap(), across(&turned).unwrap());
            let medians: Vec<f64> = within.iter().map(|s| s.median).collect();
            let fast = fast_state(&medians, Better::Lower);
            let turned_medians: Vec<f64> = turned.iter().map(|s| s.median).collect();
            let mut expected = fast.clone();
            expected.rotate_left(turn % within.len());
            prop_assert_eq!(fast_state(&turned_medians, Better::Lower), expected);
        }

        #[test]
        fn the_share_between_processes_is_a_share_in_any_unit(
            within in processes(),
            shift in -10i32..10,
        ) {
            let scale = 2f64.powi(shift);
            let scaled: Vec<Summary> = within
                .iter()
                .map(|s| Summary::around(s.median * scale, (s.ci_high - s.median) * scale))
                .collect();
            match (components(&within), components(&scaled)) {
                (Some(c), Some(d)) => {
                    prop_assert!((0.0..=1.0).contains(&c.between_share()));
                    prop_assert!((c.between_share() - d.between_share()).abs() <= 1e-6, "{:?} {:?}", c, d);
                }
                (None, None) => prop_assert!(within.len() < 2),
                (c, d) => prop_assert!(false, "{:?} {:?}", c, d),
            }
        }

        #[test]
        fn the_t_distribution_gives_probabilities(t in -50.0f64..50.0, df in 1.0f64..200.0) {
            let p = t_cdf(t, df);
            prop_assert!((0.0..=1.0).contains(&p), "{}", p);
            prop_assert!((p + t_cdf(-t, df) - 1.0).abs() <= 1e-9, "{} {}", p, t_cdf(-t, df));
        }
    }
}
