//! Fleets: where a run belongs among many machines (its campaign, its host's name in the
//! inventory, its group), and the arithmetic of the fleet view — each host's median set
//! against the fleet's median and spread, and the hosts that lie outside it by more than
//! their own noise (the odd machine out).
//!
//! The spread is robust: 1.4826 × the median absolute deviation of the hosts' medians
//! (the standard deviation, for normal data, that one slow host cannot inflate). The band
//! is the fleet's median ± [`BAND_SPREADS`] spreads, and never narrower than
//! ± [`BAND_FLOOR`] of the median, so that twins whose figures agree to the nanosecond do
//! not make every small wobble an outlier. A host is *outside* when its median lies
//! beyond the band by more than the half-width of its own confidence interval of the
//! median: a noisy host must be further out to be marked than a steady one.

use serde::{Deserialize, Serialize};

use super::resolution::{classify, shown_stored, Classification, Shown};
use super::Summary;

/// Where a run belongs in a fleet (`run --campaign`, `--host-name`, `--group`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct FleetTag {
    /// The campaign the run is part of: the runs of one occasion across many hosts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub campaign: Option<String>,
    /// The host's name in the fleet (an inventory name); the machine's hostname if absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The group of hosts it belongs to (an inventory group).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

impl FleetTag {
    pub fn is_empty(&self) -> bool {
        *self == FleetTag::default()
    }
}

/// How many spreads from the fleet's median the band reaches.
pub const BAND_SPREADS: f64 = 3.0;
/// The band's least half-width, as a fraction of the fleet's median.
pub const BAND_FLOOR: f64 = 0.05;
/// 1.4826 × MAD estimates the standard deviation of normal data.
const MAD_TO_SD: f64 = 1.4826;

/// One host's figure for one id.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostFigure {
    /// The host's median, raw: read it only as its `classification` says.
    pub median: f64,
    /// Half the width of the host's confidence interval of its median.
    pub noise: f64,
    /// The host lies outside the fleet's band by more than its noise (never for a figure
    /// that was not resolved).
    pub outside: bool,
    /// How the median is to be read: a figure, or only a bound.
    pub classification: Classification,
    /// The same, as the printers show it.
    #[serde(skip)]
    pub shown: Shown,
}

impl HostFigure {
    /// The median may be printed and compared as a figure.
    pub fn is_figure(&self) -> bool {
        self.shown.is_figure()
    }
}

/// One host's input to a row: its summary and how its median is to be shown.
pub type HostInput<'a> = (&'a Summary, Shown, Classification);

/// One id across the fleet.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FleetRow {
    pub id: String,
    /// One entry per host of the view, in its order; `None` where the host has no figure.
    pub hosts: Vec<Option<HostFigure>>,
    /// The median of the hosts' resolved figures; `None` when fewer than two hosts
    /// resolved it (a bound is no figure to take a median of).
    pub median: Option<f64>,
    /// 1.4826 × MAD of the hosts' resolved medians.
    pub spread: Option<f64>,
    /// The band's half-width: max(3 spreads, 5% of the median).
    pub band: Option<f64>,
}

impl FleetRow {
    /// The row of `id` from each host's figure (`None`: no figure there). `None` when
    /// fewer than two hosts have a figure: one host is no fleet. Only resolved figures
    /// make the fleet's median, spread and band, and only they can be marked outside it.
    pub fn new(id: &str, figures: &[Option<HostInput>]) -> Option<FleetRow> {
        if figures.iter().flatten().count() < 2 {
            return None;
        }
        let medians: Vec<f64> = figures
            .iter()
            .flatten()
            .filter(|(_, shown, _)| shown.is_figure())
            .map(|(s, _, _)| s.median)
            .collect();
        let fleet = (medians.len() >= 2).then(|| {
            let median = super::median(&medians);
            let deviations: Vec<f64> = medians.iter().map(|m| (m - median).abs()).collect();
            let spread = MAD_TO_SD * super::median(&deviations);
            let band = (BAND_SPREADS * spread).max(BAND_FLOOR * median.abs());
            (median, spread, band)
        });
        let hosts = figures
            .iter()
            .map(|f| {
                f.as_ref().map(|(s, shown, class)| {
                    let noise = ((s.ci_high - s.ci_low) / 2.0).max(0.0);
                    HostFigure {
                        median: s.median,
                        noise,
                        outside: shown.is_figure()
                            && fleet.is_some_and(|(median, _, band)| {
                                (s.median - median).abs() > band + noise
                            }),
                        classification: class.clone(),
                        shown: *shown,
                    }
                })
            })
            .collect();
        Some(FleetRow {
            id: id.to_string(),
            hosts,
            median: fleet.map(|f| f.0),
            spread: fleet.map(|f| f.1),
            band: fleet.map(|f| f.2),
        })
    }

    /// The indices of the hosts marked outside the band.
    pub fn outside(&self) -> Vec<usize> {
        self.hosts
            .iter()
            .enumerate()
            .filter(|(_, h)| h.as_ref().is_some_and(|h| h.outside))
            .map(|(i, _)| i)
            .collect()
    }
}

/// One host of a fleet view: its name and the run it is shown by.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FleetHost {
    pub name: String,
    pub group: Option<String>,
    pub run_id: i64,
}

