//! The `net` family's view: its throughput sweeps by message size, one per transport, picked
//! out by their record, in the run's order.

use crate::model::details::net::NetSweep;
use crate::model::Run;

/// The sweeps of `run`, by id: every row that recorded a throughput sweep, in the run's
/// order (the family's: tcp, udp, unix).
pub fn sweeps(run: &Run) -> Vec<(&str, NetSweep)> {
    run.results
        .iter()
        .filter_map(|r| Some((r.id.as_str(), r.details_as::<NetSweep>()?)))
        .collect()
}
