//! The whole machine's system calls by name, command and process tree, for `timeshare
//! observe` (001 §2.1's "system calls per second", and what they were), with the time
//! each call spent in the kernel.
//!
//! # Counting model
//! The kernel's `raw_syscalls:sys_enter` tracepoint, and when calls are timed
//! `raw_syscalls:sys_exit` as well, on every CPU, read back in time order
//! ([`super::stream`]): every call on the machine writes one record (the caller's pid and
//! tid, the time, the call's number) at its entry and one at its exit. The kernel's fork
//! and comm records come through the same buffers, so a process's command name and its
//! parent are known even when it lived for a millisecond. The call's number is named by
//! the x86-64 table of the `syscalls` crate. A record the buffer had no room for is
//! counted as lost (the kernel says how many), never guessed. The observer's own calls are
//! left out of every count: the whole process's when it observes the machine (`observe
//! --for`, `observe -- COMMAND`), only its observing threads' when it observes beside a
//! workload of its own (`run --observe-system`), whose calls are the point.
//!
//! # Timing model
//! A call is counted at its entry. Its time is its thread's next exit record less its
//! entry record, both stamped by the kernel on `CLOCK_MONOTONIC`: wall time in the
//! kernel, so a call that sleeps (`nanosleep`, a `read` waiting for the disk, `futex`,
//! `wait4`) counts its sleep, and a call preempted counts the time others ran. What
//! cannot be paired is counted, not guessed: a call still in the kernel at the end of the
//! span (unfinished), an exit whose entry came before the span began, an entry followed
//! by another entry of its thread (a lost or late exit). `exit` and `exit_group` never
//! return and are not timed.
//!
//! Each record costs the caller its write, charged to the call: about 1.1 µs for the
//! entry's and 0.75 µs more for the exit's on a 2-CPU VM (`observe --cost` measures it;
//! docs/observe.md has the figures). So this record path is the fallback: where BPF can
//! be loaded, [`CallCounting::start`] counts in the kernel instead ([`super::kcount`]),
//! into the same tally, and the mix's method says which path ran.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::Result;

use super::perf::{explain, SyscallTracepoints};
use super::stream::{
    self, record_time, sample_raw, u32_at, u64_at, Consumer, Reading, TraceStream, RECORD_COMM,
    RECORD_FORK, RECORD_LOST, RECORD_SAMPLE,
};
use super::tally::{CallTimes, Event, LeaveOut, Mine, Processes, Tallied, Tally};
use crate::model::observation::{CallCount, CallMix, CallTime, CallTiming, CommandCalls, Part};

/// Ring buffer per CPU: 8 MiB holds about 55,000 timed calls (an entry record of 96
/// bytes, an exit of 56), half a second of a busy CPU; the reader is woken at a quarter.
const BUFFER_BYTES: usize = 8 << 20;
/// Calls named per command in the by-command table.
const TOP_PER_COMMAND: usize = 5;

/// The tracepoints read, and where their fields are.
#[derive(Debug, Clone, Copy)]
struct Ids {
    enter: u64,
    /// `raw_syscalls:sys_exit`, when calls are timed.
    exit: Option<u64>,
    /// The call's number (`long id`) in each raw record.
    enter_id_at: usize,
    exit_id_at: usize,
}

/// Decode one record (its bytes after the header) and its time.
fn decode(ty: u32, b: &[u8], ids: &Ids) -> Option<(u64, Event)> {
    let time = record_time(ty, b)?;
    let event = match ty {
        RECORD_SAMPLE => {
            // u32 pid, u32 tid, u64 time, u32 raw size, raw: the tracepoint's fields,
            // led by its common_type (the tracepoint's id).
            let (pid, tid) = (u32_at(b, 0)?, u32_at(b, 4)?);
            let raw = sample_raw(b);
            let kind = u16::from_ne_bytes(raw.get(0..2)?.try_into().ok()?) as u64;
            if kind == ids.enter {
                let id = u64_at(raw, ids.enter_id_at)? as u32;
                Event::Enter { pid, tid, id }
            } else if Some(kind) == ids.exit {
                let id = u64_at(raw, ids.exit_id_at)? as u32;
                Event::Exit { pid, tid, id }
            } else {
                return None;
            }
        }
        // u32 pid, ppid, tid, ptid, u64 time.
        RECORD_FORK => Event::Fork {
            pid: u32_at(b, 0)?,
            ppid: u32_at(b, 4)?,
        },
        RECORD_COMM => {
            // u32 pid, tid, then the NUL-terminated name; a thread's own name (pid ≠
            // tid) is not the process's.
            let (pid, tid) = (u32_at(b, 0)?, u32_at(b, 4)?);
            if pid != tid {
                return None;
            }
            let name = b.get(8..)?.split(|&c| c == 0).next().unwrap_or(&[]);
            Event::Comm {
                pid,
                name: String::from_utf8_lossy(name).into_owned(),
            }
        }
        // u64 id, u64 lost.
        RECORD_LOST => Event::Lost(u64_at(b, 8)?),
        _ => return None,
    };
    Some((time, event))
}

