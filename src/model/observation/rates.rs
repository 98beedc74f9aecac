//! The machine's rates over an observation (001 §2.1's vmstat and iostat): a time series
//! of one line per interval, in a fixed set of columns ([`RATE_KEYS`]), summarised as the
//! mean (weighted by the intervals) and percentiles of the per-interval values; disks and
//! network interfaces over the whole span.

use serde::{Deserialize, Serialize};

use super::Part;
use crate::model::stats::quantile_of_sorted;

/// One column of the series: its key (stored), what it is, and its unit as printed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateKey {
    pub key: &'static str,
    pub label: &'static str,
    pub unit: &'static str,
}

const fn k(key: &'static str, label: &'static str, unit: &'static str) -> RateKey {
    RateKey { key, label, unit }
}

/// The series' columns, in the order printed. `cpu_*` are shares of all CPUs' time,
/// 0..1; `runnable` and `blocked` are levels at the end of each interval; the rest are
/// events per second.
pub const RATE_KEYS: &[RateKey] = &[
    k("cs", "context switches", "/s"),
    k("intr", "interrupts", "/s"),
    k("syscalls", "system calls", "/s"),
    k("forks", "forks", "/s"),
    k("faults", "page faults", "/s"),
    k("major_faults", "major page faults", "/s"),
    k("pgin_kb", "paged in (KB)", "/s"),
    k("pgout_kb", "paged out (KB)", "/s"),
    k("swap_in", "pages swapped in", "/s"),
    k("swap_out", "pages swapped out", "/s"),
    k("scan", "pages scanned", "/s"),
    k("runnable", "runnable tasks", ""),
    k("blocked", "blocked tasks", ""),
    k("cpu_user", "CPU user", "%"),
    k("cpu_nice", "CPU nice", "%"),
    k("cpu_system", "CPU system", "%"),
    k("cpu_iowait", "CPU iowait", "%"),
    k("cpu_irq", "CPU irq", "%"),
    k("cpu_softirq", "CPU softirq", "%"),
    k("cpu_steal", "CPU steal", "%"),
    k("cpu_idle", "CPU idle", "%"),
];

/// The key's description, if it is one of [`RATE_KEYS`].
pub fn rate_key(key: &str) -> Option<&'static RateKey> {
    RATE_KEYS.iter().find(|k| k.key == key)
}

/// The rates of one observation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Rates {
    /// The interval asked for, in seconds.
    pub interval_s: f64,
    /// The keys of each line's values, in order (a subset of [`RATE_KEYS`]: `syscalls`
    /// only where the calls were counted).
    pub columns: Vec<String>,
    pub lines: Vec<SeriesLine>,
    /// Per whole disk, over the span.
    pub disks: Vec<DiskSpan>,
    /// Per network interface, over the span.
    pub interfaces: Vec<InterfaceSpan>,
    /// Characters in and out of terminals, where the kernel counts them.
    pub terminal: Option<Part<TerminalChars>>,
}

/// One interval.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesLine {
    /// Seconds from the start to the end of this interval.
    pub t_s: f64,
    pub interval_s: f64,
    /// One value per column.
    pub values: Vec<f64>,
}

/// A column summarised over the span.
#[derive(Debug, Clone, PartialEq)]
pub struct RateSummary {
    pub key: &'static RateKey,
    /// Weighted by the intervals' lengths: events over the span / the span.
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

impl Rates {
    /// The column `key`'s values, one per line.
    pub fn column(&self, key: &str) -> Option<Vec<f64>> {
        let i = self.columns.iter().position(|c| c == key)?;
        Some(
            self.lines
                .iter()
                .filter_map(|l| l.values.get(i).copied())
                .collect(),
        )
    }

    /// Every column summarised, in [`RATE_KEYS`]' order.
    pub fn summaries(&self) -> Vec<RateSummary> {
        RATE_KEYS
            .iter()
            .filter_map(|k| self.summary(k.key))
            .collect()
    }

