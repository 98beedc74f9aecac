//! The disturbances a result's samples recorded, summed up for the wide table and the
//! exports: how many samples the hypervisor stole time from and how much, and the CPU
//! frequency they ran at where the kernel exposes it.

use super::result::BenchResult;
use super::stats::median;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Disturbances {
    /// Samples that recorded steal at all (0 when the kernel does not count it).
    pub with_steal_counted: usize,
    /// Samples during which some time was stolen.
    pub stolen_from: usize,
    /// Steal summed over the samples, in seconds.
    pub steal_s: f64,
    /// The median frequency over the samples that recorded one, in Hz.
    pub freq_hz: Option<f64>,
}

impl Disturbances {
    pub fn of(r: &BenchResult) -> Option<Disturbances> {
        if r.samples.is_empty() {
            return None;
        }
        let steal: Vec<f64> = r.samples.iter().filter_map(|s| s.steal_s).collect();
        let freq: Vec<f64> = r.samples.iter().filter_map(|s| s.freq_hz).collect();
        Some(Disturbances {
            with_steal_counted: steal.len(),
            stolen_from: steal.iter().filter(|&&s| s > 0.0).count(),
            steal_s: steal.iter().sum(),
            freq_hz: (!freq.is_empty()).then(|| median(&freq)),
        })
    }

    /// "3/63" samples with steal, or "" where steal was not counted.
    pub fn steal_cell(&self) -> String {
        if self.with_steal_counted == 0 {
            String::new()
        } else {
            format!("{}/{}", self.stolen_from, self.with_steal_counted)
        }
    }

    /// "2400" MHz, or "" where not exposed.
    pub fn mhz_cell(&self) -> String {
        self.freq_hz
            .map(|f| format!("{:.0}", f / 1e6))
            .unwrap_or_default()
    }
}
