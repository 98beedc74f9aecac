//! Records of the `vm` family (catalogue §3, seed 001 Tables 6–8).

use serde::{Deserialize, Serialize};

use super::Record;

/// What a fault service time is per (seed 001 Table 8: system time / page faults).
pub const PAGE_FAULT: &str = "page fault";

/// What one paging job cost, measured around it (passed from a child over a pipe as
/// plain bytes under a memory limit, hence `repr(C)`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[repr(C)]
pub struct JobStats {
    pub real_s: f64,
    pub user_s: f64,
    pub system_s: f64,
    pub minor_faults: u64,
    pub major_faults: u64,
    /// Minor faults of seqpage's first sweep (the only one that faults on fresh memory).
    pub first_pass_minor_faults: u64,
    pub touches: u64,
}

impl JobStats {
    pub fn faults(&self) -> u64 {
        self.minor_faults + self.major_faults
    }

    /// Seed 001 Table 8's PFST: system time over faults.
    pub fn fault_service_s(&self) -> Option<f64> {
        (self.faults() > 0).then(|| self.system_s / self.faults() as f64)
    }
}

/// A paging row (`vm.seqpage`, `vm.randpage`, `vm.gausspage.S`): the medians over its
/// jobs of Table 7's columns, Table 8's fault service time, and every job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Paging {
    pub pages: u64,
    pub page_size: u64,
    pub pattern: String,
    pub advice: String,
    pub touches: Option<u64>,
    pub distinct_pages: u64,
    pub real_s: f64,
    pub user_s: f64,
    pub system_s: f64,
    pub minor_faults: f64,
    pub major_faults: f64,
    /// Only seqpage: the faults of its first pass.
    pub first_pass_minor_faults: Option<f64>,
    pub fault_service_s: Option<f64>,
    pub memory_limit: MemoryLimit,
    pub jobs: Vec<JobStats>,
}

impl Record for Paging {}

/// Whether the row ran under a memory limit, and how or why not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryLimit {
    pub applied: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub how: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
}

/// `vm.pagefault`: faults on a mapped file whose pages are cached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageFaults {
    pub touches: u64,
    pub faults: u64,
    pub faults_per_touch: f64,
    /// Pages one fault maps here (fault-around), probed before sampling.
    pub stride_pages: u64,
    pub file_bytes: u64,
}

impl Record for PageFaults {}
