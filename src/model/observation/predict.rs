//! Benchmarks tied to real work (001 §2.4, 002): the system time an observed call mix
//! should have cost at the micro-benchmarks' per-call costs, beside the system time
//! observed. For each call, calls per second × seconds per call = seconds of system
//! time per second; their sum is the prediction, and the difference from the observed
//! system time is the residual — the part the micro-benchmarks do not explain (page
//! faults, interrupts, softirqs, the scheduler, calls without a row, and calls that cost
//! more in real use than in a warm loop).

use serde::{Deserialize, Serialize};

use super::CallMix;

/// One call's cost: the benchmark row it is read from and the share of the row's
/// operation that is this call (½ for `open` in a row that opens and closes).
#[derive(Debug, Clone, PartialEq)]
pub struct CallCost {
    pub call: String,
    pub row: String,
    pub seconds_per_call: f64,
    /// The run it came from.
    pub run: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PredictedCall {
    pub call: String,
    pub per_s: f64,
    pub row: String,
    pub seconds_per_call: f64,
    /// per_s × seconds_per_call, in seconds of system time per second.
    pub predicted_s_per_s: f64,
    /// The mean time in the kernel per call observed, when calls were timed: beside the
    /// row's cost per call (it includes any sleep in the call, the row's does not when
    /// the row never sleeps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_seconds_per_call: Option<f64>,
}

/// The prediction for a whole mix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    pub calls: Vec<PredictedCall>,
    /// Seconds of system time per second, all CPUs: predicted from the calls with a row.
    pub predicted_s_per_s: f64,
    /// Observed (the series' CPU system share × CPUs).
    pub observed_s_per_s: f64,
    /// observed − predicted.
    pub residual_s_per_s: f64,
    /// Share of the calls (by count) that had a row.
    pub covered_share: f64,
    /// Calls without a row, most frequent first, with their rates.
    pub without_row: Vec<(String, f64)>,
}

/// Predict `mix`'s system time from `costs`; `observed_s_per_s` is the system time seen.
pub fn predict(mix: &CallMix, costs: &[CallCost], observed_s_per_s: f64) -> Prediction {
    let mut calls = Vec::new();
    let mut without_row = Vec::new();
    let mut covered = 0u64;
    for c in &mix.calls {
        match costs.iter().find(|k| k.call == c.name) {
            Some(k) => {
                covered += c.count;
                calls.push(PredictedCall {
                    call: c.name.clone(),
                    per_s: c.per_s,
                    row: k.row.clone(),
                    seconds_per_call: k.seconds_per_call,
                    predicted_s_per_s: c.per_s * k.seconds_per_call,
                    observed_seconds_per_call: c.mean_s(),
                });
            }
            None => without_row.push((c.name.clone(), c.per_s)),
        }
    }
    calls.sort_by(|a, b| b.predicted_s_per_s.total_cmp(&a.predicted_s_per_s));
    let predicted: f64 = calls.iter().map(|c| c.predicted_s_per_s).sum();
    Prediction {
        calls,
        predicted_s_per_s: predicted,
        observed_s_per_s,
        residual_s_per_s: observed_s_per_s - predicted,
        covered_share: covered as f64 / mix.total.max(1) as f64,
        without_row,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::observation::{CallCount, CallTime};

    #[test]
    fn calls_times_costs_are_the_prediction_and_the_rest_is_the_residual() {
        let mix = CallMix {
            total: 3000,
            calls: vec![
                CallCount {
                    name: "read".into(),
                    count: 2000,
                    per_s: 1000.0,
                    time: Some(CallTime {
                        timed: 2000,
                        total_s: 2000.0 * 3e-6,
                        unfinished: 0,
                        log2_ns: Vec::new(),
                    }),
                },
                CallCount {
                    name: "futex".into(),
                    count: 1000,
                    per_s: 500.0,
                    time: None,
                },
            ],
            ..CallMix::default()
        };
        let costs = [CallCost {
            call: "read".into(),
            row: "syscall.read".into(),
            seconds_per_call: 2e-6,
            run: 7,
        }];
        let p = predict(&mix, &costs, 0.005);
        assert_eq!(p.calls.len(), 1);
        assert!((p.predicted_s_per_s - 0.002).abs() < 1e-12, "1000/s × 2 µs");
        assert!((p.residual_s_per_s - 0.003).abs() < 1e-12);
        assert!((p.covered_share - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(p.without_row, vec![("futex".to_string(), 500.0)]);
        let seen = p.calls[0].observed_seconds_per_call.unwrap();
        assert!(
            (seen - 3e-6).abs() < 1e-12,
            "the observed mean beside the row's cost"
        );
    }
}
