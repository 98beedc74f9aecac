//! `run --precision P [--budget T]`: Kalibera and Jones's "reasonable time". A pilot of a
//! few invocations measures, per id, how the variance of an invocation's median splits
//! between processes and within one (`model::invocations::Components`); from that each id gets
//! the cheapest plan of further invocations, and samples in each, expected to bring the
//! 95% interval of its headline within ±P; the plans that fit the time budget are run
//! (further rounds in fresh processes, each with only the ids that still need one, the
//! order shuffled), and every id's notes say what it reached — or why not: the budget, or
//! no plan within the invocation limit, or a variance larger than the pilot showed.
//!
//! # Cost model
//! One invocation of an id with n samples is expected to take `d · (F + (1 − F) · n/n₀)`,
//! d being its mean time per pilot invocation with n₀ samples and F = 0.2 the share that
//! does not grow with samples (preparation, calibration). Starting a process is counted as
//! F · n₀ / (1 − F) samples' worth in the plan, and in the budget as the pilot's own
//! per-round time beyond the ids' durations.

use std::time::Instant;

use anyhow::Result;
use rand::seq::SliceRandom;

use super::contract::Benchmark;
use super::hooks::Observer;
use super::invocations::{self, Side};
use super::runner::Runner;
use crate::model::levels::{self, Done, Plan};
use crate::model::{BenchResult, Run, RunStatus};

/// The share of an invocation's time that does not grow with its samples.
const FIXED: f64 = 0.2;

/// What `--precision` asks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Target {
    /// The relative half-width of the 95% CI wanted (0.02 for ±2%).
    pub precision: f64,
    /// Seconds the whole run may take, pilot included.
    pub budget_s: f64,
    /// Invocations of the pilot (at least 2).
    pub pilot: usize,
    /// No id is planned more invocations than this in all.
    pub max_invocations: usize,
}

/// One id's plan after the pilot.
#[derive(Debug, Clone, PartialEq)]
pub struct IdPlan {
    pub id: String,
    /// What the pilot measured.
    pub done: Done,
    /// `None`: no plan within the invocation limit reaches the target.
    pub plan: Option<Plan>,
    /// Expected seconds of the further invocations.
    pub cost_s: f64,
    /// Whether the budget allowed it.
    pub accepted: bool,
}

/// The plan of each id of the pilot's merged `results` that has components (measured in
/// at least two invocations); `pilot_samples(id)` is its samples per pilot invocation.
pub fn plan_ids(
    results: &[BenchResult],
    target: &Target,
    pilot_samples: &dyn Fn(&str) -> usize,
) -> Vec<IdPlan> {
    let mut out = Vec::new();
    for r in results.iter().filter(|r| r.status.is_ok() && !r.derived) {
        let (Some(inv), Some(s)) = (&r.invocations, &r.summary) else {
            continue;
        };
        let Some(c) = inv.components() else {
            continue;
        };
        let n0 = pilot_samples(&r.id).max(1);
        let done = Done {
            invocations: inv.count(),
            samples: n0,
        };
        let start_cost = FIXED * n0 as f64 / (1.0 - FIXED);
        let plan = levels::plan_more(
            &c,
            s.mean,
            done,
            target.precision,
            target.max_invocations,
            start_cost,
        );
        let d = r.duration_s / inv.count() as f64;
        let cost_s = plan.map_or(0.0, |p| {
            p.invocations as f64 * d * (FIXED + (1.0 - FIXED) * p.samples as f64 / n0 as f64)
        });
        out.push(IdPlan {
            id: r.id.clone(),
            done,
            plan,
            cost_s,
            accepted: false,
        });
    }
    out
}

/// Accept the plans cheapest first while they fit `remaining_s`, counting `round_s` for
/// every further round the accepted plans need.
pub fn fit_budget(plans: &mut [IdPlan], remaining_s: f64, round_s: f64) {
    let mut order: Vec<usize> = (0..plans.len())
        .filter(|&i| plans[i].plan.is_some_and(|p| p.invocations > 0))
        .collect();
    order.sort_by(|&a, &b| plans[a].cost_s.total_cmp(&plans[b].cost_s));
    let (mut spent, mut rounds) = (0.0, 0usize);
    for i in order {
        let more = plans[i].plan.map_or(0, |p| p.invocations);
        let r = rounds.max(more);
        let total = spent + plans[i].cost_s + r as f64 * round_s;
        if total <= remaining_s {
            plans[i].accepted = true;
            spent += plans[i].cost_s;
            rounds = r;
        }
    }
}

