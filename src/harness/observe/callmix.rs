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
use crate::model::observation::{CallCount, CallMix, CallTime, CallTiming, CommandCalls, Part};

/// Ring buffer per CPU: 8 MiB holds about 55,000 timed calls (an entry record of 96
/// bytes, an exit of 56), half a second of a busy CPU between two 10 ms reads.
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

/// One record of the stream, decoded.
#[derive(Debug, Clone, PartialEq)]
enum Event {
    Enter { pid: u32, tid: u32, id: u32 },
    Exit { pid: u32, tid: u32, id: u32 },
    Fork { pid: u32, ppid: u32 },
    Comm { pid: u32, name: String },
    Lost(u64),
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

/// Calls counted and timed, for one (process, command, call) or one call.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Tallied {
    pub(super) count: u64,
    pub(super) timed: u64,
    pub(super) ns: u64,
    pub(super) unfinished: u64,
}

/// A thread inside a call.
#[derive(Debug, Clone, Copy)]
pub(super) struct InCall {
    pub(super) id: u32,
    pub(super) since: u64,
    pub(super) key: (u32, u32, u32),
}

/// What the reader thread has counted so far.
#[derive(Default)]
pub(super) struct Tally {
    /// (pid, command index, call number) → calls.
    pub(super) counts: HashMap<(u32, u32, u32), Tallied>,
    commands: Vec<String>,
    command_of: HashMap<u32, u32>,
    pub(super) parent_of: HashMap<u32, u32>,
    pub(super) lost: u64,
    /// Whether exits are read (calls timed).
    pub(super) timing: bool,
    pub(super) in_call: HashMap<u32, InCall>,
    pub(super) exits_unentered: u64,
    pub(super) unpaired: u64,
}

impl Tally {
    pub(super) fn command_index(&mut self, name: String) -> u32 {
        match self.commands.iter().position(|c| *c == name) {
            Some(i) => i as u32,
            None => {
                self.commands.push(name);
                (self.commands.len() - 1) as u32
            }
        }
    }

    /// The command of `pid`: from its comm or fork record, else /proc (a process that
    /// was running before the span began), else its number.
    fn command_of(&mut self, pid: u32) -> u32 {
        if let Some(&i) = self.command_of.get(&pid) {
            return i;
        }
        let name = std::fs::read_to_string(format!("/proc/{pid}/comm"))
            .map(|s| s.trim_end().to_string())
            .unwrap_or_else(|_| format!("[pid {pid}]"));
        let i = self.command_index(name);
        self.command_of.insert(pid, i);
        i
    }

    /// Take one event at `time`; returns the calls it added.
    fn take(&mut self, time: u64, event: Event, mine: &Mine) -> u64 {
        match event {
            Event::Enter { pid, tid, id } => {
                if mine.made(pid, tid) {
                    return 0;
                }
                let key = (pid, self.command_of(pid), id);
                self.counts.entry(key).or_default().count += 1;
                if self.timing {
                    let never_returns =
                        [libc::SYS_exit, libc::SYS_exit_group].contains(&(id as libc::c_long));
                    let before = if never_returns {
                        self.in_call.remove(&tid)
                    } else {
                        self.in_call.insert(
                            tid,
                            InCall {
                                id,
                                since: time,
                                key,
                            },
                        )
                    };
                    if before.is_some() {
                        self.unpaired += 1;
                    }
                }
                1
            }
            Event::Exit { pid, tid, id } => {
                if mine.made(pid, tid) {
                    return 0;
                }
                match self.in_call.remove(&tid) {
                    // rt_sigreturn restores the registers its exit reads the call's number
                    // from, which then says -1.
                    Some(c) if (c.id == id || id == u32::MAX) && time >= c.since => {
                        let t = self.counts.entry(c.key).or_default();
                        t.timed += 1;
                        t.ns += time - c.since;
                    }
                    Some(_) => self.unpaired += 1,
                    None => self.exits_unentered += 1,
                }
                0
            }
            Event::Fork { pid, ppid } => {
                if pid != ppid {
                    self.parent_of.insert(pid, ppid);
                    if let Some(&c) = self.command_of.get(&ppid) {
                        self.command_of.insert(pid, c);
                    }
                }
                0
            }
            Event::Comm { pid, name } => {
                let i = self.command_index(name);
                self.command_of.insert(pid, i);
                0
            }
            Event::Lost(n) => {
                self.lost += n;
                0
            }
        }
    }
}