/// The reader's side: the records decoded and tallied as they come.
struct CallReader {
    ids: Ids,
    tally: Tally,
    leave_out: LeaveOut,
    mine: Mine,
    total: Arc<AtomicU64>,
}

impl Consumer for CallReader {
    type Event = Event;

    fn decode(&self, ty: u32, bytes: &[u8]) -> Option<(u64, Event)> {
        decode(ty, bytes, &self.ids)
    }

    /// The observing threads may have grown since the last round.
    fn round(&mut self) {
        self.mine.threads = match self.leave_out {
            LeaveOut::ThisProcess => None,
            LeaveOut::ObserverThreads => Some(super::observer_threads()),
        };
    }

    fn take(&mut self, time: u64, event: Event) {
        let calls = self.tally.take(time, event, &self.mine);
        if calls > 0 {
            self.total.fetch_add(calls, Ordering::Relaxed);
        }
    }
}

/// Counting every call on the machine; [`CallCounting::stop`] ends it.
pub struct CallCounting {
    total: Arc<AtomicU64>,
    path: CountingPath,
    started: std::time::Instant,
    /// Why calls are not timed, when they are not.
    untimed: Option<String>,
    /// One call in how many timed, in the kernel (1: every call).
    one_in: u32,
}

/// Where the calls are counted.
enum CountingPath {
    /// In the kernel, by the BPF programs ([`super::kcount`]).
    Kernel(super::kcount::KernelCounting),
    /// In this process, from perf's records of every entry and exit.
    Records(Reading<CallReader>),
}

/// What the kernel path costs a call, as measured on a 2-CPU VM (docs/observe.md).
const KERNEL_PATH_COST_TIMED: &str = "about 0.23 µs added to a call timed, measured at rest \
     (the tracepoints' dispatch about 0.11 µs of it, the two clock reads about 0.07 µs)";
/// Untimed: the entry's tracepoint and counting only (no exit program, no clock read).
const KERNEL_PATH_COST_UNTIMED: &str =
    "about 0.1 µs added to a call untimed, estimated from the timed path's parts (the \
     entry's tracepoint and its counting)";
/// What the record path costs a call, as measured on a 2-CPU VM (docs/observe.md).
const RECORD_PATH_COST: &str = "about 1.9 µs a call timed, 1.1 µs untimed";

impl CallCounting {
    /// Count in the kernel where BPF can be loaded, else open the tracepoints on every
    /// CPU and start the reader of their records; `timed`: the exits too, for each
    /// call's time. Why the kernel path could not be had goes into `notes`. As root the
    /// tracefs is mounted if it is not. `processes`: whether calls are told apart by
    /// process (for the observed command's tree). Fails with the exact privilege or
    /// setting it needs.
    pub fn start(
        is_root: bool,
        leave_out: LeaveOut,
        timing: CallTimes,
        processes: Processes,
        notes: &mut Vec<String>,
    ) -> std::result::Result<Self, String> {
        if is_root {
            // TIMESHARE_NO_BPF takes the record path, to compare the two on one machine.
            let kernel = match std::env::var_os("TIMESHARE_NO_BPF") {
                Some(_) => Err("TIMESHARE_NO_BPF is set".to_string()),
                None => Self::start_in_kernel(leave_out, timing, processes),
            };
            match kernel {
                Ok(counting) => return Ok(counting),
                Err(why) => notes.push(format!(
                    "calls counted from perf's records, not in the kernel: {why}"
                )),
            }
        }
        Self::start_records(
            is_root,
            leave_out,
            timing != CallTimes::Off,
            processes,
            notes,
        )
    }

