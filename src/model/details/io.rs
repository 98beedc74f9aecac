//! Records of the `io` and `fs` families (catalogue §5): what each row measured through
//! (the page cache or the device), its parameters, and the per-operation percentiles of
//! the latency rows.
//!
//! Every record flattens [`Through`], and every operation row is an [`OpRecord`] of its
//! facts, so the family's table reads any of them as `OpRecord<Through>`.

use serde::{Deserialize, Serialize};

use super::Record;

/// What `io.copy`'s rate counts: bytes read from one file and written to another on the
/// same device, as seed 000 Table 5's dd copies of a disk to itself.
pub const BYTE_COPIED: &str = "byte copied from the device to itself";

/// What the figure went through: the cache line of the main table's note.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Through {
    /// "page cache bypassed (O_DIRECT)", "dentry cache warm (nothing bypassed)" …
    pub cache: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsync: Option<String>,
}

/// The facts of an operation row with the percentiles of its separate timed pass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpRecord<F> {
    #[serde(flatten)]
    pub facts: F,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<Percentiles>,
}

impl<F: Serialize + serde::de::DeserializeOwned> Record for OpRecord<F> {}

/// The percentile pass, or why it failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Percentiles {
    Measured(Latency),
    Failed { error: String },
}

impl Percentiles {
    pub fn measured(&self) -> Option<&Latency> {
        match self {
            Percentiles::Measured(l) => Some(l),
            Percentiles::Failed { .. } => None,
        }
    }
}

/// Per-operation percentiles in seconds (nearest rank).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub ops: usize,
    pub p50_s: f64,
    pub p90_s: f64,
    pub p99_s: f64,
    pub max_s: f64,
    pub how: String,
}

/// A row's facts could not be gathered (its own check failed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckFailed {
    pub check_failed: String,
}

impl Record for CheckFailed {}

/// How an `io` row used the page cache and the device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheUse {
    #[serde(flatten)]
    pub through: Through,
    pub bypassed: bool,
    /// "used", "not asked" or "refused: …".
    pub o_direct: String,
    pub caches_dropped: String,
    pub fs_type: String,
    pub device: String,
    pub memory_backed: bool,
}

/// `io.copy` (seed 000 Table 5's dd).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Copy {
    #[serde(flatten)]
    pub cache: CacheUse,
    pub block_bytes: usize,
    pub block_words_16bit: usize,
    pub file_bytes: u64,
    pub blocks_copied: u64,
    pub blocks_verified: u64,
    pub throughput: String,
}

/// `io.seqwrite` (seed 003 kt5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeqWrite {
    #[serde(flatten)]
    pub cache: CacheUse,
    pub request_bytes: usize,
    pub bytes_per_op: u64,
    pub passes: u64,
    pub throughput: String,
}

/// `io.randwrite` (seed 003 kt6).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RandWrite {
    #[serde(flatten)]
    pub cache: CacheUse,
    pub write_bytes: usize,
    pub file_bytes: u64,
    pub writes_per_sample: u64,
}

/// `io.disk.*` (seed 003's Zilog disk test).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Zilog {
    #[serde(flatten)]
    pub cache: CacheUse,
    pub block_bytes: usize,
    pub file_bytes: u64,
    pub ops_per_sample: u64,
}

/// `fs.create`, `fs.unlink`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Files {
    #[serde(flatten)]
    pub through: Through,
    pub fs_type: String,
    pub file_bytes: usize,
    pub files_created: usize,
    pub files_removed: usize,
    /// Files found in the directory after sampling.
    pub files_checked: usize,
}

/// `fs.namei.*` (seed 001 §3.2.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Namei {
    #[serde(flatten)]
    pub through: Through,
    pub path: String,
    pub components: usize,
    pub components_translated: usize,
    pub through_symlink: bool,
    pub relative_to: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare_with: Option<String>,
}

/// `fs.lsl` (seed 001 §4.1.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lsl {
    #[serde(flatten)]
    pub through: Through,
    pub fs_type: String,
    pub entries: usize,
    pub listings: u64,
    pub per_entry: String,
}
