//! `timeshare observe --cost`: what observing costs, measured on this machine (the model
//! and its arithmetic: [`crate::model::observation::cost`]).
//!
//! # Timing model
//! Each round observes in every setting once, in an order that rotates from round to
//! round (so that a drift of the machine's load falls on each setting alike). In each
//! setting the observer is started beside this process (its threads and `perf record`
//! are not pinned), given a moment to settle, and then this thread, pinned to one CPU,
//! times two loops by its own CPU clock (`CLOCK_THREAD_CPUTIME_ID`): a CPU-bound loop of
//! a fixed count (no system call), and a fixed number of `getppid` calls (the time per
//! call). The thread's CPU time holds what observing charges to it — the tracepoints'
//! records written in its calls, the profile's sampling interrupts — and not the time
//! other processes sharing its CPU ran, which on a busy machine would swamp it (wall
//! time there grows by the CPU's sharing factor). What the observer's own threads use is
//! measured apart (getrusage of each). The settings are compared by the median over the
//! rounds against observing nothing, measured the same way.

use std::time::Duration;

use anyhow::Result;

use super::span::{Beside, Parts};
use super::tally::CallTimes;
use crate::harness::children::AffinityGuard;
use crate::harness::clock;
use crate::harness::cpu;
use crate::model::observation::cost::{CostMeasurement, CostSetting};

/// The CPU-bound loop's count: about 0.1–0.3 s on today's CPUs.
const CPU_LOOP: u64 = 100_000_000;
/// getppid calls per round: about 0.05 s unobserved, a few times that traced.
pub const GETPPID_CALLS: u64 = 200_000;
/// How long an observer is given to start (perf record, the buffers) before the loops.
const SETTLE: Duration = Duration::from_millis(300);

/// The settings measured, the first observing nothing.
pub fn settings() -> Vec<(&'static str, Option<Parts>)> {
    let none = Parts {
        calls: false,
        call_times: CallTimes::Off,
        caches: false,
        profile: false,
    };
    vec![
        ("nothing observed", None),
        ("rates", Some(none)),
        (
            "rates + call mix (entries)",
            Some(Parts {
                calls: true,
                ..none
            }),
        ),
        (
            "rates + call mix, every call timed",
            Some(Parts {
                calls: true,
                call_times: CallTimes::OneIn(1),
                ..none
            }),
        ),
        (
            "rates + call mix timed (1 in 16)",
            Some(Parts {
                calls: true,
                call_times: CallTimes::DEFAULT,
                ..none
            }),
        ),
        (
            "rates + call mix timed + page cache",
            Some(Parts {
                calls: true,
                call_times: CallTimes::DEFAULT,
                caches: true,
                profile: false,
            }),
        ),
        (
            "everything (the default, with the profile)",
            Some(Parts::ALL),
        ),
    ]
}

/// Measure `rounds` rounds of every setting with the loops pinned to `cpu`; `progress`
/// is told each round.
pub fn measure(
    rounds: usize,
    cpu: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<CostMeasurement> {
    let plan = settings();
    let mut out: Vec<CostSetting> = plan
        .iter()
        .map(|(name, _)| CostSetting {
            name: name.to_string(),
            cpu_loop_s: Vec::new(),
            call_s: Vec::new(),
            observer_share: Vec::new(),
            machine_calls_per_s: Vec::new(),
            unavailable: None,
        })
        .collect();
    for round in 0..rounds {
        progress(&format!("round {} of {rounds}", round + 1));
        for k in 0..plan.len() {
            let i = (k + round) % plan.len();
            if out[i].unavailable.is_some() {
                continue;
            }
            match one(plan[i].1, cpu) {
                Ok(m) => {
                    out[i].cpu_loop_s.push(m.cpu_loop_s);
                    out[i].call_s.push(m.call_s);
                    out[i].observer_share.push(m.observer_share);
                    if let Some(c) = m.machine_calls_per_s {
                        out[i].machine_calls_per_s.push(c);
                    }
                    if let Some(why) = m.missing {
                        out[i].unavailable = Some(why);
                    }
                }
                Err(e) => out[i].unavailable = Some(format!("{e:#}")),
            }
        }
    }
    Ok(CostMeasurement {
        cpu,
        rounds,
        getppid_calls: GETPPID_CALLS,
        settings: out,
    })
}

struct One {
    cpu_loop_s: f64,
    call_s: f64,
    observer_share: f64,
    machine_calls_per_s: Option<f64>,
    /// A part asked for that this machine would not give (the setting is then not what
    /// it says, and is left out).
    missing: Option<String>,
}

/// The loops timed once, with `parts` observed beside them (None: nothing).
fn one(parts: Option<Parts>, cpu: usize) -> Result<One> {
    let observer = match parts {
        Some(p) => Some(Beside::start(
            Duration::from_secs(1),
            "observe --cost".into(),
            p,
            false,
        )?),
        None => None,
    };
    std::thread::sleep(SETTLE);
    let (cpu_loop_s, call_s) = {
        let _restore = AffinityGuard::save();
        cpu::pin_to(&[cpu])?;
        (cpu_loop(), getppid_loop())
    };
    let Some(observer) = observer else {
        return Ok(One {
            cpu_loop_s,
            call_s,
            observer_share: 0.0,
            machine_calls_per_s: None,
            missing: None,
        });
    };
    let o = observer.finish()?;
    let p = parts.expect("observed");
    let missing = [(p.calls, o.calls.reason()), (p.profile, o.profile.reason())]
        .into_iter()
        .find_map(|(asked, why)| asked.then_some(why).flatten())
        .map(str::to_string);
    Ok(One {
        cpu_loop_s,
        call_s,
        observer_share: o.overhead.share_of_one_cpu,
        machine_calls_per_s: o.calls.measured().map(|m| {
            // The loops' own calls are the workload's, not the machine's.
            let own = m.command_tree.as_ref().map_or(0, |t| t.total);
            m.total.saturating_sub(own) as f64 / o.duration_s.max(1e-6)
        }),
        missing,
    })
}

/// A fixed count of dependent integer steps, no system call; its CPU time.
fn cpu_loop() -> f64 {
    let start = clock::thread_cpu_s();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..CPU_LOOP {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    std::hint::black_box(x);
    clock::thread_cpu_s() - start
}

/// CPU time per getppid, over [`GETPPID_CALLS`] calls.
fn getppid_loop() -> f64 {
    let start = clock::thread_cpu_s();
    for _ in 0..GETPPID_CALLS {
        // SAFETY: getppid has no arguments and cannot fail.
        std::hint::black_box(unsafe { libc::syscall(libc::SYS_getppid) });
    }
    (clock::thread_cpu_s() - start) / GETPPID_CALLS as f64
}