    /// Count in the kernel (the BPF path), or say why it cannot.
    pub fn start_in_kernel(
        leave_out: LeaveOut,
        timing: CallTimes,
        processes: Processes,
    ) -> std::result::Result<Self, String> {
        let total = Arc::new(AtomicU64::new(0));
        let k =
            super::kcount::KernelCounting::start(leave_out, timing, processes, Arc::clone(&total))?;
        Ok(CallCounting {
            total,
            path: CountingPath::Kernel(k),
            started: std::time::Instant::now(),
            untimed: (timing == CallTimes::Off).then(|| "not asked for (--no-call-times)".into()),
            one_in: timing.one_in(),
        })
    }

    /// Count from perf's records of every call (the fallback path).
    pub fn start_records(
        is_root: bool,
        leave_out: LeaveOut,
        timed: bool,
        processes: Processes,
        notes: &mut Vec<String>,
    ) -> std::result::Result<Self, String> {
        let tp = SyscallTracepoints::find(is_root, notes)?;
        let exit = if timed {
            stream::tracepoint("raw_syscalls/sys_exit")
                .ok_or("this kernel has no raw_syscalls:sys_exit tracepoint in tracefs")
        } else {
            Err("not asked for (--no-call-times)")
        };
        let ids = Ids {
            enter: tp.all,
            exit: exit.ok(),
            enter_id_at: stream::field_of("raw_syscalls/sys_enter", "id").unwrap_or(8),
            exit_id_at: stream::field_of("raw_syscalls/sys_exit", "id").unwrap_or(8),
        };
        let untimed = exit.err().map(str::to_string);
        let events: Vec<u64> = std::iter::once(ids.enter).chain(ids.exit).collect();
        let trace = TraceStream::open(&events, &stream::online_cpus(), BUFFER_BYTES, true)
            .map_err(|e| {
                format!(
                    "counting every call on the machine (raw_syscalls on each CPU): {}",
                    explain(&e, false)
                )
            })?;
        let total = Arc::new(AtomicU64::new(0));
        let reader = CallReader {
            ids,
            tally: Tally {
                timing: ids.exit.is_some(),
                processes,
                ..Tally::default()
            },
            leave_out,
            mine: Mine {
                pid: std::process::id(),
                threads: None,
            },
            total: Arc::clone(&total),
        };
        let reading = Reading::start(trace, "timeshare-observe-calls", reader)
            .map_err(|e| format!("starting the reader of the call tracepoints: {e}"))?;
        Ok(CallCounting {
            total,
            path: CountingPath::Records(reading),
            started: std::time::Instant::now(),
            untimed,
            one_in: 1,
        })
    }

    /// The mix so far, the counting going on, where it is counted in the kernel (the
    /// record path's tally lives in its reader until the end: None).
    pub fn so_far(
        &self,
        tree_root: Option<(u32, String)>,
        not_in_tree: &[u32],
    ) -> Option<Result<CallMix>> {
        let CountingPath::Kernel(k) = &self.path else {
            return None;
        };
        let secs = self.started.elapsed().as_secs_f64().max(1e-6);
        Some(k.so_far().map(|kt| {
            let mix = summarise(&kt.tally, secs, tree_root, not_in_tree);
            kernel_mix(mix, &kt, self.one_in, self.untimed.as_deref())
        }))
    }

    /// The running total of calls counted (for the series' `syscalls` column).
    pub fn total(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.total)
    }

    /// Stop counting and return the mix; `tree_root` is the observed command's pid, whose
    /// tree is counted apart, but for the processes in `not_in_tree` (the observer's own
    /// children, such as `perf record`, when the root is this process).
    pub fn stop(self, tree_root: Option<(u32, String)>, not_in_tree: &[u32]) -> Result<CallMix> {
        let secs = self.started.elapsed().as_secs_f64().max(1e-6);
        match self.path {
            CountingPath::Records(reading) => {
                let reader = reading.finish()?;
                let mut mix = summarise(&reader.tally, secs, tree_root, not_in_tree);
                mix.method = format!("{}; {RECORD_PATH_COST}", mix.method);
                if let Some(why) = self.untimed {
                    mix.timing = Some(Part::unavailable(why));
                }
                Ok(mix)
            }
            CountingPath::Kernel(k) => {
                let kt = k.stop()?;
                let mix = summarise(&kt.tally, secs, tree_root, not_in_tree);
                Ok(kernel_mix(mix, &kt, self.one_in, self.untimed.as_deref()))
            }
        }
    }
}