/// A campaign's hosts × ids.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FleetView {
    pub campaign: String,
    pub hosts: Vec<FleetHost>,
    pub rows: Vec<FleetRow>,
    /// Each row's unit, for display.
    #[serde(skip)]
    pub units: Vec<super::Unit>,
}

impl FleetView {
    /// Build the view from each host's run: every id with an `ok` figure on two hosts or
    /// more, in the order the first run that has it measured it, kept when `keep(id)`.
    pub fn new(
        campaign: &str,
        hosts: Vec<FleetHost>,
        runs: &[&super::Run],
        keep: impl Fn(&str) -> bool,
    ) -> FleetView {
        let mut ids: Vec<(String, super::Unit)> = Vec::new();
        for run in runs {
            for r in &run.results {
                if keep(&r.id) && !ids.iter().any(|(i, _)| *i == r.id) {
                    ids.push((r.id.clone(), r.unit));
                }
            }
        }
        let mut rows = Vec::new();
        let mut units = Vec::new();
        for (id, unit) in ids {
            let figures: Vec<Option<HostInput>> = runs
                .iter()
                .map(|run| {
                    let mhz = run.environment.cpu.mhz;
                    let r = run
                        .results
                        .iter()
                        .find(|r| r.id == id && matches!(r.status, super::Status::Ok))?;
                    Some((r.summary.as_ref()?, shown_stored(r, mhz)?, classify(r, mhz)))
                })
                .collect();
            if let Some(row) = FleetRow::new(&id, &figures) {
                rows.push(row);
                units.push(unit);
            }
        }
        FleetView {
            campaign: campaign.to_string(),
            hosts,
            rows,
            units,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(median: f64, half: f64) -> Summary {
        Summary {
            n: 3,
            median,
            mean: median,
            sd: half,
            min: median - half,
            max: median + half,
            ci_low: median - half,
            ci_high: median + half,
            ci_level: 0.75,
        }
    }

    /// A host's resolved figure.
    fn fig(s: &Summary) -> Option<HostInput<'_>> {
        let class = Classification {
            reading: crate::model::resolution::Reading::Measured,
            bound_s: None,
            why: None,
        };
        Some((s, Shown::Figure(s.median), class))
    }

    #[test]
    fn the_slow_twin_is_marked_and_its_siblings_are_not() {
        let a = summary(0.630, 0.01);
        let b = summary(0.640, 0.01);
        let slow = summary(1.25, 0.05);
        let row = FleetRow::new("cpu.chess", &[fig(&a), fig(&slow), fig(&b)]).unwrap();
        assert_eq!(row.median, Some(0.640));
        assert_eq!(row.outside(), vec![1]);
        assert!(
            (row.spread.unwrap() - 1.4826 * 0.010).abs() < 1e-12,
            "{:?}",
            row.spread
        );
    }

    #[test]
    fn hosts_within_the_floor_or_their_noise_are_not_marked() {
        let a = summary(1.00, 0.001);
        let b = summary(1.00, 0.001);
        // 4% off: inside the 5% floor although the spread is zero.
        let c = summary(1.04, 0.001);
        let row = FleetRow::new("x", &[fig(&a), fig(&b), fig(&c)]).unwrap();
        assert!(row.outside().is_empty(), "{row:?}");
        // 20% off but its own interval is ±30%: not marked either.
        let noisy = summary(1.20, 0.30);
        let row = FleetRow::new("x", &[fig(&a), fig(&b), fig(&noisy)]).unwrap();
        assert!(row.outside().is_empty(), "{row:?}");
        // The same 20% with a steady interval is.
        let steady = summary(1.20, 0.01);
        let row = FleetRow::new("x", &[fig(&a), fig(&b), fig(&steady)]).unwrap();
        assert_eq!(row.outside(), vec![2]);
    }

    #[test]
    fn one_host_is_no_fleet_and_a_missing_figure_is_left_out() {
        let a = summary(1.0, 0.0);
        assert!(FleetRow::new("x", &[fig(&a), None]).is_none());
        let b = summary(1.0, 0.0);
        let row = FleetRow::new("x", &[fig(&a), None, fig(&b)]).unwrap();
        assert_eq!(row.hosts[1], None);
        assert!(row.outside().is_empty());
    }

    #[test]
    fn a_host_below_resolution_is_no_figure_of_the_fleet() {
        let a = summary(1.0e-9, 0.0);
        let b = summary(1.1e-9, 0.0);
        // Under one cycle on the third host: far off, but only a bound.
        let tiny = summary(0.05e-9, 0.0);
        let class = Classification {
            reading: crate::model::resolution::Reading::BelowCycle,
            bound_s: Some(0.36e-9),
            why: Some("below one CPU cycle: not resolved".into()),
        };
        let below = Some((&tiny, Shown::BelowCycle(0.36e-9), class.clone()));
        let row = FleetRow::new("x", &[fig(&a), fig(&b), below.clone()]).unwrap();
        let median = row.median.unwrap();
        assert!(
            (median - 1.05e-9).abs() < 1e-15,
            "the bound is in the median: {median}"
        );
        assert!(row.outside().is_empty(), "a bound is never marked: {row:?}");
        assert!(!row.hosts[2].as_ref().unwrap().is_figure());
        // Two bounds and one figure: no fleet median at all.
        let row = FleetRow::new("x", &[fig(&a), below.clone(), below]).unwrap();
        assert_eq!((row.median, row.spread, row.band), (None, None, None));
        assert!(row.outside().is_empty());
    }
}
