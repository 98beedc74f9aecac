//! A row beside the tool a user would pick instead: pairs of figures (timeshare, tool) taken
//! alternately, their ratio, and the verdict against the row's declared tolerance. Pure.
//!
//! # Deciding by an interval, sequentially
//! A median of three to five pair ratios on a noisy machine lands on either side of the
//! tolerance from one run to the next wherever the pairs' own spread spans it. So the
//! verdict is taken from the ratio's confidence interval (Student's t on the 10%-trimmed
//! mean of the logarithms of the per-pair ratios, below): *within* when the whole interval
//! lies inside 1 ± tolerance, outside when it lies wholly outside, *undecided* when it
//! straddles an edge. Pairs are added while undecided, and the interval is looked at only
//! at the [`Plan`]'s looks (a schedule growing about 1.6× a look). Each look's interval is at 1 − α/L for L looks
//! (Bonferroni), so the chance that any verdict the plan reaches rests on an interval
//! that missed the true ratio is at most α = [`FAMILY_ALPHA`], however many looks it took.
//!
//! # Why a trimmed mean
//! On this kind of machine most pairs agree closely and now and then one is thrown far
//! off (a neighbour's burst, a tick of steal time landing in one side's run). The plain
//! mean of the logarithms follows such a pair, and its standard deviation grows with it:
//! at rest, `cpu.cache` against the C chase at 256 KiB (±5%) came out 1.00× with an
//! interval of 0.97–1.08 after 13 pairs — undecided, the interval's centre 1.02 pulled
//! away from the median — where the run before had called it within. The 10%-trimmed
//! mean (the lowest and highest tenth of the pairs set aside, Tukey and McLaughlin's
//! interval with the winsorized variance, as Wilcox teaches) keeps the interval where the
//! pairs are and as narrow as they are, and its level is the stated one for pairs with
//! normal or heavier tails. Below ten pairs nothing is trimmed
//! (a tenth of nine is no pair), so the first looks, where most rows are decided, are
//! Student's t on the plain mean as before; from ten pairs one pair at each end is set
//! aside, from twenty two. A tenth rather than Wilcox's usual fifth: a fifth would trim
//! from five pairs on, and with three left their t at two degrees of freedom is so wide
//! that a look at five pairs could hardly decide anything.

use serde::{Deserialize, Serialize};

use super::stats::{median, t_quantile};

/// The error rate of a whole sequential verdict (every look together).
pub const FAMILY_ALPHA: f64 = 0.05;

/// How a row compares with its anchor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The median ratio is within 1 ± tolerance.
    Within,
    /// Outside, and nothing declared says why: a failure.
    Outside,
    /// Outside, for a reason the row declares.
    Explained,
    /// Outside, but the tool held its CPU for less than [`BUSY_SHARE`] of its run (other
    /// processes had the rest), and its figure scaled by that share agrees: the pair
    /// measured the machine's load, not a difference between the two programs.
    Contended,
    /// The ratio's interval straddles an edge of the tolerance after the last look the
    /// plan allowed: the pairs cannot tell here. Not a failure, and not a pass.
    Undecided,
}

/// Below this share of its pinned CPU, a tool's wall-clock figure includes other
/// processes' time slices.
pub const BUSY_SHARE: f64 = 0.9;

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Within => "within",
            Verdict::Outside => "OUTSIDE",
            Verdict::Explained => "explained",
            Verdict::Contended => "contended",
            Verdict::Undecided => "undecided",
        }
    }
}

/// When the interval is looked at: after `first` pairs, then at about 1.6× the last look,
/// up to `max` pairs. The loop that adds pairs asks [`Plan::wants_more`] after each one.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    looks: Vec<usize>,
}

impl Plan {
    /// The looks from `first` (at least 2: one pair has no spread) up to `max` (at least
    /// `first`): 3, 5, 8, 12, 20 … for `first` 3.
    pub fn new(first: usize, max: usize) -> Plan {
        let first = first.max(2);
        let max = max.max(first);
        let mut looks = vec![first];
        while *looks.last().expect("one look") < max {
            let last = *looks.last().expect("one look");
            looks.push(((last as f64 * 1.6).round() as usize).clamp(last + 1, max));
        }
        Plan { looks }
    }

    pub fn looks(&self) -> &[usize] {
        &self.looks
    }