/// The kernel path's mix with its methods, its histograms, and why calls were not timed.
fn kernel_mix(
    mut mix: CallMix,
    kt: &super::kcount::KernelTally,
    one_in: u32,
    untimed: Option<&str>,
) -> CallMix {
    kernel_methods(&mut mix, one_in);
    add_histograms(&mut mix, &kt.histograms);
    if let Some(why) = untimed {
        mix.timing = Some(Part::unavailable(why));
    }
    mix
}

/// Say how the kernel path counted and timed.
fn kernel_methods(mix: &mut CallMix, one_in: u32) {
    let timed = mix.timing.is_some();
    mix.method = format!(
        "counted in the kernel: BPF programs on raw_syscalls:sys_enter{} tally each call \
         by process, command and number in maps read at the end, no record per call \
         leaving the kernel; named by the x86-64 call table; the observer's own calls left \
         out; {}",
        if timed { " and sys_exit" } else { "" },
        if timed {
            KERNEL_PATH_COST_TIMED
        } else {
            KERNEL_PATH_COST_UNTIMED
        }
    );
    if let Some(Part::Measured(t)) = mix.timing.as_mut() {
        t.one_in = u64::from(one_in);
        let sample = if one_in > 1 {
            format!(
                "one call in {one_in} of each number on each CPU timed (the first \
                 included), the others counted at their entry; each call's time in the \
                 kernel is its sample's mean times its count; "
            )
        } else {
            String::new()
        };
        t.method = format!(
            "{sample}each timed thread's entry held in a BPF map until its exit, both \
             stamped by the kernel (bpf_ktime_get_ns): wall time in the kernel, sleeping in \
             the call included; a log2 histogram of nanoseconds per call timed"
        );
    }
}

/// Put each call's histogram of times (call number → calls per log2 slot) beside its
/// count in the machine's table.
fn add_histograms(mix: &mut CallMix, histograms: &HashMap<u32, [u64; super::kcount::SLOTS]>) {
    for c in &mut mix.calls {
        let Some(t) = c.time.as_mut() else { continue };
        let nr = c
            .name
            .parse::<syscalls::Sysno>()
            .ok()
            .map(|s| s.id() as u32);
        if let Some(h) = nr.and_then(|nr| histograms.get(&nr)) {
            let last = h.iter().rposition(|&n| n > 0).map_or(0, |i| i + 1);
            t.log2_ns = h[..last].to_vec();
        }
    }
}

/// The name of call number `id` on this architecture.
pub fn call_name(id: u32) -> String {
    syscalls::Sysno::new(id as usize)
        .map(|s| s.name().to_string())
        .unwrap_or_else(|| format!("syscall_{id}"))
}

fn sorted_counts(by_id: &BTreeMap<u32, Tallied>, secs: f64, timing: bool) -> Vec<CallCount> {
    let mut calls: Vec<CallCount> = by_id
        .iter()
        .map(|(id, t)| CallCount {
            name: call_name(*id),
            count: t.count,
            per_s: t.count as f64 / secs,
            time: timing.then_some(CallTime {
                timed: t.timed,
                total_s: t.ns as f64 * 1e-9,
                unfinished: t.unfinished,
                log2_ns: Vec::new(),
            }),
        })
        .collect();
    calls.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
    calls
}

fn add(into: &mut Tallied, t: &Tallied) {
    into.count += t.count;
    into.timed += t.timed;
    into.ns += t.ns;
    into.unfinished += t.unfinished;
}

/// Merge two lines of the same command name: their calls added, the top ones kept.
fn merge_command(first: &mut CommandCalls, later: &CommandCalls) {
    first.total += later.total;
    for c in &later.calls {
        match first.calls.iter_mut().find(|f| f.name == c.name) {
            Some(f) => {
                f.count += c.count;
                f.per_s += c.per_s;
                if let (Some(ft), Some(ct)) = (f.time.as_mut(), c.time.as_ref()) {
                    ft.timed += ct.timed;
                    ft.total_s += ct.total_s;
                    ft.unfinished += ct.unfinished;
                }
            }
            None => first.calls.push(c.clone()),
        }
    }
    first
        .calls
        .sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
    first.calls.truncate(TOP_PER_COMMAND);
}