/// The note an id's row carries: the target, what it reached, and why not when it did not.
pub fn note(p: &IdPlan, reached: Option<f64>, target: &Target, ran: usize) -> String {
    let pct = |x: f64| format!("±{:.1}%", x * 100.0);
    let want = pct(target.precision);
    let Some(got) = reached else {
        return format!("precision {want} wanted: no interval across processes");
    };
    let k = p.done.invocations + ran;
    if got <= target.precision {
        return match p.plan {
            Some(plan) if plan.invocations > 0 => format!(
                "precision {want} reached ({}) in {k} invocations, {ran} more of {} samples",
                pct(got),
                plan.samples
            ),
            _ => format!(
                "precision {want} reached ({}) by the {k}-invocation pilot",
                pct(got)
            ),
        };
    }
    match p.plan {
        None => format!(
            "precision {want} not reached ({}): no plan within {} invocations reaches it",
            pct(got),
            target.max_invocations
        ),
        Some(plan) if !p.accepted || ran < plan.invocations => format!(
            "precision {want} not reached ({}): the plan ({} more invocations of {} samples, \
             ~{:.0} s) did not fit the {} budget{}",
            pct(got),
            plan.invocations,
            plan.samples,
            p.cost_s,
            budget_text(target.budget_s),
            if ran > 0 {
                format!("; {ran} of them ran")
            } else {
                String::new()
            }
        ),
        Some(plan) => format!(
            "precision {want} not reached ({}) after {ran} more invocations of {} samples: \
             the processes varied more than the pilot's",
            pct(got),
            plan.samples
        ),
    }
}

/// "10 min", "45 s".
pub fn budget_text(s: f64) -> String {
    if s >= 120.0 && (s / 60.0).fract() == 0.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{s:.0} s")
    }
}

