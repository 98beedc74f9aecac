//! An observation of the whole machine at work (seed 001 §2): what `timeshare observe`
//! records over a span of real use — vmstat/iostat rates, the system-call mix, a kernel
//! profile with call graphs, cache figures and the network's share — stored beside runs,
//! exported and imported as a JSON file of its own.
//!
//! The record carries its format name and version ([`FORMAT`], [`VERSION`]); a file of
//! another format or a newer version is refused. Every part that may be missing on a
//! machine is a [`Part`]: measured, or unavailable with the exact reason, so that a
//! report never shows an empty table without saying why.
//!
//! Raw SI values: per second, bytes, seconds, shares 0..1.

pub mod cost;
pub mod predict;
pub mod rates;
pub mod subsystem;

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::environment::Environment;
pub use rates::{RateKey, RateSummary, Rates, SeriesLine, RATE_KEYS};

/// The `format` field of every observation file.
pub const FORMAT: &str = "timeshare-observation";
/// The version of the record this build writes and reads.
pub const VERSION: u32 = 1;

/// One observation of the machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemObservation {
    pub format: String,
    pub version: u32,
    pub started_at: DateTime<Utc>,
    pub finished_at: DateTime<Utc>,
    /// Seconds observed (monotonic clock).
    pub duration_s: f64,
    pub span: Span,
    /// False when Ctrl-C or a signal ended the span early: what was measured is kept.
    pub complete: bool,
    /// True while it is stored as it goes, and for good when its observer died before
    /// the end (kill -9, out of memory, a reboot): all but the last minute is kept.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub environment: Environment,
    pub rates: Rates,
    pub calls: Part<CallMix>,
    pub profile: Part<KernelProfile>,
    pub caches: Vec<CacheFigure>,
    pub network: NetworkShare,
    pub overhead: ObserverCost,
    /// Sentences about the observation (what was mounted, what was skipped and why).
    #[serde(default)]
    pub notes: Vec<String>,
}

impl SystemObservation {
    /// A one-line name of the span: `60 s` or `make -j2 (exit 0)`.
    pub fn span_text(&self) -> String {
        match &self.span {
            Span::For { seconds } => format!("for {seconds} s"),
            Span::Command { argv, exit } => {
                format!("{} ({})", argv.join(" "), exit.describe())
            }
            Span::Workload {
                what,
                run: Some(run),
            } => format!("{what} (stored as {run})"),
            Span::Workload { what, run: None } => what.clone(),
        }
    }
}

/// What the observation covered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Span {
    /// `observe --for DURATION`.
    For { seconds: f64 },
    /// `observe -- COMMAND ARGS`: the command's life, and how it ended.
    Command {
        argv: Vec<String>,
        exit: CommandExit,
    },
    /// `run … --observe-system` or `exercise … --observe-system`: the life of one of
    /// timeshare's own workloads (`what`, its command line), and the name its run was
    /// stored under, if it was.
    Workload { what: String, run: Option<String> },
}

/// How the observed command ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "how", rename_all = "lowercase")]
pub enum CommandExit {
    Status {
        code: i32,
    },
    Signal {
        signal: i32,
    },
    /// Still running when the observation was interrupted (it was then signalled).
    Unknown,
}

impl CommandExit {
    pub fn describe(&self) -> String {
        match self {
            CommandExit::Status { code } => format!("exit {code}"),
            CommandExit::Signal { signal } => format!("killed by signal {signal}"),
            CommandExit::Unknown => "exit unknown".into(),
        }
    }
}

/// A part of an observation: measured, or why it could not be.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum Part<T> {
    Measured(T),
    Unavailable { reason: String },
}

impl<T> Part<T> {
    pub fn measured(&self) -> Option<&T> {
        match self {
            Part::Measured(t) => Some(t),
            Part::Unavailable { .. } => None,
        }
    }

    pub fn reason(&self) -> Option<&str> {
        match self {
            Part::Measured(_) => None,
            Part::Unavailable { reason } => Some(reason),
        }
    }

    pub fn unavailable(reason: impl Into<String>) -> Part<T> {
        Part::Unavailable {
            reason: reason.into(),
        }
    }
}

/// Every system call counted by name over the span (the kernel's `raw_syscalls:sys_enter`
/// tracepoint, each call's number named by the x86-64 table).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CallMix {
    /// How the calls were counted, in one sentence.
    pub method: String,
    /// Calls counted, on the whole machine.
    pub total: u64,
    pub per_s: f64,
    /// Calls the kernel could not hand over (ring buffer full): the counts are short by
    /// this many.
    pub lost: u64,
    /// Every call made at least once, most frequent first.
    pub calls: Vec<CallCount>,
    /// By command name (the process's `comm`), most calls first.
    pub by_command: Vec<CommandCalls>,
    /// The observed command and every process it started (`observe -- COMMAND`), counted
    /// apart from the rest of the machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_tree: Option<CommandCalls>,
    /// How the time in each call was measured, or why it was not (`None`: a record made
    /// before calls were timed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<Part<CallTiming>>,
}