/// The mix over `secs` seconds: by call, by command, and the observed tree apart.
fn summarise(
    t: &Tally,
    secs: f64,
    tree_root: Option<(u32, String)>,
    not_in_tree: &[u32],
) -> CallMix {
    let mut counts = t.counts.clone();
    for c in t.in_call.values() {
        counts.entry(c.key).or_default().unfinished += 1;
    }
    let mut by_id: BTreeMap<u32, Tallied> = BTreeMap::new();
    let mut by_cmd: BTreeMap<u32, BTreeMap<u32, Tallied>> = BTreeMap::new();
    let tree: HashSet<u32> = match &tree_root {
        Some((root, _)) => descendants(*root, &t.parent_of, not_in_tree),
        None => HashSet::new(),
    };
    let mut in_tree: BTreeMap<u32, Tallied> = BTreeMap::new();
    for (&(pid, cmd, id), n) in &counts {
        add(by_id.entry(id).or_default(), n);
        add(by_cmd.entry(cmd).or_default().entry(id).or_default(), n);
        if tree.contains(&pid) {
            add(in_tree.entry(id).or_default(), n);
        }
    }
    let total: u64 = by_id.values().map(|n| n.count).sum();
    let mut by_command: Vec<CommandCalls> = by_cmd
        .iter()
        .map(|(cmd, ids)| {
            let mut calls = sorted_counts(ids, secs, t.timing);
            calls.truncate(TOP_PER_COMMAND);
            CommandCalls {
                command: t.commands[*cmd as usize].clone(),
                total: ids.values().map(|n| n.count).sum(),
                calls,
            }
        })
        .collect();
    // Several processes may share a name: one line per name.
    by_command.sort_by(|a, b| a.command.cmp(&b.command));
    by_command.dedup_by(|later, first| {
        let same = later.command == first.command;
        if same {
            merge_command(first, later);
        }
        same
    });
    by_command.sort_by(|a, b| b.total.cmp(&a.total).then(a.command.cmp(&b.command)));
    let timing = t.timing.then(|| {
        Part::Measured(CallTiming {
            method: "each thread's entry paired with its next exit (raw_syscalls:sys_exit), \
                     both stamped by the kernel: wall time in the kernel, sleeping in the \
                     call included"
                .into(),
            timed: by_id.values().map(|n| n.timed).sum(),
            total_s: by_id.values().map(|n| n.ns).sum::<u64>() as f64 * 1e-9,
            unfinished: t.in_call.len() as u64,
            exits_unentered: t.exits_unentered,
            unpaired: t.unpaired,
            one_in: 1,
        })
    });
    CallMix {
        method: format!(
            "every call's entry (raw_syscalls:sys_enter{}, one sampling event per CPU with \
             period 1, read in time order), named by the x86-64 call table; the observer's \
             own calls left out",
            if t.timing { " and sys_exit" } else { "" }
        ),
        total,
        per_s: total as f64 / secs,
        lost: t.lost,
        calls: sorted_counts(&by_id, secs, t.timing),
        by_command,
        command_tree: tree_root.map(|(_, name)| CommandCalls {
            command: name,
            total: in_tree.values().map(|n| n.count).sum(),
            calls: sorted_counts(&in_tree, secs, t.timing),
        }),
        timing,
    }
}

/// `root` and every process whose chain of parents reaches it without passing through
/// one of `cut` (a cut process and its own descendants are outside the tree).
fn descendants(root: u32, parent_of: &HashMap<u32, u32>, cut: &[u32]) -> HashSet<u32> {
    let mut tree = HashSet::from([root]);
    for &pid in parent_of.keys() {
        let mut p = pid;
        let mut chain = Vec::new();
        // A chain is short; the bound guards against a pid reused into a cycle.
        for _ in 0..64 {
            if cut.contains(&p) {
                break;
            }
            if tree.contains(&p) {
                tree.extend(chain);
                break;
            }
            chain.push(p);
            match parent_of.get(&p) {
                Some(&pp) => p = pp,
                None => break,
            }
        }
    }
    tree
}

#[cfg(test)]
mod tests;
