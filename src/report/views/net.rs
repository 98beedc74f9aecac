//! The `net` family's view: its throughput sweeps by message size, one per transport, in
//! the order they are shown.

use crate::model::details::net::NetSweep;
use crate::model::Run;

/// The sweep rows, in the order they are shown.
const SWEEP_IDS: &[&str] = &["net.tcp.bw", "net.udp.bw", "net.unix.bw"];

/// The sweeps of `run`, by id.
pub fn sweeps(run: &Run) -> Vec<(&'static str, NetSweep)> {
    SWEEP_IDS
        .iter()
        .filter_map(|id| Some((*id, super::row(run, id)?.details_as::<NetSweep>()?)))
        .collect()
}
