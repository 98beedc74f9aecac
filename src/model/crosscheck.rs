//! A row beside the tool a user would pick instead: pairs of figures (timeshare, tool) taken
//! alternately, their ratio, and the verdict against the row's declared tolerance. Pure.

use serde::{Deserialize, Serialize};

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
        }
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
}

impl Pairing {
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

    /// Within when |median ratio − 1| ≤ tolerance; contended when the tool had less than
    /// [`BUSY_SHARE`] of its CPU and the ratio scaled by that share is within; otherwise
    /// explained when a reason is declared, else outside.
    pub fn verdict(&self, tolerance: f64, explained: bool) -> Verdict {
        let within = |r: f64| (r - 1.0).abs() <= tolerance + 1e-12;
        if within(self.ratio_median) {
            Verdict::Within
        } else if self.tool_cpu_share.is_some_and(|s| s < BUSY_SHARE)
            && self.busy_ratio().is_some_and(within)
        {
            Verdict::Contended
        } else if explained {
            Verdict::Explained
        } else {
            Verdict::Outside
        }
    }
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

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
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

    #[test]
    fn no_pairing_from_nothing_or_from_a_non_figure() {
        assert_eq!(Pairing::of(&[]), None);
        assert_eq!(Pairing::of(&[(1.0, 0.0)]), None);
        assert_eq!(Pairing::of(&[(-1.0, 1.0)]), None);
        assert_eq!(Pairing::of(&[(f64::NAN, 1.0)]), None);
    }
}