/// The time spent in the kernel per call: each thread's entry paired with its next exit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CallTiming {
    /// How the calls were timed and what the time includes, in one sentence.
    pub method: String,
    /// Calls whose entry and exit were both seen (the ones timed).
    pub timed: u64,
    /// Their time in the kernel, seconds, all of them together.
    pub total_s: f64,
    /// Calls entered in the span and not returned from by its end (a long sleep, a
    /// `wait4` on a child still running, an `epoll_wait` of a daemon): counted, not timed.
    pub unfinished: u64,
    /// Exits without an entry in the span: calls entered before it began.
    pub exits_unentered: u64,
    /// Entries followed by another entry of the same thread with no exit between (a lost
    /// or late record): counted, not timed.
    pub unpaired: u64,
    /// One call in how many of each number was timed (1: every call; more when counted in
    /// the kernel, where each clock read costs the call). Each call's time in the kernel
    /// is then its sample's mean times its count ([`CallCount::total_s`]).
    #[serde(default = "every_call", skip_serializing_if = "is_every_call")]
    pub one_in: u64,
}

fn every_call() -> u64 {
    1
}

fn is_every_call(n: &u64) -> bool {
    *n <= 1
}

impl CallTiming {
    /// Whether the calls' times are of a sample of them.
    pub fn sampled(&self) -> bool {
        self.one_in > 1
    }
}

impl CallMix {
    /// The count of call `name` on the whole machine.
    pub fn count(&self, name: &str) -> u64 {
        count_of(&self.calls, name)
    }
}

/// The count of call `name` in `calls` (0 when it was never made).
fn count_of(calls: &[CallCount], name: &str) -> u64 {
    calls.iter().find(|c| c.name == name).map_or(0, |c| c.count)
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CallCount {
    pub name: String,
    pub count: u64,
    pub per_s: f64,
    /// The time in the kernel of the calls timed, when calls were timed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<CallTime>,
}

impl CallCount {
    /// Mean seconds in the kernel per call timed.
    pub fn mean_s(&self) -> Option<f64> {
        self.time.as_ref().and_then(CallTime::mean_s)
    }

    /// Seconds in the kernel of all the calls that returned (0 when not timed): the
    /// time of those timed, or, when only a sample of them was, the sample's mean times
    /// their count.
    pub fn total_s(&self) -> f64 {
        let Some(t) = self.time.as_ref() else {
            return 0.0;
        };
        match t.mean_s() {
            Some(mean) if self.extrapolated() => mean * self.returned() as f64,
            _ => t.total_s,
        }
    }

    /// Whether [`Self::total_s`] counts calls that returned but were not timed at their
    /// call's mean: a sample was timed, or records were lost or late (unpaired).
    pub fn extrapolated(&self) -> bool {
        self.time
            .as_ref()
            .is_some_and(|t| t.timed > 0 && t.timed < self.returned())
    }

    /// Calls that returned within the span.
    fn returned(&self) -> u64 {
        let unfinished = self.time.as_ref().map_or(0, |t| t.unfinished);
        self.count.saturating_sub(unfinished)
    }
}

/// One call's time in the kernel: from its entry to its exit, sleeping included.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CallTime {
    /// Calls with both ends seen.
    pub timed: u64,
    /// Their time together, seconds.
    pub total_s: f64,
    /// Entered and not returned from by the end of the span.
    #[serde(default)]
    pub unfinished: u64,
    /// Calls timed per log2 slot of nanoseconds (slot i: [2^i, 2^(i+1)) ns, slot 0 also
    /// 0 ns), when counted in the kernel; empty from perf's records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub log2_ns: Vec<u64>,
}

impl CallTime {
    pub fn mean_s(&self) -> Option<f64> {
        (self.timed > 0).then(|| self.total_s / self.timed as f64)
    }

    /// The `q` quantile (0 < q ≤ 1) of the calls' times from their histogram, in
    /// seconds: the upper edge of the slot where it falls (an over-estimate by less than
    /// twice). None without a histogram.
    pub fn quantile_s(&self, q: f64) -> Option<f64> {
        let total: u64 = self.log2_ns.iter().sum();
        if total == 0 {
            return None;
        }
        let want = (q * total as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, n) in self.log2_ns.iter().enumerate() {
            seen += n;
            if seen >= want {
                return Some(2f64.powi(i as i32 + 1) * 1e-9);
            }
        }
        None
    }
}

