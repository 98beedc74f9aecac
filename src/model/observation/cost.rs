//! What observing costs (`timeshare observe --cost`): the same pinned loops timed with
//! nothing observed and with each part of `observe` on, alternating, several rounds; the
//! medians compared.
//!
//! Two loops, each pinned to one CPU: a CPU-bound loop (no system call), whose time
//! grows by what the observer takes from that CPU (its threads, `perf record`, the
//! profile's sampling interrupts), and a `getppid` loop, whose time per call grows by
//! what the call tracepoints write per call. The added share of one CPU that a setting
//! costs a machine is its own CPU time over the span (measured with `getrusage`), plus
//! the added time per call × the calls the machine makes per second.

use serde::{Deserialize, Serialize};

use crate::model::stats::median;

/// What was observed in one setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostSetting {
    /// `nothing`, `rates + call mix`, …
    pub name: String,
    /// The CPU-bound loop's time, one per round, seconds.
    pub cpu_loop_s: Vec<f64>,
    /// The getppid loop's time per call, one per round, seconds.
    pub call_s: Vec<f64>,
    /// The observer's own CPU time over its span, as a share of one CPU, per round.
    pub observer_share: Vec<f64>,
    /// The machine's calls per second while observed (when the call mix was counted).
    pub machine_calls_per_s: Vec<f64>,
    /// Why this setting could not be measured here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

/// Every setting, the first one observing nothing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostMeasurement {
    pub cpu: usize,
    pub rounds: usize,
    pub getppid_calls: u64,
    pub settings: Vec<CostSetting>,
}

/// One setting's medians beside the baseline's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostSummary {
    pub cpu_loop_s: f64,
    /// The CPU-bound loop's added time, as a share of the baseline's.
    pub cpu_loop_added: f64,
    pub call_s: f64,
    pub call_added_s: f64,
    pub observer_share: f64,
    pub machine_calls_per_s: f64,
    /// observer_share + call_added_s × machine_calls_per_s.
    pub share_of_one_cpu: f64,
}

impl CostMeasurement {
    /// Each measured setting's medians against the first (observing nothing).
    pub fn summaries(&self) -> Vec<(&CostSetting, Option<CostSummary>)> {
        let Some(base) = self.settings.first() else {
            return Vec::new();
        };
        let (base_loop, base_call) = (median(&base.cpu_loop_s), median(&base.call_s));
        self.settings
            .iter()
            .map(|s| {
                if s.unavailable.is_some() || s.cpu_loop_s.is_empty() {
                    return (s, None);
                }
                let (l, c) = (median(&s.cpu_loop_s), median(&s.call_s));
                let observer_share = median(&s.observer_share);
                let calls = if s.machine_calls_per_s.is_empty() {
                    0.0
                } else {
                    median(&s.machine_calls_per_s)
                };
                let call_added_s = c - base_call;
                (
                    s,
                    Some(CostSummary {
                        cpu_loop_s: l,
                        cpu_loop_added: l / base_loop - 1.0,
                        call_s: c,
                        call_added_s,
                        observer_share,
                        machine_calls_per_s: calls,
                        share_of_one_cpu: observer_share + call_added_s.max(0.0) * calls,
                    }),
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting(name: &str, loop_s: f64, call_s: f64, share: f64, calls: f64) -> CostSetting {
        CostSetting {
            name: name.into(),
            cpu_loop_s: vec![loop_s, loop_s * 1.5, loop_s],
            call_s: vec![call_s, call_s, call_s * 9.0],
            observer_share: vec![share; 3],
            machine_calls_per_s: vec![calls; 3],
            unavailable: None,
        }
    }

    #[test]
    fn the_medians_are_compared_with_observing_nothing() {
        let m = CostMeasurement {
            cpu: 1,
            rounds: 3,
            getppid_calls: 1000,
            settings: vec![
                setting("nothing", 0.100, 200e-9, 0.0, 0.0),
                setting("calls", 0.101, 1200e-9, 0.005, 3000.0),
                CostSetting {
                    unavailable: Some("needs root".into()),
                    ..setting("profile", 0.0, 0.0, 0.0, 0.0)
                },
            ],
        };
        let s = m.summaries();
        assert_eq!(s.len(), 3);
        let base = s[0].1.unwrap();
        assert_eq!(base.cpu_loop_added, 0.0);
        assert_eq!(base.call_added_s, 0.0);
        let calls = s[1].1.unwrap();
        assert!((calls.cpu_loop_added - 0.01).abs() < 1e-9, "{calls:?}");
        assert!(
            (calls.call_added_s - 1e-6).abs() < 1e-15,
            "an outlier round is outvoted"
        );
        // 0.5 % of its own, and 3,000 calls/s × 1 µs = 0.3 %.
        assert!((calls.share_of_one_cpu - 0.008).abs() < 1e-9, "{calls:?}");
        assert!(s[2].1.is_none(), "unavailable");
    }
}
