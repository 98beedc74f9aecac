//! How far runs of the same thing agree: the A/A checks of the noise the figures carry.
//!
//! - [`decide_runs`]: the verdicts of one run against another for every id both measured,
//!   decided together the way `compare` decides them (the process-level test where both
//!   have enough processes, else the samples'; Benjamini–Hochberg over all ids; the
//!   effect-size threshold; the run-to-run spread where a run learned one). Between two runs of the same build every "changed" is a
//!   false one.
//! - [`agreement`]: across three or more runs, the share of ids whose headline CI in each
//!   run contains the other runs' medians, and the share whose medians all lie within a
//!   given spread.
//! - [`inject`]: one id's figures scaled, as if that row had become slower by a factor —
//!   the injected change an A/A check must still find.
//! - [`detection`]: how often such a slow-down, injected into one id at a time, is found
//!   by a comparison of two given runs: the smallest change that comparison can tell.

use super::change::{self, Verdict};
use super::result::{BenchResult, Run};

/// One id's verdict in [`decide_runs`].
#[derive(Debug, Clone, PartialEq)]
pub struct Decided {
    pub id: String,
    pub ratio: f64,
    pub p_value: f64,
    pub verdict: Verdict,
    /// The test behind the verdict: its level, the run-to-run bound, the state match.
    pub test: change::Test,
}

/// One side of a comparison: a run's results and the CPU frequency its rows are judged
/// against for resolution (a figure under one cycle is no figure).
#[derive(Debug, Clone, Copy)]
pub struct Side<'a> {
    pub results: &'a [BenchResult],
    pub mhz: Option<f64>,
}

impl<'a> Side<'a> {
    pub fn of(run: &'a Run) -> Self {
        Side {
            results: &run.results,
            mhz: run.environment.cpu.mhz,
        }
    }
}

/// The verdicts of `after` against `before`, one per id both measured comparably (same
/// unit, bases that convert, a resolved figure on both sides). `compare` shows these.
pub fn decide_runs(before: &Run, after: &Run, min_effect: f64) -> Vec<Decided> {
    decide(Side::of(before), Side::of(after), min_effect)
}

/// [`decide_runs`] on two sides: every id tested, then decided together.
pub fn decide(before: Side, after: Side, min_effect: f64) -> Vec<Decided> {
    let mut tests = Vec::new();
    for a in before.results {
        let Some(b) = after.results.iter().find(|r| r.id == a.id) else {
            continue;
        };
        if let Some(t) = pair_test((a, before.mhz), (b, after.mhz)) {
            tests.push((a.id.clone(), t, a.better));
        }
    }
    let p: Vec<f64> = tests.iter().map(|(_, t, _)| t.p_value).collect();
    let found = change::benjamini_hochberg(&p, change::FDR);
    tests
        .into_iter()
        .zip(found)
        .map(|((id, t, better), discovered)| Decided {
            id,
            ratio: t.ratio,
            p_value: t.p_value,
            verdict: change::verdict(&t, discovered, better, min_effect),
            test: t,
        })
        .collect()
}

/// One id's test, when both sides hold a resolved, measured (not derived) figure of the
/// same unit in bases that convert. Samples are in each run's basis (a batch of so many
/// operations): both are brought to one operation before they are tested.
fn pair_test(
    a: (&BenchResult, Option<f64>),
    b: (&BenchResult, Option<f64>),
) -> Option<change::Test> {
    let (a, b) = (tested(a.0, a.1)?, tested(b.0, b.1)?);
    let (ma, mb) = (a.measure()?, b.measure()?);
    ma.check(&mb).ok()?;
    let ratio = mb.divided_by(&ma).ok()?;
    let (oa, ob) = (one_op(&ma), one_op(&mb));
    let per = |r: &BenchResult, f: f64| -> Vec<f64> { clean(r).iter().map(|v| v * f).collect() };
    let (ia, ib) = (
        a.invocations
            .as_ref()
            .and_then(change::Processes::of)
            .map(|p| p.scaled(oa)),
        b.invocations
            .as_ref()
            .and_then(change::Processes::of)
            .map(|p| p.scaled(ob)),
    );
    let runs = change::learned_spread(run_level(a), run_level(b));
    change::test(
        (&per(a, oa), ia.as_ref()),
        (&per(b, ob), ib.as_ref()),
        (1.0, ratio),
        runs,
    )
}