/// The calls of one command name (or of the observed command's tree).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CommandCalls {
    pub command: String,
    pub total: u64,
    /// Its calls by name, most first (the top ones for a command name; all of them for
    /// the observed tree).
    pub calls: Vec<CallCount>,
}

impl CommandCalls {
    /// The count of call `name` by this command (or tree).
    pub fn count(&self, name: &str) -> u64 {
        count_of(&self.calls, name)
    }
}

/// The kernel's profile over the span (001 §2.2's gprof of the kernel): samples of every
/// CPU with call chains.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KernelProfile {
    /// The sampler, in one sentence (`perf record -a -g -F 999, cpu-clock`).
    pub method: String,
    pub frequency_hz: u32,
    /// Every sample, any CPU.
    pub samples: u64,
    /// Samples of idle CPUs (the idle task in its idle loop): not system time.
    pub idle_samples: u64,
    /// Samples in user mode.
    pub user_samples: u64,
    /// Samples in the kernel, not idle: system time, the shares' denominator.
    pub system_samples: u64,
    /// Kernel functions by self share, with their inclusive share (gprof's two columns).
    pub functions: Vec<KernelFunction>,
    /// System time by subsystem, largest first (rules: [`subsystem`]).
    pub subsystems: Vec<SubsystemShare>,
    /// Folded kernel stacks of system time (`comm;outer;…;leaf count`), the flame graph's
    /// input; the rarest are
    /// merged into one line per command when there are many.
    pub folded: Vec<FoldedStack>,
    /// CPU seconds the recorder and its post-processing used.
    pub profiler_cpu_s: f64,
    /// Path-name translation (001's namei: [`subsystem::NAMEI`]) as a share of system
    /// time: in it (self) and with what it calls.
    #[serde(default)]
    pub namei_self_share: f64,
    #[serde(default)]
    pub namei_inclusive_share: f64,
    /// Samples in the observer itself (its tracepoint and BPF handlers, perf's own
    /// frames: [`subsystem::OBSERVER_FRAMES`]). Not system time: left out of
    /// `system_samples` and of every share, so that the shares are the machine's.
    #[serde(default)]
    pub observer_samples: u64,
    /// Sampled and counted in the kernel by a BPF program: no recorder process ran, and
    /// what sampling cost is in the sampled tasks' own time, not in `profiler_cpu_s`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub in_kernel: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelFunction {
    pub name: String,
    /// Share of system time with this function at the top of the stack.
    pub self_share: f64,
    /// Share of system time with this function anywhere on the stack.
    pub inclusive_share: f64,
    pub self_samples: u64,
    pub inclusive_samples: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubsystemShare {
    pub subsystem: String,
    pub samples: u64,
    pub share: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FoldedStack {
    pub stack: String,
    pub count: u64,
}

impl KernelProfile {
    /// The share of system time in `subsystem` (0 when none of it was seen).
    pub fn share_of(&self, subsystem: &str) -> f64 {
        self.subsystems
            .iter()
            .find(|s| s.subsystem == subsystem)
            .map_or(0.0, |s| s.share)
    }

    /// The observer's share of the kernel time sampled (the machine's system time and
    /// the observer's together).
    pub fn observer_share(&self) -> f64 {
        let all = self.system_samples + self.observer_samples;
        if all == 0 {
            0.0
        } else {
            self.observer_samples as f64 / all as f64
        }
    }
}

/// One cache figure (001 §2.3, §3.2.6), or why it could not be had.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheFigure {
    /// `page cache hit ratio of reads`, `read-ahead pages used`, `name lookups`…
    pub name: String,
    pub value: Part<CacheValue>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheValue {
    /// The ratio 0..1, when the figure is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
    /// The counts it was made of, by name.
    pub counts: BTreeMap<String, u64>,
    /// How it was counted.
    pub how: String,
}

/// The network's share (001 §3.2.7): messages in and out, the softirqs that handle them,
/// and their time as a share of system time (from the profile).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NetworkShare {
    /// IP datagrams received and sent (/proc/net/snmp `Ip: InReceives`, `OutRequests`).
    pub messages_in: u64,
    pub messages_out: u64,
    /// NET_RX and NET_TX softirqs raised (/proc/softirqs), per second.
    pub net_rx_softirqs_per_s: f64,
    pub net_tx_softirqs_per_s: f64,
    /// Network receive/transmit and protocol work as a share of system time (profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_share: Option<f64>,
    /// Of it, the protocols' timers (tcp's retransmit, delayed-ack and keepalive timers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timer_share: Option<f64>,
    /// Of it, the receive side (softirq NET_RX and below: `net_rx_action`, `napi_…`, a
    /// protocol's receive routine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receive_share: Option<f64>,
}