/// Whose calls the count leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaveOut {
    /// This whole process (it only observes).
    ThisProcess,
    /// Only this process's observing threads ([`super::register_observer_thread`]): the
    /// rest of it is the workload being observed.
    ObserverThreads,
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
}

/// Where the calls are counted.
enum CountingPath {
    /// In the kernel, by the BPF programs ([`super::kcount`]).
    Kernel(super::kcount::KernelCounting),
    /// In this process, from perf's records of every entry and exit.
    Records(Reading<CallReader>),
}

/// What the kernel path costs a call, as measured on a 2-CPU VM (docs/observe.md).
const KERNEL_PATH_COST: &str = "about 0.1 µs a call timed";
/// What the record path costs a call, as measured on a 2-CPU VM (docs/observe.md).
const RECORD_PATH_COST: &str = "about 1.9 µs a call timed, 1.1 µs untimed";

impl CallCounting {
    /// Count in the kernel where BPF can be loaded, else open the tracepoints on every
    /// CPU and start the reader of their records; `timed`: the exits too, for each
    /// call's time. Why the kernel path could not be had goes into `notes`. As root the
    /// tracefs is mounted if it is not. Fails with the exact privilege or setting it
    /// needs.
    pub fn start(
        is_root: bool,
        leave_out: LeaveOut,
        timed: bool,
        notes: &mut Vec<String>,
    ) -> std::result::Result<Self, String> {
        // TIMESHARE_NO_BPF takes the record path, to compare the two on one machine.
        if is_root && std::env::var_os("TIMESHARE_NO_BPF").is_none() {
            match Self::start_in_kernel(leave_out, timed) {
                Ok(counting) => return Ok(counting),
                Err(why) => notes.push(format!(
                    "calls counted from perf's records, not in the kernel: {why}"
                )),
            }
        }
        Self::start_records(is_root, leave_out, timed, notes)
    }

    /// Count in the kernel (the BPF path), or say why it cannot.
    pub fn start_in_kernel(leave_out: LeaveOut, timed: bool) -> std::result::Result<Self, String> {
        let total = Arc::new(AtomicU64::new(0));
        let k = super::kcount::KernelCounting::start(leave_out, timed, Arc::clone(&total))?;
        Ok(CallCounting {
            total,
            path: CountingPath::Kernel(k),
            started: std::time::Instant::now(),
            untimed: (!timed).then(|| "not asked for (--no-call-times)".into()),
        })
    }

    /// Count from perf's records of every call (the fallback path).
    pub fn start_records(
        is_root: bool,
        leave_out: LeaveOut,
        timed: bool,
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
        })
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
        let mut mix = match self.path {
            CountingPath::Records(reading) => {
                let reader = reading.finish()?;
                let mut mix = summarise(&reader.tally, secs, tree_root, not_in_tree);
                mix.method = format!("{}; {RECORD_PATH_COST}", mix.method);
                mix
            }
            CountingPath::Kernel(k) => {
                let kt = k.stop()?;
                let mut mix = summarise(&kt.tally, secs, tree_root, not_in_tree);
                kernel_methods(&mut mix);
                add_histograms(&mut mix, &kt.histograms);
                mix
            }
        };
        if let Some(why) = self.untimed {
            mix.timing = Some(Part::unavailable(why));
        }
        Ok(mix)
    }
}