/// `r` when it can be tested: measured, not derived, resolved at `mhz`. (The test takes
/// its processes' medians, else its samples; a row with neither is not tested.)
fn tested(r: &BenchResult, mhz: Option<f64>) -> Option<&BenchResult> {
    let resolved = super::resolution::shown_stored(r, mhz).is_some_and(|s| s.is_figure());
    (comparable(r) && resolved).then_some(r)
}

/// The factor that brings a sample of `m`'s basis to one operation.
fn one_op(m: &super::Measure) -> f64 {
    if m.unit().grows_with_work() {
        1.0 / m.basis().ops.max(1) as f64
    } else {
        1.0
    }
}

/// The run-to-run spread `r`'s run learned for it, if any.
fn run_level(r: &BenchResult) -> Option<&super::invocations::RunLevel> {
    r.invocations.as_ref().and_then(|i| i.runs.as_ref())
}

fn comparable(r: &BenchResult) -> bool {
    r.status.is_ok() && !r.derived && !r.below_resolution && r.summary.is_some()
}

fn clean(r: &BenchResult) -> Vec<f64> {
    r.samples
        .iter()
        .filter(|s| !s.culled)
        .map(|s| s.value)
        .collect()
}

/// How a slow-down by `factor`, injected into one id at a time, fared in a comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Detection {
    /// The slow-down: 1.10 is 10% more time a call (or 10% less bandwidth).
    pub factor: f64,
    /// Ids whose injected slow-down was called slower.
    pub found: usize,
    /// Ids tried: those compared and not called changed before the injection.
    pub tried: usize,
}

impl Detection {
    pub fn share(&self) -> f64 {
        self.found as f64 / self.tried.max(1) as f64
    }
}

/// For each of `factors`, each id `after` shares with `before` (and not already called
/// changed) slowed by that factor in `after` alone, the whole comparison decided again
/// (the correction for many ids included, as `compare` decides it), and counted when that
/// id is called slower. A throughput row is slowed by dividing its figures.
pub fn detection(before: Side, after: Side, factors: &[f64], min_effect: f64) -> Vec<Detection> {
    let unchanged: Vec<String> = decide(before, after, min_effect)
        .into_iter()
        .filter(|d| d.verdict == Verdict::NoChange)
        .map(|d| d.id)
        .collect();
    factors
        .iter()
        .map(|&factor| {
            let found = unchanged
                .iter()
                .filter(|id| slowed_is_found(before, after, id, factor, min_effect))
                .count();
            Detection {
                factor,
                found,
                tried: unchanged.len(),
            }
        })
        .collect()
}

fn slowed_is_found(before: Side, after: Side, id: &str, factor: f64, min_effect: f64) -> bool {
    let lower_is_better = after
        .results
        .iter()
        .find(|r| r.id == id)
        .is_none_or(|r| r.better == super::unit::Better::Lower);
    let scale = if lower_is_better {
        factor
    } else {
        1.0 / factor
    };
    let slowed = inject_results(after.results, id, scale);
    let slowed = Side {
        results: &slowed,
        ..after
    };
    decide(before, slowed, min_effect)
        .iter()
        .any(|d| d.id == id && d.verdict == Verdict::Slower)
}

/// The smallest of `detections`' factors found for at least half the ids tried: "this
/// comparison can tell changes of about X% here". `None` when none was.
pub fn detectable(detections: &[Detection]) -> Option<f64> {
    detections
        .iter()
        .filter(|d| d.tried > 0 && d.share() >= 0.5)
        .map(|d| d.factor)
        .min_by(f64::total_cmp)
}

/// How many of `decided` were called faster or slower.
pub fn changed(decided: &[Decided]) -> usize {
    decided
        .iter()
        .filter(|d| matches!(d.verdict, Verdict::Faster | Verdict::Slower))
        .count()
}

/// `run` with every figure of `id` multiplied by `factor` (samples, summaries, invocation
/// medians): 1.10 is a 10% slowdown of a latency row. Other ids are untouched.
pub fn inject(run: &Run, id: &str, factor: f64) -> Run {
    let mut run = run.clone();
    run.results = inject_results(&run.results, id, factor);
    run
}

/// [`inject`] on a run's results.
pub fn inject_results(results: &[BenchResult], id: &str, factor: f64) -> Vec<BenchResult> {
    let mut results = results.to_vec();
    for r in results.iter_mut().filter(|r| r.id == id) {
        for s in &mut r.samples {
            s.value *= factor;
        }
        for s in r.summary.iter_mut().chain(r.raw_summary.iter_mut()) {
            scale(s, factor);
        }
        if let Some(inv) = &mut r.invocations {
            for s in &mut inv.within {
                scale(s, factor);
            }
        }
    }
    results
}

