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
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Within => "within",
            Verdict::Outside => "OUTSIDE",
            Verdict::Explained => "explained",
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
        })
    }

    /// Within when |median ratio − 1| ≤ tolerance; otherwise explained when a reason is
    /// declared, else outside.
    pub fn verdict(&self, tolerance: f64, explained: bool) -> Verdict {
        if (self.ratio_median - 1.0).abs() <= tolerance + 1e-12 {
            Verdict::Within
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
    fn no_pairing_from_nothing_or_from_a_non_figure() {
        assert_eq!(Pairing::of(&[]), None);
        assert_eq!(Pairing::of(&[(1.0, 0.0)]), None);
        assert_eq!(Pairing::of(&[(-1.0, 1.0)]), None);
        assert_eq!(Pairing::of(&[(f64::NAN, 1.0)]), None);
    }
}
