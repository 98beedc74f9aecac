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
    /// What the lookup finds: "warm", "negative" or "cold" (absent in runs made before
    /// the negative and cold rows existed: those were all warm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_state: Option<String>,
    /// The kernel's dentry counts around the row (`/proc/sys/fs/dentry-state`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dentry_state: Option<DentryStates>,
    /// For the cold rows: how many times the dentry and inode caches were dropped (one
    /// per sample, each before a single timed lookup).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caches_dropped: Option<u64>,
}

/// `/proc/sys/fs/dentry-state` twice, and what happened between the two readings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DentryStates {
    pub before: DentryState,
    pub after: DentryState,
    /// "the row's samples" or "one drop of the dentry and inode caches".
    pub between: String,
}

/// The kernel's counts of dentries: allocated, unused (cached, no reference) and, from
/// Linux 5.0, negative (names known not to exist). Older kernels print a 0 in the
/// negative field's place, which is not a count: it is left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DentryState {
    pub nr_dentry: u64,
    pub nr_unused: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub negative: Option<u64>,
}

impl DentryState {
    /// The six numbers of `/proc/sys/fs/dentry-state` ("nr_dentry nr_unused age_limit
    /// want_pages nr_negative dummy"), read on a kernel of major version `kernel_major`.
    pub fn parse(text: &str, kernel_major: u32) -> Result<DentryState, String> {
        let fields: Vec<u64> = text
            .split_whitespace()
            .map(|f| f.parse::<u64>())
            .collect::<Result<_, _>>()
            .map_err(|e| format!("dentry-state {text:?}: {e}"))?;
        if fields.len() < 5 {
            return Err(format!(
                "dentry-state {text:?}: {} fields, at least 5 expected",
                fields.len()
            ));
        }
        Ok(DentryState {
            nr_dentry: fields[0],
            nr_unused: fields[1],
            negative: (kernel_major >= 5).then_some(fields[4]),
        })
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dentry_state_reads_the_counts_and_the_negative_field_only_from_linux_5() {
        let text = "200374\t198519\t45\t0\t78334\t0\n";
        let now = DentryState::parse(text, 6).unwrap();
        assert_eq!(
            now,
            DentryState {
                nr_dentry: 200374,
                nr_unused: 198519,
                negative: Some(78334)
            }
        );
        assert_eq!(DentryState::parse(text, 4).unwrap().negative, None);
    }

    #[test]
    fn a_damaged_dentry_state_is_an_error_not_a_count() {
        assert!(DentryState::parse("12 34 45", 6)
            .unwrap_err()
            .contains("5 expected"));
        assert!(DentryState::parse("12 x 45 0 7 0", 6).is_err());
        assert!(DentryState::parse("", 6).is_err());
    }
}