fn scale(s: &mut super::Summary, f: f64) {
    s.median *= f;
    s.mean *= f;
    s.sd *= f;
    s.min *= f;
    s.max *= f;
    s.ci_low *= f;
    s.ci_high *= f;
}

/// The agreement of three or more runs of the same selection.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Agreement {
    /// Ids measured (with a figure) in every run.
    pub ids: usize,
    /// Ids whose headline CI in every run contains the medians of all the other runs.
    pub contained: usize,
    /// Ids whose medians across the runs lie within `spread` of each other
    /// ((max − min) / min).
    pub within_spread: usize,
    pub spread: f64,
}

impl Agreement {
    pub fn contained_share(&self) -> f64 {
        share(self.contained, self.ids)
    }

    pub fn within_spread_share(&self) -> f64 {
        share(self.within_spread, self.ids)
    }
}

fn share(n: usize, of: usize) -> f64 {
    if of == 0 {
        0.0
    } else {
        n as f64 / of as f64
    }
}

/// The agreement of `runs` (see [`Agreement`]); derived rows and rows below resolution
/// are left out.
pub fn agreement(runs: &[Run], spread: f64) -> Agreement {
    let mut a = Agreement {
        ids: 0,
        contained: 0,
        within_spread: 0,
        spread,
    };
    let Some(first) = runs.first() else {
        return a;
    };
    for r0 in first.results.iter().filter(|r| comparable(r)) {
        let rows: Vec<&BenchResult> = runs
            .iter()
            .filter_map(|run| {
                run.results
                    .iter()
                    .find(|r| r.id == r0.id && comparable(r) && r.unit == r0.unit)
            })
            .collect();
        if rows.len() != runs.len() {
            continue;
        }
        let summaries: Vec<&super::Summary> =
            rows.iter().filter_map(|r| r.summary.as_ref()).collect();
        a.ids += 1;
        let all_inside = summaries.iter().enumerate().all(|(i, s)| {
            summaries
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .all(|(_, o)| s.ci_low <= o.median && o.median <= s.ci_high)
        });
        if all_inside {
            a.contained += 1;
        }
        let lo = summaries
            .iter()
            .map(|s| s.median)
            .fold(f64::INFINITY, f64::min);
        let hi = summaries
            .iter()
            .map(|s| s.median)
            .fold(f64::NEG_INFINITY, f64::max);
        if lo > 0.0 && (hi - lo) / lo <= spread {
            a.within_spread += 1;
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::invocations::Invocations;
    use crate::model::levels;
    use crate::model::{Better, Summary, Unit};

    fn result(id: &str, medians: &[f64]) -> BenchResult {
        let within: Vec<Summary> = medians
            .iter()
            .map(|&m| Summary::around(m, m * 0.01))
            .collect();
        BenchResult {
            summary: levels::across(&within).ok(),
            invocations: Some(Invocations {
                within,
                runs: None,
                slower: Vec::new(),
            }),
            ..BenchResult::new(id, "syscall", "", Unit::SecondsPerOp, Better::Lower, None)
        }
    }

    fn run(results: Vec<BenchResult>) -> Run {
        Run::of(results)
    }

    #[test]
    fn agreement_counts_contained_medians_and_spread() {
        let runs = [
            run(vec![
                result("a", &[1.0, 1.01, 0.99]),
                result("b", &[1.0, 1.0, 1.0]),
            ]),
            run(vec![
                result("a", &[1.0, 1.02, 1.0]),
                result("b", &[1.2, 1.2, 1.2]),
            ]),
            run(vec![
                result("a", &[1.01, 1.0, 0.99]),
                result("b", &[1.0, 1.0, 1.0]),
            ]),
        ];
        let a = agreement(&runs, 0.05);
        assert_eq!((a.ids, a.contained, a.within_spread), (2, 1, 1));
        assert_eq!(a.contained_share(), 0.5);
    }

    /// Two back-to-back `timeshare run syscall --full` (3 processes each) on the shared
    /// 2-vCPU VM while other engineers were building (load average 9–11), samples
    /// stripped, the invocation summaries kept.
    fn recorded(text: &str) -> Run {
        serde_json::from_str(text).expect("a recorded run")
    }

    #[test]
    fn a_recorded_a_a_pair_calls_at_most_five_percent_changed() {
        let a = recorded(include_str!("../../tests/fixtures/aa-1.json"));
        let b = recorded(include_str!("../../tests/fixtures/aa-2.json"));
        let decided = decide_runs(&a, &b, change::DEFAULT_MIN_EFFECT);
        assert!(decided.len() >= 25, "{} tested", decided.len());
        assert!(
            changed(&decided) as f64 <= 0.05 * decided.len() as f64,
            "{decided:?}"
        );
    }

    /// `run` as it would look on a quiet machine: each id's processes moved to its
    /// headline times `pattern` (within about 1% of each other).
    fn quiet(run: &Run, pattern: [f64; 3]) -> Run {
        let mut run = run.clone();
        for r in &mut run.results {
            let Some(headline) = r.median() else {
                continue;
            };
            if let Some(inv) = &mut r.invocations {
                for (i, s) in inv.within.iter_mut().enumerate() {
                    let f = headline * pattern[i % 3] / s.median;
                    scale(s, f);
                }
                r.summary = levels::across(&inv.within).ok();
            }
        }
        run
    }

    #[test]
    fn an_injected_ten_percent_slowdown_is_found_and_nothing_else() {
        // The recorded run made quiet twice (processes within 1%), and the second with
        // syscall.getpid 10% slower.
        let recorded_a = recorded(include_str!("../../tests/fixtures/aa-1.json"));
        let a = quiet(&recorded_a, [0.99, 1.01, 1.0]);
        let b = quiet(&recorded_a, [1.0, 0.99, 1.01]);
        let aa = decide_runs(&a, &b, change::DEFAULT_MIN_EFFECT);
        assert_eq!(changed(&aa), 0, "{aa:?}");
        let slowed = inject(&b, "syscall.getpid", 1.10);
        let decided = decide_runs(&a, &slowed, change::DEFAULT_MIN_EFFECT);
        let getpid = decided.iter().find(|d| d.id == "syscall.getpid").unwrap();
        assert_eq!(getpid.verdict, Verdict::Slower, "{getpid:?}");
        assert_eq!(changed(&decided), 1, "{decided:?}");
        // Against the recorded second run instead, whose processes disagreed by far more
        // than 10% here, the same injection is below what 3 processes a side resolve: the
        // decision stays "no change" rather than guessing.
        let recorded_b = recorded(include_str!("../../tests/fixtures/aa-2.json"));
        let noisy = decide_runs(
            &recorded_a,
            &inject(&recorded_b, "syscall.getpid", 1.10),
            change::DEFAULT_MIN_EFFECT,
        );
        let getpid = noisy.iter().find(|d| d.id == "syscall.getpid").unwrap();
        assert_eq!(getpid.verdict, Verdict::NoChange, "{getpid:?}");
    }

    #[test]
    fn detection_finds_more_of_larger_slowdowns_and_fewer_between_noisy_runs() {
        let recorded_a = recorded(include_str!("../../tests/fixtures/aa-1.json"));
        let a = quiet(&recorded_a, [0.99, 1.01, 1.0]);
        let b = quiet(&recorded_a, [1.0, 0.99, 1.01]);
        let factors = [1.02, 1.05, 1.10, 1.20];
        let quiet_pair = detection(
            Side::of(&a),
            Side::of(&b),
            &factors,
            change::DEFAULT_MIN_EFFECT,
        );
        assert!(quiet_pair[0].tried >= 25, "{quiet_pair:?}");
        // Below the 5% effect threshold nothing is called, whatever the test says.
        assert_eq!(quiet_pair[0].found, 0, "{quiet_pair:?}");
        // Processes within 1% a side: a 10% slow-down stands out of every id.
        assert_eq!(quiet_pair[2].found, quiet_pair[2].tried, "{quiet_pair:?}");
        assert!(quiet_pair.windows(2).all(|w| w[0].found <= w[1].found));
        let tell = detectable(&quiet_pair).expect("a 10% slow-down is found");
        assert!(tell > 1.02 && tell <= 1.10, "{tell} {quiet_pair:?}");
        // The recorded pair, whose processes disagreed by far more: less is found.
        let recorded_b = recorded(include_str!("../../tests/fixtures/aa-2.json"));
        let noisy = detection(
            Side::of(&recorded_a),
            Side::of(&recorded_b),
            &factors,
            change::DEFAULT_MIN_EFFECT,
        );
        assert!(noisy[2].share() < quiet_pair[2].share(), "{noisy:?}");
        assert!(
            noisy.windows(2).all(|w| w[0].found <= w[1].found),
            "{noisy:?}"
        );
        assert_eq!(detectable(&[]), None);
    }

    #[test]
    fn an_injected_slowdown_scales_one_id_only() {
        let r = run(vec![
            result("a", &[1.0, 1.0, 1.0]),
            result("b", &[2.0, 2.0, 2.0]),
        ]);
        let s = inject(&r, "a", 1.1);
        assert!((s.results[0].median().unwrap() - 1.1).abs() < 1e-12);
        assert_eq!(
            s.results[0].invocations.as_ref().unwrap().medians(),
            [1.1; 3]
        );
        assert_eq!(s.results[1].median(), Some(2.0));
    }

    /// One id measured in ten processes, `slow` of them in the slower state (×1.28), merged
    /// as a full run merges them.
    fn mixed(id: &str, fast: f64, slow: usize) -> BenchResult {
        let parts: Vec<BenchResult> = (0..10)
            .map(|i| {
                let m = if i < slow {
                    fast * 1.28
                } else {
                    fast * (1.0 + 0.002 * i as f64)
                };
                let mut r =
                    BenchResult::new(id, "syscall", "", Unit::SecondsPerOp, Better::Lower, None);
                r.summary = Some(Summary::from_values(&[m * 0.995, m, m * 1.005]).unwrap());
                r.basis = Some(crate::model::Basis {
                    ops: 1,
                    op: "system call".into(),
                });
                r
            })
            .collect();
        levels::merge(&parts)
    }

    #[test]
    fn the_test_is_of_the_processes_in_the_headline() {
        // The same fast state, 2 of 10 processes in the slower one against 6 of 10.
        let two = run(vec![mixed("x", 100e-9, 2)]);
        let six = run(vec![mixed("x", 100e-9, 6)]);
        let d = decide_runs(&two, &six, change::DEFAULT_MIN_EFFECT);
        assert_eq!(d[0].verdict, Verdict::NoChange, "{d:?}");
        // The fast state 10% slower, behind a mixture that moved the other way: found.
        let slower = run(vec![mixed("x", 110e-9, 2)]);
        let d = decide_runs(&six, &slower, change::DEFAULT_MIN_EFFECT);
        assert_eq!(d[0].verdict, Verdict::Slower, "{d:?}");
        assert!((d[0].ratio - 1.1).abs() < 0.01, "{d:?}");
    }

    /// A job row timed in batches of `ops` operations, each batch taking `per_op` × ops.
    fn batched(id: &str, ops: u64, per_op: &[f64]) -> BenchResult {
        let values: Vec<f64> = per_op.iter().map(|v| v * ops as f64).collect();
        BenchResult {
            status: crate::model::Status::Ok,
            summary: Summary::from_values(&values).ok(),
            samples: values
                .iter()
                .map(|&value| crate::model::Sample::unperturbed(value))
                .collect(),
            basis: Some(crate::model::Basis {
                ops,
                op: "operation".into(),
            }),
            ..BenchResult::new(id, "syscall", "", Unit::SecondsPerOp, Better::Lower, None)
        }
    }

    #[test]
    fn rows_whose_batches_differ_are_tested_per_operation_as_compare_shows_them() {
        let spread = [0.98, 1.0, 1.02, 0.99, 1.01, 1.0, 0.995, 1.005, 1.0];
        let slow: Vec<f64> = spread.iter().map(|v| v * 1.3).collect();
        let before = run(vec![
            batched("same", 4, &spread),
            batched("slowed", 1, &spread),
        ]);
        let after = run(vec![
            batched("same", 8, &spread),
            batched("slowed", 1, &slow),
        ]);
        let d = decide_runs(&before, &after, change::DEFAULT_MIN_EFFECT);
        let same = d
            .iter()
            .find(|d| d.id == "same")
            .expect("a batch of 8 against 4 is tested");
        assert_eq!(same.verdict, Verdict::NoChange, "{d:?}");
        assert!((same.ratio - 1.0).abs() < 1e-9, "{d:?}");
        let slowed = d.iter().find(|d| d.id == "slowed").expect("tested");
        assert_eq!(slowed.verdict, Verdict::Slower, "{d:?}");
    }
}
