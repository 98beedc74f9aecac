//! The `fs` rows' view beyond the files-and-disks table: `fs.lsl`, whose figure the table
//! also gives per directory entry (seed 001 §4.1.1's `ls -l`).

use crate::model::BenchResult;

/// The `ls -l` row among `rows`.
pub fn lsl<'a>(rows: &[&'a BenchResult]) -> Option<&'a BenchResult> {
    rows.iter().copied().find(|r| r.id == "fs.lsl")
}
