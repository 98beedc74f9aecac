//! The `thread` family's view: the token-passing rings by ring size and working set
//! (`ctx.ring.N.Sk`, lmbench's `lat_ctx -s`), each as seconds per pass; one switch of
//! seed 001's `ctx.switch` beside them; and a thread's creation beside a process's.

use crate::model::Run;

/// One ring row's figure: seconds per token pass.
#[derive(Debug, Clone, PartialEq)]
pub struct RingPoint {
    pub id: String,
    pub processes: usize,
    pub set_kib: usize,
    pub per_pass_s: f64,
}

/// The row whose half is one switch, as the charts name it.
pub const SWITCH: &str = "ctx.switch";

/// "ctx.ring.16.64k" → (16, 64).
fn ring_shape(id: &str) -> Option<(usize, usize)> {
    let rest = id.strip_prefix("ctx.ring.")?;
    let (n, set) = rest.split_once('.')?;
    Some((n.parse().ok()?, set.strip_suffix('k')?.parse().ok()?))
}

/// A row's headline per operation (a ring's lap divided into its passes), when it ran.
fn per_op(run: &Run, id: &str) -> Option<f64> {
    let r = super::row(run, id)?;
    if !r.status.is_ok() {
        return None;
    }
    let v = r.measure()?.per_op().ok()?.value();
    (v.is_finite() && v > 0.0).then_some(v)
}

/// The ring rows of `run` that ran, by ring size and then working set.
pub fn rings(run: &Run) -> Vec<RingPoint> {
    let mut v: Vec<RingPoint> = run
        .results
        .iter()
        .filter_map(|r| {
            let (processes, set_kib) = ring_shape(&r.id)?;
            Some(RingPoint {
                id: r.id.clone(),
                processes,
                set_kib,
                per_pass_s: per_op(run, &r.id)?,
            })
        })
        .collect();
    v.sort_by_key(|p| (p.processes, p.set_kib));
    v
}

/// `ctx.switch` is per signal round trip, two switches: half of it is one switch.
pub fn one_switch(run: &Run) -> Option<f64> {
    per_op(run, SWITCH).map(|s| s / 2.0)
}

/// A way of making and ending a thread of control, and its time.
pub struct Creation {
    pub id: &'static str,
    /// What one operation does.
    pub what: &'static str,
    pub per_op_s: f64,
}

/// A thread's creation beside a process's, those of the two that ran.
pub fn creation(run: &Run) -> Vec<Creation> {
    [
        ("thread.create", "pthread_create + join"),
        ("proc.fork.0", "fork + exit + wait"),
    ]
    .into_iter()
    .filter_map(|(id, what)| {
        Some(Creation {
            id,
            what,
            per_op_s: per_op(run, id)?,
        })
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ring_s_shape_is_read_from_its_id() {
        assert_eq!(ring_shape("ctx.ring.16.64k"), Some((16, 64)));
        assert_eq!(ring_shape("ctx.ring.x.0k"), None);
        assert_eq!(ring_shape("ctx.switch"), None);
    }
}
