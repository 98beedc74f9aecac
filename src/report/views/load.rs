//! The `load` family's view: its three numbered series — `load.cpu.N` (N copies, seed
//! 000 Table 9), `load.script.N` (N users, Table 10 and Attachment C) and
//! `load.iointerference.K` (K readers, Table 11) — each by its number, with its typed
//! record. The tables show every row (a failed one says so); the charts draw the rows
//! that ran whole.

use super::{numbered, PerN};
use crate::model::details::load::{CpuCopies, IoInterference, Scripts};
use crate::model::Run;

/// `load.cpu.N`, by N.
pub fn copies(run: &Run) -> Vec<PerN<'_, CpuCopies>> {
    numbered(run, "load.cpu.")
}

/// `load.script.N`, by N.
pub fn scripts(run: &Run) -> Vec<PerN<'_, Scripts>> {
    numbered(run, "load.script.")
}

/// `load.iointerference.K`, by K.
pub fn readers(run: &Run) -> Vec<PerN<'_, IoInterference>> {
    numbered(run, "load.iointerference.")
}