/// [`super::session::Strategy::ToPrecision`]: `benches` measured to `target` (see the
/// module's comment), a pilot of `target.pilot` processes of `side`, then the further
/// rounds the accepted plans need, then each id merged across all its invocations with
/// its precision note first, into `run`.
pub(super) fn measure(
    runner: &Runner,
    side: &Side,
    target: &Target,
    benches: &[&Benchmark],
    run: &mut Run,
    observer: &mut dyn Observer,
) -> Result<()> {
    let started = Instant::now();
    let ids: Vec<String> = benches.iter().map(|b| b.id().to_string()).collect();
    let pilot_k = target.pilot.max(2);
    let pilot = invocations::measure(
        std::slice::from_ref(side),
        benches,
        pilot_k,
        &runner.scratch_root,
        &mut |step| {
            if let invocations::Step::Round(r) = step {
                observer.bench_started(r, &format!("pilot invocation {}/{pilot_k}", r + 1))
            }
        },
    )?;
    let mut runs: Vec<Run> = pilot.runs.into_iter().next().unwrap_or_default();
    let mut interrupted = pilot.interrupted;
    let merged = levels::merge_runs(&runs, &ids);
    let mode = invocations::plan_mode(&runner.options);
    let pilot_samples = |id: &str| {
        benches
            .iter()
            .find(|b| b.id() == id)
            .map_or(1, |b| b.plan(mode).samples)
    };
    let mut plans = plan_ids(&merged, target, &pilot_samples);
    let pilot_s = started.elapsed().as_secs_f64();
    let ids_s: f64 = merged.iter().map(|r| r.duration_s).sum();
    let round_s = ((pilot_s - ids_s) / pilot_k as f64).max(0.0);
    fit_budget(&mut plans, target.budget_s - pilot_s, round_s);

    let mut options = side.options.clone();
    for p in plans.iter().filter(|p| p.accepted) {
        if let Some(plan) = p.plan {
            options.samples.insert(p.id.clone(), plan.samples);
        }
    }
    let more = Side {
        options,
        ..side.clone()
    };
    let rounds = plans
        .iter()
        .filter(|p| p.accepted)
        .filter_map(|p| p.plan.map(|p| p.invocations))
        .max()
        .unwrap_or(0);
    let mut ran = vec![0usize; plans.len()];
    let mut rng = rand::make_rng::<rand::rngs::SmallRng>();
    for r in 0..rounds {
        if interrupted || started.elapsed().as_secs_f64() > target.budget_s {
            break;
        }
        let mut order: Vec<&Benchmark> = Vec::new();
        for (i, p) in plans.iter().enumerate() {
            if p.accepted && p.plan.is_some_and(|plan| plan.invocations > r) {
                order.extend(benches.iter().find(|b| b.id() == p.id));
                ran[i] += 1;
            }
        }
        order.shuffle(&mut rng);
        let label = format!("invocation {}/{} for precision", r + 1, rounds);
        let got = invocations::measure(
            std::slice::from_ref(&more),
            &order,
            1,
            &runner.scratch_root,
            &mut |_| observer.bench_started(pilot_k + r, &label),
        )?;
        interrupted = got.interrupted;
        runs.extend(got.runs.into_iter().flatten());
    }
    run.options.precision = Some(target.precision);
    run.options.budget_s = Some(target.budget_s);
    run.options.invocations = Some(pilot_k);
    run.options.samples = more.options.samples.clone();
    run.status = RunStatus::ended(interrupted);
    for mut result in levels::merge_runs(&runs, &ids) {
        if let Some(i) = plans.iter().position(|p| p.id == result.id) {
            let reached = result
                .invocations
                .as_ref()
                .filter(|inv| inv.count() > 1)
                .and(result.summary.as_ref())
                .map(|s| s.relative_ci());
            result
                .notes
                .insert(0, note(&plans[i], reached, target, ran[i]));
        }
        observer.bench_finished(&result)?;
        run.results.push(result);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::invocations::Invocations;
    use crate::model::{Better, Summary, Unit};

    fn result(id: &str, medians: &[f64], duration_s: f64) -> BenchResult {
        let within: Vec<Summary> = medians.iter().map(|&m| Summary::around(m, 0.001)).collect();
        BenchResult {
            summary: levels::across(&within).ok(),
            duration_s,
            invocations: Some(Invocations {
                within,
                runs: None,
                slower: Vec::new(),
            }),
            ..BenchResult::new(id, "syscall", "", Unit::SecondsPerOp, Better::Lower, None)
        }
    }

    fn target(budget_s: f64) -> Target {
        Target {
            precision: 0.02,
            budget_s,
            pilot: 3,
            max_invocations: 30,
        }
    }

    #[test]
    fn steady_ids_need_nothing_and_noisy_ones_get_invocations_that_fit_the_budget() {
        let results = [
            // Three processes within 0.2%: the pilot reaches ±2% already.
            result("steady", &[1.0, 1.001, 0.999], 3.0),
            // Processes 5% apart: many more needed.
            result("noisy", &[1.0, 1.05, 0.95], 3.0),
            // 30% apart: no plan within 30 invocations.
            result("wild", &[1.0, 1.3, 0.7], 3.0),
        ];
        let mut plans = plan_ids(&results, &target(600.0), &|_| 21);
        assert_eq!(plans.len(), 3);
        assert_eq!(plans[0].plan.map(|p| p.invocations), Some(0));
        let noisy = plans[1].plan.expect("a plan for the noisy id");
        assert!(noisy.invocations > 0 && noisy.expected <= 0.02, "{noisy:?}");
        assert!(plans[2].plan.is_none());
        fit_budget(&mut plans, 600.0, 1.0);
        assert!(plans[1].accepted);
        let t = target(600.0);
        let n = note(&plans[0], Some(0.005), &t, 0);
        assert!(
            n.contains("reached (±0.5%) by the 3-invocation pilot"),
            "{n}"
        );
        let n = note(&plans[2], Some(0.3), &t, 0);
        assert!(n.contains("no plan within 30 invocations"), "{n}");
        // A budget that cannot pay for it: refused, and the note says so.
        let mut plans = plan_ids(&results, &t, &|_| 21);
        fit_budget(&mut plans, 0.5, 1.0);
        assert!(!plans[1].accepted);
        let n = note(&plans[1], Some(0.06), &target(30.0), 0);
        assert!(
            n.contains("not reached (±6.0%)") && n.contains("did not fit the 30 s budget"),
            "{n}"
        );
        // Ran as planned but the processes varied more: said so.
        let mut p = plans[1].clone();
        p.accepted = true;
        let more = noisy.invocations;
        let n = note(&p, Some(0.03), &t, more);
        assert!(n.contains("varied more than the pilot's"), "{n}");
        let n = note(&p, Some(0.015), &t, more);
        assert!(
            n.contains(&format!("reached (±1.5%) in {} invocations", 3 + more)),
            "{n}"
        );
    }

    #[test]
    fn the_budget_takes_the_cheapest_plans_first() {
        let plan = |k| {
            Some(Plan {
                invocations: k,
                samples: 5,
                expected: 0.01,
            })
        };
        let id = |name: &str, k, cost_s| IdPlan {
            id: name.into(),
            done: Done {
                invocations: 3,
                samples: 21,
            },
            plan: plan(k),
            cost_s,
            accepted: false,
        };
        let mut plans = vec![
            id("dear", 10, 50.0),
            id("cheap", 2, 5.0),
            id("mid", 4, 20.0),
        ];
        // 5 + 20 + 4 rounds × 1 s = 29 fits 30; the dear one would need 75 + 10.
        fit_budget(&mut plans, 30.0, 1.0);
        let accepted: Vec<&str> = plans
            .iter()
            .filter(|p| p.accepted)
            .map(|p| p.id.as_str())
            .collect();
        assert_eq!(accepted, ["cheap", "mid"]);
        assert_eq!(budget_text(600.0), "10 min");
        assert_eq!(budget_text(45.0), "45 s");
    }
}
