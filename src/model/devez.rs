//! What the device exerciser (`exercise --devez`, seed 004's devez) records beside each
//! batch: the target it wrote, how much it wrote and read back, how fast, and every block
//! that did not come back as written. Serialised in the batch's record (`--json`, and the
//! stored `exercise.batch.N` row's details).

use serde::{Deserialize, Serialize};

/// The device exerciser beside one batch: it ran, or it could not run here.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Devez {
    Ran(DevezRun),
    /// The target asked for cannot be made here (a loop device without root, or without
    /// loop devices): nothing was exercised, and nothing else was put in its place.
    Skipped {
        target: String,
        reason: String,
    },
}

/// The most block errors kept in the record; the count has them all.
pub const KEPT_ERRORS: usize = 8;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DevezRun {
    /// "file" (a scratch file in the exercise's directory) or "loop" (a loop device
    /// attached over one).
    pub target: String,
    /// What was written: the scratch file's name in the run's directory, or the loop
    /// device and its backing file.
    pub device: String,
    pub size_bytes: u64,
    pub block_bytes: u64,
    /// Written into every block with its number and pass, so that a block from another
    /// batch (another seed) is told from a stale or misplaced one.
    pub seed: u32,
    /// True when reads bypassed the page cache (O_DIRECT).
    pub direct: bool,
    /// How the blocks were read back when not with O_DIRECT, and why; or what O_DIRECT
    /// does not bypass on this target (tmpfs, whose storage is the page cache).
    pub cache_note: Option<String>,
    /// Whole passes: every block written, synced, read back and checked.
    pub passes: u64,
    pub bytes_written: u64,
    pub bytes_read: u64,
    /// Time spent writing (with the sync that ends each write pass) and reading back.
    pub write_s: f64,
    pub read_s: f64,
    /// Blocks that did not read back as written, over every pass.
    pub verify_errors: u64,
    /// The first of them ([`KEPT_ERRORS`]).
    pub errors: Vec<BlockError>,
    /// An I/O error (or the timeout, or an interrupt) that stopped it before its pass ended.
    pub stopped_by: Option<String>,
}

/// One block that did not read back as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockError {
    pub pass: u64,
    pub block: u64,
    /// The block's offset on the target.
    pub offset: u64,
    /// Offset of the first wrong byte within the block, and how many bytes are wrong.
    pub first_bad_byte: u64,
    pub bad_bytes: u64,
    /// What the block holds instead: "another block's data (block 5 of this pass)",
    /// "stale data (pass 1 of this block)", or "different bytes".
    pub holds: String,
}

impl BlockError {
    pub fn describe(&self) -> String {
        format!(
            "pass {} block {} (offset {}): {} byte{} wrong from byte {} of the block; it holds {}",
            self.pass,
            self.block,
            self.offset,
            self.bad_bytes,
            if self.bad_bytes == 1 { "" } else { "s" },
            self.first_bad_byte,
            self.holds
        )
    }
}

impl DevezRun {
    /// A verify error or anything that stopped it fails its batch, like a job's output
    /// that differs.
    pub fn failed(&self) -> bool {
        self.verify_errors > 0 || self.stopped_by.is_some()
    }

    /// Bytes per second written (sync included) and read back; 0 when none was timed.
    pub fn write_rate(&self) -> f64 {
        rate(self.bytes_written, self.write_s)
    }

    pub fn read_rate(&self) -> f64 {
        rate(self.bytes_read, self.read_s)
    }

    /// One line on why it failed, `None` when it did not.
    pub fn failure(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.verify_errors > 0 {
            let first = self
                .errors
                .first()
                .map(|e| format!(": first {}", e.describe()))
                .unwrap_or_default();
            parts.push(format!(
                "{} block{} did not read back as written{first}",
                self.verify_errors,
                if self.verify_errors == 1 { "" } else { "s" }
            ));
        }
        if let Some(why) = &self.stopped_by {
            parts.push(format!("stopped: {why}"));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

impl Devez {
    pub fn failed(&self) -> bool {
        matches!(self, Devez::Ran(r) if r.failed())
    }

    pub fn ran(&self) -> Option<&DevezRun> {
        match self {
            Devez::Ran(r) => Some(r),
            Devez::Skipped { .. } => None,
        }
    }
}

fn rate(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 / seconds
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run() -> DevezRun {
        DevezRun {
            target: "file".into(),
            device: "devez.scratch".into(),
            size_bytes: 1 << 20,
            block_bytes: 1 << 16,
            seed: 7,
            direct: true,
            cache_note: None,
            passes: 2,
            bytes_written: 2 << 20,
            bytes_read: 2 << 20,
            write_s: 0.5,
            read_s: 0.25,
            verify_errors: 0,
            errors: vec![],
            stopped_by: None,
        }
    }

    #[test]
    fn a_verify_error_or_a_stop_fails_and_says_why() {
        let mut r = run();
        assert!(!r.failed() && r.failure().is_none());
        assert_eq!((r.write_rate(), r.read_rate()), (4194304.0, 8388608.0));
        r.verify_errors = 1;
        r.errors.push(BlockError {
            pass: 2,
            block: 3,
            offset: 3 << 16,
            first_bad_byte: 100,
            bad_bytes: 1,
            holds: "different bytes".into(),
        });
        let why = r.failure().unwrap();
        assert!(why.starts_with("1 block did not read back as written: first pass 2 block 3"));
        assert!(Devez::Ran(r).failed());
        let skipped = Devez::Skipped {
            target: "loop".into(),
            reason: "needs root".into(),
        };
        assert!(!skipped.failed() && skipped.ran().is_none());
    }
}