    /// The most pairs the plan takes.
    pub fn max(&self) -> usize {
        *self.looks.last().expect("a plan has a look")
    }

    /// The error rate of each look's interval: α over the number of looks.
    pub fn alpha_per_look(&self) -> f64 {
        FAMILY_ALPHA / self.looks.len() as f64
    }

    /// Whether to take another pair after `done`: not before the first look, not past
    /// the last; at a look, only while `verdict` (of the pairs so far, at
    /// [`Plan::alpha_per_look`]) is undecided. `out_of_time` stops at the next look
    /// reached — or at once, when it is already past its first look: that stop is a look
    /// in place of the ones it skips, so the number of looks never exceeds the plan's.
    pub fn wants_more(&self, done: usize, verdict: Option<Verdict>, out_of_time: bool) -> bool {
        if done >= self.max() {
            return false;
        }
        if done < self.looks[0] {
            return true;
        }
        let at_look = self.looks.contains(&done);
        let decided = verdict.is_some_and(|v| v != Verdict::Undecided);
        !(out_of_time || (at_look && decided))
    }
}

/// The statistics of N interleaved pairs, each a figure in seconds per row operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pairing {
    pub pairs: usize,
    /// Median of timeshare's figures.
    pub row_median: f64,
    /// Median of the tool's figures (in the row's basis).
    pub anchor_median: f64,
    /// Median, minimum and maximum of the per-pair ratios timeshare / tool.
    pub ratio_median: f64,
    pub ratio_min: f64,
    pub ratio_max: f64,
    /// Median share of its CPU the tool had while it ran: its CPU time (user + system,
    /// of it and its children) over its wall time. Every anchor runs pinned to one CPU
    /// and keeps it busy, so 1 means nothing else ran there. `None` when not measured.
    #[serde(default)]
    pub tool_cpu_share: Option<f64>,
    /// The ratio's confidence interval (from the per-pair ratios' logarithms, Student's t)
    /// at [`Pairing::confidence`]; `None` with fewer than two pairs.
    #[serde(default)]
    pub ci_low: Option<f64>,
    #[serde(default)]
    pub ci_high: Option<f64>,
    /// The interval's level, 1 − α per look (e.g. 0.99 for five looks at α 0.05).
    #[serde(default)]
    pub confidence: Option<f64>,
    /// Each side's interval at the same level, (low, high) in seconds per row operation,
    /// from its figures' logarithms as the ratio's; `None` with fewer than two pairs.
    #[serde(default)]
    pub row_ci: Option<(f64, f64)>,
    #[serde(default)]
    pub anchor_ci: Option<(f64, f64)>,
    /// Every pair's ratio timeshare / tool, in the order the pairs were taken.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ratios: Vec<f64>,
}

impl Pairing {
    /// [`Pairing::of`] with the ratio's interval at 1 − `alpha` (two-sided).
    pub fn with_interval(pairs: &[(f64, f64)], alpha: f64) -> Option<Pairing> {
        let mut p = Pairing::of(pairs)?;
        let logs: Vec<f64> = p.ratios.iter().map(|r| r.ln()).collect();
        if let Some((lo, hi)) = log_trimmed_interval(&logs, alpha) {
            p.ci_low = Some(lo);
            p.ci_high = Some(hi);
            p.confidence = Some(1.0 - alpha);
        }
        let side = |pick: fn(&(f64, f64)) -> f64| {
            let logs: Vec<f64> = pairs.iter().map(|p| pick(p).ln()).collect();
            log_trimmed_interval(&logs, alpha)
        };
        p.row_ci = side(|p| p.0);
        p.anchor_ci = side(|p| p.1);
        Some(p)
    }

    /// `None` without at least one pair, or with a figure that is not a positive number.
    pub fn of(pairs: &[(f64, f64)]) -> Option<Pairing> {
        if pairs.is_empty()
            || pairs
                .iter()
                .any(|&(a, b)| !(a.is_finite() && b.is_finite() && a > 0.0 && b > 0.0))
        {
            return None;
        }
        let row: Vec<f64> = pairs.iter().map(|p| p.0).collect();
        let tool: Vec<f64> = pairs.iter().map(|p| p.1).collect();
        let ratios: Vec<f64> = pairs.iter().map(|p| p.0 / p.1).collect();
        Some(Pairing {
            pairs: pairs.len(),
            row_median: median(&row),
            anchor_median: median(&tool),
            ratio_median: median(&ratios),
            ratio_min: ratios.iter().copied().fold(f64::INFINITY, f64::min),
            ratio_max: ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            tool_cpu_share: None,
            ci_low: None,
            ci_high: None,
            confidence: None,
            row_ci: None,
            anchor_ci: None,
            ratios,
        })
    }

