//! The record of a result's levels above its samples: each process's summary, which ran
//! in a slower state, how the variance splits between processes and within one, and how
//! the headline's interval was widened to hold another run's figure. The records only;
//! what computes them is in [`super::levels`] and [`super::runlevel`].

use serde::{Deserialize, Serialize};

use super::stats::Summary;

/// The invocation level of one result: one summary per invocation, in the order they ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Invocations {
    /// Each invocation's own statistics of its clean samples (median, within CI, …).
    pub within: Vec<Summary>,
    /// The level above: how the headline's interval was widened to hold another run's
    /// figure, from earlier runs on the same machine (see [`super::runlevel`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs: Option<RunLevel>,
    /// The invocations (indices into `within`) that ran in a slower state and are not in
    /// the headline (see [`super::levels::fast_state`]); empty for a run stored before they were told
    /// apart, and when every process was in the fast state.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slower: Vec<u32>,
}

impl Invocations {
    pub fn medians(&self) -> Vec<f64> {
        self.within.iter().map(|s| s.median).collect()
    }

    pub fn count(&self) -> usize {
        self.within.len()
    }

    /// The medians of the processes in the headline (the fast state): what a comparison
    /// tests, so that it is about the figure shown and not about how many processes of
    /// each run happened to land in a slower state.
    pub fn fast_medians(&self) -> Vec<f64> {
        self.medians_where(false)
    }

    /// The medians of the processes left out of the headline, in a slower state.
    pub fn slower_medians(&self) -> Vec<f64> {
        self.medians_where(true)
    }

    /// The medians of the processes in the slower state (`slower`) or in the fast one.
    fn medians_where(&self, slower: bool) -> Vec<f64> {
        self.within
            .iter()
            .enumerate()
            .filter(|(i, _)| self.slower.contains(&(*i as u32)) == slower)
            .map(|(_, s)| s.median)
            .collect()
    }

    /// How the variance of an invocation's median splits between invocations and within.
    pub fn components(&self) -> Option<Components> {
        components(&self.within)
    }

    /// The median of the slower processes relative to the headline's processes' (e.g.
    /// 1.27: 27% slower), when any process was left out.
    pub fn slower_ratio(&self) -> Option<f64> {
        if self.slower.is_empty() {
            return None;
        }
        let slow = super::stats::median(&self.slower_medians());
        let fast = super::stats::median(&self.fast_medians());
        (fast != 0.0).then(|| slow / fast)
    }
}

/// The variance of an invocation's median, split in two (Kalibera and Jones's
/// components, with the median as the within-level statistic).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Components {
    /// Variance of the invocation medians around their mean.
    pub total: f64,
    /// The part the samples within an invocation explain: the squared standard error of
    /// one invocation's median, from its own order-statistic interval (half-width / 1.96).
    pub within: f64,
    /// What is left: variation between invocations (0 when the within part explains all).
    pub between: f64,
    /// Samples per invocation the within part was measured with (their mean).
    pub samples: f64,
}

impl Components {
    /// The share of the variance that lies between invocations, 0..1.
    pub fn between_share(&self) -> f64 {
        if self.total <= 0.0 {
            0.0
        } else {
            (self.between / self.total).clamp(0.0, 1.0)
        }
    }
}

/// The components of `within` (at least two invocations).
pub fn components(within: &[Summary]) -> Option<Components> {
    if within.len() < 2 {
        return None;
    }
    let medians: Vec<f64> = within.iter().map(|s| s.median).collect();
    let total = Summary::from_values(&medians).ok()?.sd.powi(2);
    let se2: Vec<f64> = within
        .iter()
        .map(|s| ((s.ci_high - s.ci_low) / 2.0 / 1.96).powi(2))
        .collect();
    let within_var = se2.iter().sum::<f64>() / se2.len() as f64;
    let samples = within.iter().map(|s| s.n as f64).sum::<f64>() / within.len() as f64;
    Some(Components {
        total,
        within: within_var,
        between: (total - within_var).max(0.0),
        samples,
    })
}

/// The run level of one result: how its 95% interval was widened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunLevel {
    /// Earlier comparable runs the spread came from.
    pub earlier_runs: usize,
    /// Standard deviation of one run's log headline (≈ the relative run-to-run spread).
    pub sd_log: f64,
    /// Degrees of freedom of that estimate.
    pub df: usize,
    /// The prediction interval for another run's headline.
    pub low: f64,
    pub high: f64,
    /// The interval of this run's processes alone, before the union.
    pub process_low: f64,
    pub process_high: f64,
}
