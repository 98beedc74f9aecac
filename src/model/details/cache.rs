//! The record of `cpu.cache` (seed 000 Table 4): latency per working-set size, and the
//! plateaus and steps found in it.

use serde::{Deserialize, Serialize};

use super::Record;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheSweep {
    pub line_bytes: usize,
    pub reads_per_size: u64,
    /// Timings per size, at least.
    pub repeats: usize,
    /// Milliseconds of timings per size, at least (absent in runs made before the sweep
    /// took its timings for a while rather than a count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub least_ms_per_size: Option<u64>,
    pub sizes: Vec<SizePoint>,
    pub plateaus: Vec<Plateau>,
    pub steps: Vec<Step>,
    /// The data caches the system reports, smallest first ("L1d 48K").
    pub caches: Vec<NamedCache>,
    /// The size the headline figure is sampled at.
    pub headline_bytes: u64,
    /// Which statistic the plateaus and steps were found on.
    pub detected_on: String,
    /// The pages behind the array (absent in runs made before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paging: Option<Paging>,
}

/// The page size and transparent huge pages of the swept array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Paging {
    pub page_bytes: u64,
    /// The kernel's THP mode ("always", "madvise", "never"), when it has THP.
    pub thp_mode: Option<String>,
    pub array_bytes: u64,
    /// The array's AnonHugePages in /proc/self/smaps, when it could be read.
    pub huge_page_bytes: Option<u64>,
}

impl Paging {
    /// "4 KiB pages; transparent huge pages: madvise, none in the 256 MiB array".
    pub fn sentence(&self) -> String {
        let kib = self.page_bytes / 1024;
        let thp = self.thp_mode.as_deref().unwrap_or("not available");
        let held = match self.huge_page_bytes {
            Some(0) => "none in the array".to_string(),
            Some(b) => format!(
                "{:.0}% of the array",
                b as f64 / self.array_bytes.max(1) as f64 * 100.0
            ),
            None => "unknown for the array".to_string(),
        };
        format!(
            "{kib} KiB pages; transparent huge pages: {thp}, {held} ({} MiB)",
            self.array_bytes >> 20
        )
    }
}

impl Record for CacheSweep {}

/// One size of the sweep: ns per dependent read, median and minimum of the repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizePoint {
    pub bytes: u64,
    pub median_ns: f64,
    pub min_ns: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plateau {
    pub first_bytes: u64,
    pub last_bytes: u64,
    /// Median latency of the plateau's points.
    pub ns: f64,
    /// Where sysfs says arrays of these sizes should live: the smallest cache holding the
    /// plateau's largest size, or "memory" past every cache.
    pub level: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The last size of the lower plateau and the first of the upper one.
    pub from_bytes: u64,
    pub to_bytes: u64,
    pub from_ns: f64,
    pub to_ns: f64,
    /// The caches whose capacity this step marks ("L1d 48K"), or empty when no cache ends
    /// there (the TLB's reach is the usual cause: 4 KiB pages × its entries).
    pub caches: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamedCache {
    pub name: String,
    pub bytes: u64,
}