    /// The tool's share of its CPU in each pair (see [`Pairing::tool_cpu_share`]);
    /// shares that are not a number in (0, 1.5] are left out (a share a little above 1
    /// is the tick-based accounting of CPU time).
    pub fn with_tool_shares(mut self, shares: &[f64]) -> Pairing {
        let ok: Vec<f64> = shares
            .iter()
            .copied()
            .filter(|s| s.is_finite() && *s > 0.0 && *s <= 1.5)
            .collect();
        self.tool_cpu_share = (!ok.is_empty()).then(|| median(&ok).min(1.0));
        self
    }

    /// The median ratio with the tool's figure scaled to the CPU time it had: ratio /
    /// share. `None` without a measured share.
    pub fn busy_ratio(&self) -> Option<f64> {
        self.tool_cpu_share.map(|s| self.ratio_median / s)
    }

    /// With an interval ([`Pairing::with_interval`]): within when it lies inside 1 ±
    /// tolerance; contended when the tool had less than [`BUSY_SHARE`] of its CPU and the
    /// interval scaled by that share lies inside; undecided when the interval (or the
    /// scaled one) straddles an edge; otherwise — wholly outside — explained when a reason
    /// is declared, else outside. Without one (a single pair), the median ratio alone
    /// decides, as a point.
    pub fn verdict(&self, tolerance: f64, explained: bool) -> Verdict {
        let (lo, hi) = match (self.ci_low, self.ci_high) {
            (Some(lo), Some(hi)) => (lo, hi),
            _ => (self.ratio_median, self.ratio_median),
        };
        let place = |lo: f64, hi: f64| Placement::of(lo, hi, tolerance);
        let scaled = self
            .tool_cpu_share
            .filter(|&s| s < BUSY_SHARE)
            .map(|s| place(lo / s, hi / s));
        match (place(lo, hi), scaled) {
            (Placement::Inside, _) => Verdict::Within,
            (_, Some(Placement::Inside)) => Verdict::Contended,
            (Placement::Straddles, _) | (_, Some(Placement::Straddles)) => Verdict::Undecided,
            (Placement::Outside, _) if explained => Verdict::Explained,
            (Placement::Outside, _) => Verdict::Outside,
        }
    }
}

/// Where an interval lies against 1 ± tolerance.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Placement {
    Inside,
    Straddles,
    Outside,
}

impl Placement {
    fn of(lo: f64, hi: f64, tolerance: f64) -> Placement {
        let (low_edge, high_edge) = (1.0 - tolerance - 1e-12, 1.0 + tolerance + 1e-12);
        if lo >= low_edge && hi <= high_edge {
            Placement::Inside
        } else if hi < low_edge || lo > high_edge {
            Placement::Outside
        } else {
            Placement::Straddles
        }
    }
}

/// The share of the values set aside at each end before the mean is taken.
const TRIM: f64 = 0.1;

/// How many of `n` pairs' ratios the interval sets aside at each end.
pub fn trimmed_at_each_end(n: usize) -> usize {
    (TRIM * n as f64).floor() as usize
}