    /// One column summarised, if it was recorded and has lines.
    pub fn summary(&self, key: &str) -> Option<RateSummary> {
        let rk = rate_key(key)?;
        let i = self.columns.iter().position(|c| c == key)?;
        let pairs: Vec<(f64, f64)> = self
            .lines
            .iter()
            .filter_map(|l| Some((*l.values.get(i)?, l.interval_s)))
            .filter(|(v, _)| v.is_finite())
            .collect();
        let weight: f64 = pairs.iter().map(|p| p.1).sum();
        if pairs.is_empty() || weight <= 0.0 {
            return None;
        }
        let mean = pairs.iter().map(|(v, w)| v * w).sum::<f64>() / weight;
        let mut sorted: Vec<f64> = pairs.iter().map(|p| p.0).collect();
        sorted.sort_by(f64::total_cmp);
        Some(RateSummary {
            key: rk,
            mean,
            p50: quantile_of_sorted(&sorted, 0.5),
            p90: quantile_of_sorted(&sorted, 0.9),
            p99: quantile_of_sorted(&sorted, 0.99),
            max: *sorted.last().expect("not empty"),
        })
    }

    /// The mean of column `key`, if recorded.
    pub fn mean(&self, key: &str) -> Option<f64> {
        self.summary(key).map(|s| s.mean)
    }
}

/// One disk over the span, in iostat's terms.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DiskSpan {
    pub name: String,
    /// Reads and writes completed per second.
    pub transfers_per_s: f64,
    pub read_kb_per_s: f64,
    pub write_kb_per_s: f64,
    /// Time the device was busy per transfer (iostat's svctm), in seconds; none when no
    /// transfer was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_time_s: Option<f64>,
    /// Time from queueing to completion per transfer (iostat's await), in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_time_s: Option<f64>,
    /// Share of the span the device had I/O in flight, 0..1.
    pub utilisation: f64,
}

/// One network interface over the span.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InterfaceSpan {
    pub name: String,
    pub rx_packets_per_s: f64,
    pub tx_packets_per_s: f64,
    pub rx_bytes_per_s: f64,
    pub tx_bytes_per_s: f64,
}

/// Characters through terminals over the span.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TerminalChars {
    pub in_per_s: f64,
    pub out_per_s: f64,
    /// Where they were counted.
    pub how: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rates(values: &[(f64, f64)]) -> Rates {
        Rates {
            interval_s: 1.0,
            columns: vec!["cs".into()],
            lines: values
                .iter()
                .scan(0.0, |t, &(v, dt)| {
                    *t += dt;
                    Some(SeriesLine {
                        t_s: *t,
                        interval_s: dt,
                        values: vec![v],
                    })
                })
                .collect(),
            ..Rates::default()
        }
    }

    #[test]
    fn the_mean_is_weighted_by_the_intervals_and_the_percentiles_are_of_the_lines() {
        // 100/s for 3 s, then 1000/s for a last 1 s: 1300 switches in 4 s.
        let r = rates(&[(100.0, 1.0), (100.0, 1.0), (100.0, 1.0), (1000.0, 1.0)]);
        let s = r.summary("cs").unwrap();
        assert_eq!(s.mean, 325.0);
        assert_eq!(s.p50, 100.0);
        assert_eq!(s.max, 1000.0);
        assert!(s.p90 > 100.0 && s.p90 < 1000.0);
        let partial = rates(&[(100.0, 1.0), (1000.0, 0.1)]);
        assert!((partial.mean("cs").unwrap() - 200.0 / 1.1).abs() < 1e-9);
    }

    #[test]
    fn a_column_not_recorded_has_no_summary() {
        let r = rates(&[(1.0, 1.0)]);
        assert!(r.summary("syscalls").is_none());
        assert!(r.summary("nonsense").is_none());
        assert_eq!(r.summaries().len(), 1);
        assert!(rates(&[]).summary("cs").is_none());
    }
}