/// What observing cost: the observer's own CPU time over the span.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ObserverCost {
    /// CPU seconds (user + system) of timeshare's own process while observing, the call
    /// mix's reader and the series' sampler included.
    pub observer_cpu_s: f64,
    /// The same as a share of one CPU over the span.
    pub share_of_one_cpu: f64,
    /// CPU seconds of `perf record` and `perf script`, when profiling.
    #[serde(default)]
    pub profiler_cpu_s: f64,
}

/// What reading an observation file found wrong.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FileError {
    #[error("not an observation (its format is {0:?}, not {FORMAT:?})")]
    Format(String),
    #[error("observation version {0} is newer than this timeshare reads ({VERSION})")]
    Newer(u32),
}

/// Check the format and version of a parsed observation.
pub fn check_file(o: &SystemObservation) -> Result<(), FileError> {
    if o.format != FORMAT {
        return Err(FileError::Format(o.format.clone()));
    }
    if o.version > VERSION {
        return Err(FileError::Newer(o.version));
    }
    Ok(())
}

/// True when a JSON text is an observation rather than a run (its `format` field).
pub fn is_observation_json(bytes: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Head {
        format: Option<String>,
    }
    serde_json::from_slice::<Head>(bytes)
        .ok()
        .and_then(|h| h.format)
        .is_some_and(|f| f == FORMAT)
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A small observation, for tests here and in the store and reports.
    pub fn sample() -> SystemObservation {
        let t = DateTime::parse_from_rfc3339("2026-01-02T03:04:05Z")
            .unwrap()
            .with_timezone(&Utc);
        SystemObservation {
            format: FORMAT.into(),
            version: VERSION,
            started_at: t,
            finished_at: t + chrono::Duration::seconds(2),
            duration_s: 2.0,
            span: Span::Command {
                argv: vec!["true".into()],
                exit: CommandExit::Status { code: 0 },
            },
            complete: true,
            partial: false,
            label: None,
            environment: Environment::default(),
            rates: Rates::default(),
            calls: Part::Measured(CallMix {
                method: "x".into(),
                total: 10,
                per_s: 5.0,
                calls: vec![CallCount {
                    name: "read".into(),
                    count: 10,
                    per_s: 5.0,
                    time: None,
                }],
                ..CallMix::default()
            }),
            profile: Part::unavailable("not asked for"),
            caches: vec![],
            network: NetworkShare::default(),
            overhead: ObserverCost::default(),
            notes: vec![],
        }
    }

    #[test]
    fn an_observation_round_trips_and_says_what_it_is() {
        let o = sample();
        let json = serde_json::to_vec(&o).unwrap();
        assert!(is_observation_json(&json));
        assert!(!is_observation_json(b"{\"tool\":\"timeshare\"}"));
        let back: SystemObservation = serde_json::from_slice(&json).unwrap();
        assert_eq!(back, o);
        assert_eq!(check_file(&back), Ok(()));
        assert_eq!(o.span_text(), "true (exit 0)");
    }

    #[test]
    fn another_format_or_a_newer_version_is_refused() {
        let mut o = sample();
        o.version = VERSION + 1;
        assert_eq!(check_file(&o), Err(FileError::Newer(VERSION + 1)));
        o.format = "something".into();
        assert!(matches!(check_file(&o), Err(FileError::Format(_))));
    }

    /// `read` counted 10 times, 2 of them unfinished, `timed` of the others timed at
    /// 1 µs each.
    pub fn read_timed(timed: u64) -> CallCount {
        CallCount {
            name: "read".into(),
            count: 10,
            per_s: 5.0,
            time: Some(CallTime {
                timed,
                total_s: timed as f64 * 1e-6,
                unfinished: 2,
                log2_ns: vec![],
            }),
        }
    }

    #[test]
    fn a_calls_time_is_extrapolated_only_over_returned_calls_not_timed() {
        let all = read_timed(8);
        assert!(!all.extrapolated());
        assert!((all.total_s() - 8e-6).abs() < 1e-12);
        let some = read_timed(6);
        assert!(some.extrapolated());
        assert!((some.total_s() - 8e-6).abs() < 1e-12, "{}", some.total_s());
        let none = read_timed(0);
        assert!(!none.extrapolated());
        assert_eq!(none.total_s(), 0.0);
        let untimed = CallCount {
            time: None,
            ..read_timed(0)
        };
        assert!(!untimed.extrapolated());
    }

    #[test]
    fn an_unavailable_part_keeps_its_reason() {
        let p: Part<CallMix> = Part::unavailable("needs root");
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(json, r#"{"state":"unavailable","reason":"needs root"}"#);
        assert_eq!(p.reason(), Some("needs root"));
        assert!(p.measured().is_none());
    }
}