/// The interval of exp(trimmed mean) of `logs` at 1 − `alpha` (Tukey and McLaughlin):
/// g = ⌊[`TRIM`]·n⌋ values set aside at each end, the mean of the h = n − 2g left, and
/// its standard error from the winsorized variance (the g lowest values set to the
/// lowest kept, the g highest to the highest kept), √(s²_w / n) / (1 − 2g/n), with
/// Student's t at h − 1 degrees of freedom. With g = 0 (below ten values) this is the
/// plain mean's t interval. `None` with fewer than two values.
fn log_trimmed_interval(logs: &[f64], alpha: f64) -> Option<(f64, f64)> {
    let n = logs.len();
    if n < 2 {
        return None;
    }
    let mut sorted = logs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let g = trimmed_at_each_end(n);
    let kept = &sorted[g..n - g];
    let h = kept.len();
    let mean = kept.iter().sum::<f64>() / h as f64;
    let (low, high) = (kept[0], kept[h - 1]);
    let winsorized: Vec<f64> = sorted.iter().map(|x| x.clamp(low, high)).collect();
    let w_mean = winsorized.iter().sum::<f64>() / n as f64;
    let w_var = winsorized.iter().map(|x| (x - w_mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let se = (w_var / n as f64).sqrt() / (h as f64 / n as f64);
    let half = t_quantile(1.0 - alpha / 2.0, (h - 1) as f64) * se;
    Some(((mean - half).exp(), (mean + half).exp()))
}

/// One row beside one tool, as `timeshare crosscheck` prints it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckRow {
    pub id: String,
    pub tool: String,
    /// The command line run (`{file}` for the scratch file).
    pub command: String,
    /// What the tool's figure is per.
    pub basis: String,
    pub tolerance: f64,
    /// Why the tolerance is what it is, or why the two differ.
    pub why: Option<String>,
    pub outcome: Outcome,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The tool is not installed: the Debian package that provides it.
    Missing {
        package: String,
    },
    /// The row or the tool did not give a figure.
    Failed {
        error: String,
    },
    Paired {
        pairing: Pairing,
        verdict: Verdict,
    },
}

impl CheckRow {
    /// A failure of the check: outside without a reason, or no figure.
    pub fn fails(&self) -> bool {
        matches!(
            self.outcome,
            Outcome::Failed { .. }
                | Outcome::Paired {
                    verdict: Verdict::Outside,
                    ..
                }
        )
    }
}

/// How a cross-check's pairs were taken and how it ended: what is said above its table
/// and in its JSON's `settings`.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The CPU everything was pinned to.
    pub cpu: usize,
    /// The pairs asked for before a row's first verdict (`--pairs`, as given).
    pub pairs_first: u32,
    pub plan: Plan,
    /// The most a row may spend past its first verdict (`--budget`).
    pub budget: std::time::Duration,
    /// What the whole cross-check aimed to take (`--total`).
    pub total: std::time::Duration,
    /// What it took.
    pub took: std::time::Duration,
    /// lmbench's calibration as its programs were given it (`ENOUGH`, `TIMING_O`,
    /// `LOOP_O`); empty when no lmbench program ran.
    pub lmbench_calibration: Vec<(String, String)>,
    /// Whether the user stopped it: the rows hold the pairs finished.
    pub interrupted: bool,
    /// Pairs done (or no longer needed) out of the most the plans allow.
    pub pairs_done: usize,
    pub pairs_total: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ratio_is_the_median_of_per_pair_ratios() {
        let p = Pairing::of(&[(2.0, 1.0), (1.0, 1.0), (3.0, 2.0)]).unwrap();
        assert_eq!(p.pairs, 3);
        assert_eq!(p.ratio_median, 1.5);
        assert_eq!((p.ratio_min, p.ratio_max), (1.0, 2.0));
        assert_eq!(p.row_median, 2.0);
        assert_eq!(p.anchor_median, 1.0);
    }

    #[test]
    fn verdicts_follow_the_tolerance_and_the_declared_reason() {
        let p = Pairing::of(&[(1.09, 1.0)]).unwrap();
        assert_eq!(p.verdict(0.10, false), Verdict::Within);
        let p = Pairing::of(&[(0.6, 1.0)]).unwrap();
        assert_eq!(p.verdict(0.10, false), Verdict::Outside);
        assert_eq!(p.verdict(0.10, true), Verdict::Explained);
        assert_eq!(p.verdict(0.50, false), Verdict::Within);
    }

    #[test]
    fn a_tool_that_shared_its_cpu_is_contended_only_when_its_share_explains_the_gap() {
        // timeshare 200 ns, the tool 600 ns while it had a third of its CPU.
        let p = Pairing::of(&[(200e-9, 600e-9)]).unwrap();
        assert_eq!(p.verdict(0.10, false), Verdict::Outside);
        let busy = p.clone().with_tool_shares(&[0.35, 0.32, 0.34]);
        assert_eq!(busy.tool_cpu_share, Some(0.34));
        assert!((busy.busy_ratio().unwrap() - 0.98).abs() < 0.01);
        assert_eq!(busy.verdict(0.10, false), Verdict::Contended);
        // The same share cannot explain a ratio it does not bring within the tolerance.
        let far = Pairing::of(&[(100e-9, 600e-9)])
            .unwrap()
            .with_tool_shares(&[0.34]);
        assert_eq!(far.verdict(0.10, false), Verdict::Outside);
        assert_eq!(far.verdict(0.10, true), Verdict::Explained);
        // A tool that had its CPU is never excused by the load.
        let alone = p.with_tool_shares(&[0.97, 1.02]);
        assert_eq!(alone.tool_cpu_share, Some(0.995));
        assert_eq!(alone.verdict(0.10, false), Verdict::Outside);
    }

    #[test]
    fn shares_that_are_not_shares_are_left_out() {
        let p = Pairing::of(&[(1.0, 1.0)]).unwrap();
        assert_eq!(p.clone().with_tool_shares(&[]).tool_cpu_share, None);
        assert_eq!(
            p.clone()
                .with_tool_shares(&[f64::NAN, 0.0, -1.0, 9.0])
                .tool_cpu_share,
            None
        );
        assert_eq!(p.with_tool_shares(&[1.2]).tool_cpu_share, Some(1.0));
    }

    /// Pairs whose ratios are `ratios` (the tool's figure 1 each time).
    fn pairs_of(ratios: &[f64]) -> Vec<(f64, f64)> {
        ratios.iter().map(|&r| (r, 1.0)).collect()
    }

    #[test]
    fn an_interval_inside_the_tolerance_is_within_and_one_across_an_edge_is_undecided() {
        let tight =
            Pairing::with_interval(&pairs_of(&[0.95, 1.0, 1.05, 0.98, 1.02]), 0.01).unwrap();
        let (lo, hi) = (tight.ci_low.unwrap(), tight.ci_high.unwrap());
        assert!(lo > 0.9 && hi < 1.1 && lo < 1.0 && hi > 1.0, "{lo}–{hi}");
        assert_eq!(tight.confidence, Some(0.99));
        assert_eq!(tight.verdict(0.10, false), Verdict::Within);
        // The same median with a spread that reaches past the edge: not decided.
        let wide = Pairing::with_interval(&pairs_of(&[0.85, 1.0, 1.15]), 0.01).unwrap();
        assert_eq!(wide.ratio_median, 1.0);
        assert_eq!(wide.verdict(0.10, false), Verdict::Undecided);
        assert_eq!(wide.verdict(0.10, true), Verdict::Undecided);
        // Wholly below the tolerance: outside, or explained when a reason is declared.
        let low = Pairing::with_interval(&pairs_of(&[0.5, 0.52, 0.48, 0.51]), 0.01).unwrap();
        assert_eq!(low.verdict(0.10, false), Verdict::Outside);
        assert_eq!(low.verdict(0.10, true), Verdict::Explained);
    }

    #[test]
    fn one_pair_thrown_off_among_many_leaves_the_interval_where_the_others_are() {
        let mut ratios = vec![
            0.99, 1.01, 1.00, 0.98, 1.02, 1.00, 0.99, 1.01, 1.00, 1.01, 0.99, 1.00,
        ];
        ratios.push(1.40);
        let p = Pairing::with_interval(&pairs_of(&ratios), 0.0125).unwrap();
        let (lo, hi) = (p.ci_low.unwrap(), p.ci_high.unwrap());
        assert!(lo > 0.98 && hi < 1.03, "{lo}–{hi}");
        assert_eq!(p.verdict(0.05, false), Verdict::Within);
        assert_eq!(p.ratios.len(), 13);
        assert_eq!(p.ratios[12], 1.40);
        // The plain mean's interval of the same pairs straddles the 5% edge: the thrown
        // pair alone would have left the row undecided.
        let logs: Vec<f64> = ratios.iter().map(|r: &f64| r.ln()).collect();
        let n = logs.len() as f64;
        let mean = logs.iter().sum::<f64>() / n;
        let sd = (logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        let half = t_quantile(1.0 - 0.0125 / 2.0, n - 1.0) * sd / n.sqrt();
        assert!((mean + half).exp() > 1.05, "{}", (mean + half).exp());
        // Below ten pairs nothing is set aside: two pairs at each end of nine change it.
        let nine = Pairing::with_interval(&pairs_of(&ratios[3..12]), 0.0125).unwrap();
        let logs: Vec<f64> = ratios[3..12].iter().map(|r: &f64| r.ln()).collect();
        let mean = logs.iter().sum::<f64>() / 9.0;
        assert!(((nine.ci_low.unwrap() * nine.ci_high.unwrap()).ln() / 2.0 - mean).abs() < 1e-12);
    }

    #[test]
    fn a_contended_tool_is_judged_by_its_scaled_interval() {
        // The tool at half its CPU: its figures doubled, ratios near 0.5.
        let p = Pairing::with_interval(&pairs_of(&[0.49, 0.51, 0.50, 0.50]), 0.01)
            .unwrap()
            .with_tool_shares(&[0.5, 0.5, 0.5, 0.5]);
        assert_eq!(p.verdict(0.10, false), Verdict::Contended);
        // A share that brings the interval only across the edge decides nothing.
        let q = p.clone().with_tool_shares(&[0.45]);
        assert_eq!(q.verdict(0.10, false), Verdict::Undecided);
    }

    #[test]
    fn the_plan_looks_at_growing_numbers_of_pairs_and_stops_once_decided() {
        let plan = Plan::new(3, 20);
        assert_eq!(plan.looks(), &[3, 5, 8, 13, 20]);
        assert!((plan.alpha_per_look() - 0.01).abs() < 1e-12);
        assert_eq!(Plan::new(1, 1).looks(), &[2]);
        assert_eq!(Plan::new(5, 5).looks(), &[5]);
        let undecided = Some(Verdict::Undecided);
        let within = Some(Verdict::Within);
        assert!(plan.wants_more(1, None, false));
        assert!(
            plan.wants_more(2, None, true),
            "no verdict before the first look"
        );
        assert!(!plan.wants_more(3, within, false));
        assert!(plan.wants_more(3, undecided, false));
        assert!(
            plan.wants_more(4, within, false),
            "4 is no look: its verdict is not read"
        );
        assert!(
            !plan.wants_more(5, undecided, true),
            "out of time past the first look"
        );
        assert!(!plan.wants_more(20, undecided, false));
    }

    /// Sequences of pairs drawn around a known true ratio, each taken through the plan as
    /// the command does: how often the verdict it reaches is the wrong one.
    fn verdicts_reached(true_ratio: f64, spread: f64, seed: u64) -> Vec<Verdict> {
        let mut rng = crate::model::seeded::Seeded::new(seed);
        let plan = Plan::new(3, 20);
        (0..400)
            .map(|_| {
                let mut pairs = Vec::new();
                let mut verdict = None;
                while plan.wants_more(pairs.len(), verdict, false) {
                    // A ratio with a log-normal spread: the product of a few uniform draws.
                    let noise: f64 = (0..4).map(|_| rng.between(-1.0, 1.0)).sum::<f64>();
                    pairs.push((true_ratio * (spread * noise / 2.0).exp(), 1.0));
                    verdict = Pairing::with_interval(&pairs, plan.alpha_per_look())
                        .map(|p| p.verdict(0.10, false));
                }
                verdict.unwrap()
            })
            .collect()
    }

    #[test]
    fn a_decided_verdict_is_wrong_at_most_at_the_stated_rate() {
        for (seed, spread) in [(1, 0.03), (2, 0.08), (3, 0.15)] {
            let agree = verdicts_reached(1.0, spread, seed);
            let wrong = agree.iter().filter(|v| **v == Verdict::Outside).count();
            assert!(
                wrong as f64 <= FAMILY_ALPHA * 400.0,
                "{wrong} of 400 at {spread}"
            );
            let apart = verdicts_reached(0.7, spread, seed + 10);
            let wrong = apart.iter().filter(|v| **v == Verdict::Within).count();
            assert!(
                wrong as f64 <= FAMILY_ALPHA * 400.0,
                "{wrong} of 400 at {spread}"
            );
        }
        // A tight pair decides at the first looks; a loose one spends pairs and says so.
        let tight = verdicts_reached(1.0, 0.02, 7);
        assert!(tight.iter().all(|v| *v == Verdict::Within));
        let loose = verdicts_reached(1.0, 0.4, 8);
        assert!(loose.contains(&Verdict::Undecided));
    }

    #[test]
    fn no_pairing_from_nothing_or_from_a_non_figure() {
        assert_eq!(Pairing::of(&[]), None);
        assert_eq!(Pairing::of(&[(1.0, 0.0)]), None);
        assert_eq!(Pairing::of(&[(-1.0, 1.0)]), None);
        assert_eq!(Pairing::of(&[(f64::NAN, 1.0)]), None);
    }
}