/// Say how the kernel path counted and timed.
fn kernel_methods(mix: &mut CallMix) {
    let timed = mix.timing.is_some();
    mix.method = format!(
        "counted in the kernel: BPF programs on raw_syscalls:sys_enter{} tally each call \
         by process, command and number in maps read at the end, no record per call \
         leaving the kernel; named by the x86-64 call table; the observer's own calls left \
         out; {KERNEL_PATH_COST}",
        if timed { " and sys_exit" } else { "" }
    );
    if let Some(Part::Measured(t)) = mix.timing.as_mut() {
        t.method = "each thread's entry held in a BPF map until its exit, both stamped by \
                    the kernel (bpf_ktime_get_ns): wall time in the kernel, sleeping in the \
                    call included; a log2 histogram of nanoseconds per call"
            .into();
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

/// The observer's own calls, to leave out: the process, or only some of its threads.
struct Mine {
    pid: u32,
    threads: Option<Vec<u32>>,
}

impl Mine {
    fn made(&self, pid: u32, tid: u32) -> bool {
        pid == self.pid && self.threads.as_ref().is_none_or(|t| t.contains(&tid))
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
mod tests {
    use super::*;

    fn is_root() -> bool {
        // SAFETY: geteuid has no preconditions.
        unsafe { libc::geteuid() == 0 }
    }

    /// Count every call of the machine while `child` runs in a forked child; its tree's
    /// mix, and the whole mix. None (and why, printed) where the machine does not allow it.
    fn observe_child(child: fn()) -> Option<(CallMix, CommandCalls)> {
        let mut notes = Vec::new();
        let counting = match CallCounting::start(is_root(), LeaveOut::ThisProcess, true, &mut notes)
        {
            Ok(c) => c,
            Err(why) => {
                eprintln!("skipped: {why}");
                assert!(!is_root(), "root can count every call: {why}");
                return None;
            }
        };
        let mix = count_child(counting, child);
        let tree = mix.command_tree.clone().unwrap();
        Some((mix, tree))
    }

    /// Run `child` in a forked child while `counting` counts, wait for it, and stop: the
    /// mix, with the child's tree.
    fn count_child(counting: CallCounting, child: fn()) -> CallMix {
        // SAFETY: the child makes only async-signal-safe calls and ends with _exit.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            child();
            // SAFETY: ends the forked child at once.
            unsafe { libc::_exit(0) };
        }
        let mut status = 0;
        // SAFETY: waits for our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        counting
            .stop(Some((pid as u32, "child".into())), &[])
            .unwrap()
    }

    const GETPPIDS: u64 = 20_000;
    const READS: u64 = 12_345;
    const SLEEPS: u64 = 200;

    /// A child making exactly `n` getppid and `m` read calls, observed with the rest of
    /// the machine: its tree's counts are within 1 % of the truth (they are exact unless
    /// the kernel's buffer overflowed, which it says).
    #[test]
    fn a_known_workload_is_counted_apart_from_the_rest_of_the_machine() {
        let Some((mix, tree)) = observe_child(|| {
            let mut byte = [0u8; 1];
            // SAFETY: /dev/zero is opened and read into our buffer.
            unsafe {
                let fd = libc::open(c"/dev/zero".as_ptr(), libc::O_RDONLY);
                for _ in 0..GETPPIDS {
                    libc::syscall(libc::SYS_getppid);
                }
                for _ in 0..READS {
                    libc::read(fd, byte.as_mut_ptr().cast(), 1);
                }
            }
        }) else {
            return;
        };
        let within = |got: u64, want: u64| (got as f64 - want as f64).abs() <= 0.01 * want as f64;
        assert!(
            within(tree.count("getppid"), GETPPIDS),
            "{tree:?} lost {}",
            mix.lost
        );
        assert!(
            within(tree.count("read"), READS),
            "{tree:?} lost {}",
            mix.lost
        );
        assert!(
            mix.total >= tree.total,
            "the machine's total holds the child's"
        );
        assert!(mix
            .by_command
            .iter()
            .any(|c| c.count("getppid") >= GETPPIDS));
    }

    /// `SLEEPS` nanosleep calls of 1 ms, then `GETPPIDS` getppid calls.
    fn sleep_then_getppid() {
        let ms = libc::timespec {
            tv_sec: 0,
            tv_nsec: 1_000_000,
        };
        // SAFETY: nanosleep reads the timespec we pass; getppid has no arguments.
        unsafe {
            for _ in 0..SLEEPS {
                libc::syscall(
                    libc::SYS_nanosleep,
                    &ms,
                    std::ptr::null_mut::<libc::timespec>(),
                );
            }
            for _ in 0..GETPPIDS {
                libc::syscall(libc::SYS_getppid);
            }
        }
    }

    /// A child sleeping in `SLEEPS` nanosleep calls of 1 ms: each is counted and timed,
    /// and together they took at least the time asked for (a busy machine only adds);
    /// a getppid spends far less of it in the kernel than a sleep. The records are the
    /// whole machine's: beside programs that make millions of calls a second (two `yes`
    /// loops, in CI) the kernel's buffer overflows now and then (236,714 records lost in
    /// one CI run) and the counts are not exact, so the observation is made again, up to
    /// five times, until one loses nothing; what holds of the records kept is checked in
    /// any case.
    #[test]
    fn a_sleeping_call_is_timed_with_its_sleep() {
        let mut observed = None;
        for _ in 0..5 {
            let Some((mix, tree)) = observe_child(sleep_then_getppid) else {
                return;
            };
            let clean = mix.lost == 0;
            observed = Some((mix, tree));
            if clean {
                break;
            }
        }
        let (mix, tree) = observed.expect("observed at least once");
        let call = |name: &str| tree.calls.iter().find(|c| c.name == name).unwrap().clone();
        let (sleep, getppid) = (call("nanosleep"), call("getppid"));
        let time = sleep.time.as_ref().expect("timed");
        assert!(
            time.timed > 0 && time.total_s >= time.timed as f64 * 1e-3,
            "each sleep of 1 ms took at least 1 ms: {time:?}"
        );
        assert!(
            getppid.mean_s().unwrap() < sleep.mean_s().unwrap(),
            "{getppid:?} {sleep:?}"
        );
        if mix.lost > 0 {
            eprintln!(
                "{} records lost in each of five observations: the exact counts are not checked",
                mix.lost
            );
            return;
        }
        assert_eq!(sleep.count, SLEEPS, "{sleep:?}");
        assert_eq!(
            time.timed, SLEEPS,
            "every sleep returned in the span: {time:?}"
        );
        assert_eq!(getppid.count, GETPPIDS);
        let timing = mix.timing.as_ref().and_then(Part::measured).expect("timed");
        assert!(timing.timed >= SLEEPS + GETPPIDS, "{timing:?}");
    }

    /// Which path a test counts on.
    #[derive(Debug, Clone, Copy)]
    enum Path {
        Kernel,
        Records,
    }

    fn start_on(path: Path) -> Option<CallCounting> {
        let started = match path {
            Path::Kernel => CallCounting::start_in_kernel(LeaveOut::ThisProcess, true),
            Path::Records => {
                CallCounting::start_records(is_root(), LeaveOut::ThisProcess, true, &mut Vec::new())
            }
        };
        match started {
            Ok(c) => Some(c),
            Err(why) => {
                eprintln!("skipped on the {path:?} path: {why}");
                assert!(
                    !is_root() || (matches!(path, Path::Kernel) && !super::super::kcount::built()),
                    "root can count every call on the {path:?} path: {why}"
                );
                None
            }
        }
    }

    /// The real work, smaller: tar piped to gzip, then find piped to xargs stat.
    const TAR_FIND: &str = "tar cPf - /usr/include/linux | gzip -1 >/dev/null; \
                            find /usr/include/linux -name '*.h' | xargs stat >/dev/null";

    /// `strace -f -c`'s count of each call of `script` run by sh.
    fn strace_counts(script: &str) -> Option<HashMap<String, u64>> {
        let out = tempfile::NamedTempFile::new().unwrap();
        let status = std::process::Command::new("strace")
            .args(["-f", "-c", "-o"])
            .arg(out.path())
            .args(["sh", "-c", script])
            .status();
        match status {
            Ok(s) => assert!(s.success(), "strace of the workload failed: {s}"),
            Err(e) => {
                eprintln!("skipped: no strace ({e})");
                return None;
            }
        }
        let text = std::fs::read_to_string(out.path()).unwrap();
        // "% time seconds usecs/call calls [errors] syscall": calls is the fourth field
        // and the name the last; the total line is named "total".
        let counts = text
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                let calls = f.get(3)?.parse().ok()?;
                Some((f.last()?.to_string(), calls))
            })
            .filter(|(name, _)| name != "total")
            .collect();
        Some(counts)
    }

    /// The tree of `sh -c script`'s calls as counted on `path`, with the records lost.
    fn observed_counts(path: Path, script: &str) -> Option<(CommandCalls, u64)> {
        let counting = start_on(path)?;
        let child = std::process::Command::new("sh")
            .args(["-c", script])
            .spawn()
            .unwrap();
        let pid = child.id();
        let status = child.wait_with_output().unwrap().status;
        assert!(status.success(), "the workload failed: {status}");
        let mix = counting.stop(Some((pid, "sh".into())), &[]).unwrap();
        Some((mix.command_tree.unwrap(), mix.lost))
    }

    /// Each call the workload makes deterministically, at least 200 times, is counted
    /// within 1 % of strace's count, on the kernel path and on the record path. The
    /// record path may lose records beside a busy machine: it observes again, up to
    /// three times, until none is lost.
    fn matches_strace(path: Path) {
        let Some(truth) = strace_counts(TAR_FIND) else {
            return;
        };
        let calls = [
            "newfstatat",
            "close",
            "fcntl",
            "openat",
            "getdents64",
            "lseek",
            "statx",
        ];
        let compared: Vec<(&str, u64)> = calls
            .iter()
            .filter_map(|&c| truth.get(c).map(|&n| (c, n)))
            .filter(|&(_, n)| n >= 200)
            .collect();
        assert!(compared.len() >= 3, "strace saw too few calls: {truth:?}");
        for attempt in 1..=3 {
            let Some((tree, lost)) = observed_counts(path, TAR_FIND) else {
                return;
            };
            if lost > 0 && attempt < 3 {
                continue;
            }
            for &(call, want) in &compared {
                let got = tree.count(call);
                assert!(
                    (got as f64 - want as f64).abs() <= 0.01 * want as f64,
                    "{call}: {got} counted on the {path:?} path, strace {want} ({lost} lost)"
                );
            }
            return;
        }
    }

    #[test]
    fn tar_and_find_match_strace_counted_in_the_kernel() {
        matches_strace(Path::Kernel);
    }

    #[test]
    fn tar_and_find_match_strace_counted_from_records() {
        matches_strace(Path::Records);
    }

    /// The kernel path counts a known child exactly, apart from the machine, and times
    /// each call into its histogram.
    #[test]
    fn the_kernel_path_counts_and_times_a_known_child() {
        let Some(counting) = start_on(Path::Kernel) else {
            return;
        };
        let mix = count_child(counting, sleep_then_getppid);
        assert!(
            mix.method.starts_with("counted in the kernel"),
            "{}",
            mix.method
        );
        let tree = mix.command_tree.clone().unwrap();
        assert_eq!(tree.count("getppid"), GETPPIDS, "{tree:?}");
        assert_eq!(tree.count("nanosleep"), SLEEPS, "{tree:?}");
        let sleep = mix.calls.iter().find(|c| c.name == "nanosleep").unwrap();
        let time = sleep.time.as_ref().unwrap();
        assert!(time.log2_ns.iter().sum::<u64>() >= SLEEPS, "{time:?}");
        // A sleep of 1 ms lies in slot 19 (2^19 ns = 0.52 ms) or above.
        let median = time.quantile_s(0.5).unwrap();
        assert!(median >= 1e-3, "median {median} s of 1 ms sleeps");
    }

    fn ids() -> Ids {
        Ids {
            enter: 21,
            exit: Some(22),
            enter_id_at: 8,
            exit_id_at: 8,
        }
    }

    /// A sample record's bytes after its header: pid, tid, time, the raw size, then
    /// raw_syscalls' fields: the tracepoint's id first, the call's number at offset 8.
    fn sample_record(pid: u32, tid: u32, time: u64, tracepoint: u16, id: u64) -> Vec<u8> {
        let mut raw = Vec::new();
        raw.extend(tracepoint.to_ne_bytes());
        raw.extend([0u8; 6]);
        raw.extend(id.to_ne_bytes());
        let mut b = Vec::new();
        b.extend(pid.to_ne_bytes());
        b.extend(tid.to_ne_bytes());
        b.extend(time.to_ne_bytes());
        b.extend((raw.len() as u32).to_ne_bytes());
        b.extend(raw);
        b
    }

    #[test]
    fn records_are_decoded_by_their_tracepoint() {
        let getppid = libc::SYS_getppid as u64;
        let enter = decode(
            RECORD_SAMPLE,
            &sample_record(5, 6, 100, 21, getppid),
            &ids(),
        );
        assert_eq!(
            enter,
            Some((
                100,
                Event::Enter {
                    pid: 5,
                    tid: 6,
                    id: getppid as u32
                }
            ))
        );
        let exit = decode(
            RECORD_SAMPLE,
            &sample_record(5, 6, 150, 22, getppid),
            &ids(),
        );
        assert!(matches!(exit, Some((150, Event::Exit { .. }))), "{exit:?}");
        assert_eq!(
            decode(RECORD_SAMPLE, &sample_record(5, 6, 1, 99, getppid), &ids()),
            None,
            "another tracepoint"
        );
        let mut comm = Vec::new();
        comm.extend(7u32.to_ne_bytes());
        comm.extend(7u32.to_ne_bytes());
        comm.extend(b"make\0\0\0\0");
        comm.extend(7u64.to_ne_bytes());
        comm.extend(300u64.to_ne_bytes());
        assert_eq!(
            decode(RECORD_COMM, &comm, &ids()),
            Some((
                300,
                Event::Comm {
                    pid: 7,
                    name: "make".into()
                }
            ))
        );
        assert_eq!(call_name(libc::SYS_getppid as u32), "getppid");
        assert_eq!(call_name(99_999), "syscall_99999");
    }

    fn enter(pid: u32, tid: u32, id: i64) -> Event {
        Event::Enter {
            pid,
            tid,
            id: id as u32,
        }
    }

    fn exit(pid: u32, tid: u32, id: i64) -> Event {
        Event::Exit {
            pid,
            tid,
            id: id as u32,
        }
    }

    fn nobody() -> Mine {
        Mine {
            pid: 1,
            threads: None,
        }
    }

    #[test]
    fn records_are_counted_by_process_command_and_tree() {
        let mut t = Tally::default();
        let mine = nobody();
        let comm = |pid: u32, name: &str| Event::Comm {
            pid,
            name: name.into(),
        };
        let fork = |pid, ppid| Event::Fork { pid, ppid };
        t.take(0, comm(100, "make"), &mine);
        t.take(0, fork(101, 100), &mine);
        t.take(0, comm(101, "cc"), &mine);
        t.take(0, fork(102, 101), &mine);
        t.take(0, comm(200, "other"), &mine);
        let (getppid, read) = (libc::SYS_getppid, libc::SYS_read);
        for _ in 0..3 {
            assert_eq!(t.take(0, enter(102, 102, getppid), &mine), 1);
        }
        t.take(0, enter(100, 100, read), &mine);
        t.take(0, enter(200, 200, read), &mine);
        assert_eq!(t.take(0, enter(1, 1, read), &mine), 0, "ours");
        t.take(0, Event::Lost(5), &mine);
        let mix = summarise(&t, 2.0, Some((100, "make".into())), &[]);
        assert_eq!(mix.total, 5);
        assert_eq!(mix.lost, 5);
        assert_eq!(mix.count("getppid"), 3);
        assert_eq!(mix.calls[0].per_s, 1.5);
        assert!(
            mix.timing.is_none() && mix.calls[0].time.is_none(),
            "not timed"
        );
        let tree = mix.command_tree.unwrap();
        assert_eq!(
            tree.total, 4,
            "make, its child and grandchild; not the other"
        );
        assert_eq!(tree.count("getppid"), 3);
        // The grandchild forked from cc inherits its name.
        assert_eq!(mix.by_command[0].command, "cc");
        assert_eq!(mix.by_command[0].total, 3);
    }

    /// Each thread's entry is paired with its next exit; what cannot be paired is
    /// counted apart, never timed.
    #[test]
    fn entries_and_exits_are_paired_per_thread() {
        let mut t = Tally {
            timing: true,
            ..Tally::default()
        };
        let mine = nobody();
        let (sleep, getppid, exit_group, read) = (
            libc::SYS_nanosleep,
            libc::SYS_getppid,
            libc::SYS_exit_group,
            libc::SYS_read,
        );
        // Two threads of one process interleaved: a sleep of 1 ms and two getppid.
        t.take(1_000, enter(10, 10, sleep), &mine);
        t.take(1_100, enter(10, 11, getppid), &mine);
        t.take(1_300, exit(10, 11, getppid), &mine);
        t.take(1_400, enter(10, 11, getppid), &mine);
        t.take(1_500, exit(10, 11, getppid), &mine);
        t.take(1_001_000, exit(10, 10, sleep), &mine);
        // A signal handler's return: its exit says -1.
        t.take(1_600, enter(10, 11, libc::SYS_rt_sigreturn), &mine);
        t.take(1_700, exit(10, 11, -1), &mine);
        // An exit whose entry came before the span; a call that never returns; one
        // still in the kernel at the end; an entry whose exit was lost.
        t.take(2_000, exit(20, 20, read), &mine);
        t.take(2_000, enter(30, 30, exit_group), &mine);
        t.take(3_000, enter(40, 40, read), &mine);
        t.take(4_000, enter(50, 50, read), &mine);
        t.take(5_000, enter(50, 50, getppid), &mine);
        t.take(5_100, exit(50, 50, getppid), &mine);
        let mix = summarise(&t, 1.0, None, &[]);
        let call = |name: &str| mix.calls.iter().find(|c| c.name == name).unwrap().clone();
        let s = call("nanosleep");
        assert_eq!(s.time.as_ref().unwrap().timed, 1);
        assert!((s.mean_s().unwrap() - 1e-3).abs() < 1e-12, "{s:?}");
        let g = call("getppid");
        assert_eq!((g.count, g.time.as_ref().unwrap().timed), (3, 3));
        assert!(
            (g.mean_s().unwrap() - 400e-9 / 3.0 * 1.0).abs() < 1e-15,
            "{g:?}"
        );
        let r = call("read");
        assert_eq!(r.count, 2, "entries count; the exit without one does not");
        assert_eq!(r.time.as_ref().unwrap().timed, 0);
        assert_eq!(r.time.as_ref().unwrap().unfinished, 1, "pid 40's");
        let e = call("exit_group");
        assert_eq!((e.count, e.time.as_ref().unwrap().timed), (1, 0));
        let timing = mix.timing.unwrap();
        let timing = timing.measured().unwrap();
        assert_eq!(call("rt_sigreturn").time.as_ref().unwrap().timed, 1);
        assert_eq!(timing.timed, 5);
        assert_eq!(timing.exits_unentered, 1);
        assert_eq!(timing.unfinished, 1);
        assert_eq!(timing.unpaired, 1, "pid 50's read, followed by its getppid");
        assert!((timing.total_s - (1e-3 + 500e-9)).abs() < 1e-12);
    }

    /// Beside a workload of its own, only the observer's threads are left out: the
    /// process's other threads and its children are the workload, but for a child that is
    /// the observer's (perf record), cut from the tree with its own children.
    #[test]
    fn beside_a_workload_only_the_observing_threads_are_left_out() {
        let call = |pid: u32, tid: u32| enter(pid, tid, libc::SYS_getppid);
        let fork = |pid, ppid| Event::Fork { pid, ppid };
        let mine = Mine {
            pid: 10,
            threads: Some(vec![11]),
        };
        let mut t = Tally::default();
        t.take(0, fork(20, 10), &mine);
        t.take(0, fork(30, 10), &mine);
        t.take(0, fork(31, 30), &mine);
        assert_eq!(t.take(0, call(10, 11), &mine), 0);
        for (pid, tid) in [(10, 10), (10, 12), (20, 20), (30, 30), (31, 31)] {
            assert_eq!(t.take(0, call(pid, tid), &mine), 1);
        }
        let mix = summarise(&t, 1.0, Some((10, "run".into())), &[30]);
        assert_eq!(mix.total, 5, "all but the observing thread's");
        let tree = mix.command_tree.unwrap();
        assert_eq!(
            tree.total, 3,
            "the run's two threads and its child, not perf's tree"
        );
    }
}
