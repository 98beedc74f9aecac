//! The whole machine's system calls by name, command and process tree, for `timeshare
//! observe` (001 §2.1's "system calls per second", and what they were).
//!
//! # Counting model
//! One sampling event per CPU on the kernel's `raw_syscalls:sys_enter` tracepoint, with a
//! period of 1: every call on the machine writes one record (the caller's pid and the
//! call's number) into that CPU's ring buffer, which a thread of ours empties every 10 ms
//! and counts. The kernel's fork and comm records come through the same buffers, so a
//! process's command name and its parent are known even when it lived for a millisecond.
//! The call's number is named by the x86-64 table of the `syscalls` crate. A call the
//! buffer had no room for is counted as lost (the kernel says how many), never guessed.
//! The observer's own calls are left out of every count: the whole process's when it
//! observes the machine (`observe --for`, `observe -- COMMAND`), only its observing
//! threads' when it observes beside a workload of its own (`run --observe-system`), whose
//! calls are the point.
//!
//! The tracepoint costs each call made on the machine a record's write (a few hundred
//! nanoseconds), charged to the caller: docs/observe.md measures it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use perf_event::events::Tracepoint;
use perf_event::{Builder, SampleFlag, Sampler};

use super::perf::{explain, SyscallTracepoints};
use crate::model::observation::{CallCount, CallMix, CommandCalls};

/// Ring buffer per CPU: 8 MiB holds about 250,000 calls, 2.5 s of a busy machine between
/// two 10 ms reads.
const BUFFER_BYTES: usize = 8 << 20;
/// Calls named per command in the by-command table.
const TOP_PER_COMMAND: usize = 5;

const RECORD_LOST: u32 = 2;
const RECORD_COMM: u32 = 3;
const RECORD_FORK: u32 = 7;
const RECORD_SAMPLE: u32 = 9;

/// What the reader thread has counted so far.
#[derive(Default)]
struct Tally {
    /// (pid, command index, call number) → calls.
    counts: HashMap<(u32, u32, u32), u64>,
    commands: Vec<String>,
    command_of: HashMap<u32, u32>,
    parent_of: HashMap<u32, u32>,
    lost: u64,
}

impl Tally {
    fn command_index(&mut self, name: String) -> u32 {
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

/// Counting every call on the machine; [`CallCounting::stop`] ends it.
pub struct CallCounting {
    stop: Arc<AtomicBool>,
    total: Arc<AtomicU64>,
    thread: Option<JoinHandle<Result<Tally>>>,
    started: std::time::Instant,
}

impl CallCounting {
    /// Open the tracepoint on every CPU and start the reader; as root the tracefs is
    /// mounted if it is not. Fails with the exact privilege or setting it needs.
    pub fn start(
        is_root: bool,
        leave_out: LeaveOut,
        notes: &mut Vec<String>,
    ) -> std::result::Result<Self, String> {
        let tp = SyscallTracepoints::find(is_root, notes)?;
        let offset = id_offset();
        let cpus = online_cpus();
        let mut samplers = Vec::new();
        for cpu in &cpus {
            let sampler = Builder::new(Tracepoint::with_id(tp.all))
                .any_pid()
                .one_cpu(*cpu)
                // A tracepoint fires in the kernel, which the builder leaves out by default.
                .exclude_kernel(false)
                .sample_period(1)
                .sample(SampleFlag::TID | SampleFlag::RAW)
                .task(true)
                .comm(true)
                .enabled(false)
                .build()
                .and_then(|c| c.sampled(BUFFER_BYTES))
                .map_err(|e| {
                    format!(
                        "counting every call on the machine (raw_syscalls:sys_enter on each \
                         CPU): {}",
                        explain(&e, false)
                    )
                })?;
            samplers.push(sampler);
        }
        for s in &mut samplers {
            s.enable()
                .map_err(|e| format!("enabling the tracepoint: {e}"))?;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let total = Arc::new(AtomicU64::new(0));
        let (stop2, total2) = (Arc::clone(&stop), Arc::clone(&total));
        let thread = std::thread::Builder::new()
            .name("timeshare-observe-calls".into())
            .spawn(move || read_loop(samplers, offset, leave_out, &stop2, &total2))
            .map_err(|e| format!("starting the reader: {e}"))?;
        Ok(CallCounting {
            stop,
            total,
            thread: Some(thread),
            started: std::time::Instant::now(),
        })
    }

    /// The running total of calls counted (for the series' `syscalls` column).
    pub fn total(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.total)
    }

    /// Stop counting and return the mix; `tree_root` is the observed command's pid, whose
    /// tree is counted apart, but for the processes in `not_in_tree` (the observer's own
    /// children, such as `perf record`, when the root is this process).
    pub fn stop(
        mut self,
        tree_root: Option<(u32, String)>,
        not_in_tree: &[u32],
    ) -> Result<CallMix> {
        let secs = self.started.elapsed().as_secs_f64().max(1e-6);
        self.stop.store(true, Ordering::Relaxed);
        let tally = self
            .thread
            .take()
            .ok_or_else(|| anyhow!("stopped twice"))?
            .join()
            .map_err(|_| anyhow!("the call counter's thread panicked"))??;
        Ok(summarise(&tally, secs, tree_root, not_in_tree))
    }
}

impl Drop for CallCounting {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Empty every CPU's buffer until told to stop, then once more.
fn read_loop(
    mut samplers: Vec<Sampler>,
    offset: usize,
    leave_out: LeaveOut,
    stop: &AtomicBool,
    total: &AtomicU64,
) -> Result<Tally> {
    super::register_observer_thread();
    let mut tally = Tally::default();
    let me = std::process::id();
    loop {
        let mine = Mine {
            pid: me,
            threads: match leave_out {
                LeaveOut::ThisProcess => None,
                LeaveOut::ObserverThreads => Some(super::observer_threads()),
            },
        };
        let stopping = stop.load(Ordering::Relaxed);
        if stopping {
            for s in &mut samplers {
                s.disable().context("disabling the tracepoint")?;
            }
        }
        let mut seen = 0u64;
        for s in &mut samplers {
            while let Some(record) = s.next_record() {
                let bytes = record.to_contiguous();
                seen += take_record(&mut tally, record.ty(), &bytes, offset, &mine);
            }
        }
        total.fetch_add(seen, Ordering::Relaxed);
        if stopping {
            return Ok(tally);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_ne_bytes(b.get(at..at + 8)?.try_into().ok()?))
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

/// Count one record (its bytes after the header); returns the calls it added.
fn take_record(t: &mut Tally, ty: u32, b: &[u8], offset: usize, mine: &Mine) -> u64 {
    match ty {
        RECORD_SAMPLE => {
            // u32 pid, u32 tid, u32 raw size, raw: the tracepoint's fields.
            let (Some(pid), Some(tid), Some(id)) =
                (u32_at(b, 0), u32_at(b, 4), u64_at(b, 12 + offset))
            else {
                return 0;
            };
            if mine.made(pid, tid) {
                return 0;
            }
            let cmd = t.command_of(pid);
            *t.counts.entry((pid, cmd, id as u32)).or_default() += 1;
            1
        }
        RECORD_FORK => {
            // u32 pid, ppid, tid, ptid.
            if let (Some(pid), Some(ppid)) = (u32_at(b, 0), u32_at(b, 4)) {
                if pid != ppid {
                    t.parent_of.insert(pid, ppid);
                    if let Some(&c) = t.command_of.get(&ppid) {
                        t.command_of.insert(pid, c);
                    }
                }
            }
            0
        }
        RECORD_COMM => {
            // u32 pid, tid, then the NUL-terminated name.
            if let (Some(pid), Some(tid)) = (u32_at(b, 0), u32_at(b, 4)) {
                if pid == tid {
                    let name = b[8..].split(|&c| c == 0).next().unwrap_or(&[]);
                    let i = t.command_index(String::from_utf8_lossy(name).into_owned());
                    t.command_of.insert(pid, i);
                }
            }
            0
        }
        RECORD_LOST => {
            t.lost += u64_at(b, 8).unwrap_or(0);
            0
        }
        _ => 0,
    }
}

/// The name of call number `id` on this architecture.
pub fn call_name(id: u32) -> String {
    syscalls::Sysno::new(id as usize)
        .map(|s| s.name().to_string())
        .unwrap_or_else(|| format!("syscall_{id}"))
}

fn sorted_counts(by_id: &BTreeMap<u32, u64>, secs: f64) -> Vec<CallCount> {
    let mut calls: Vec<CallCount> = by_id
        .iter()
        .map(|(id, &count)| CallCount {
            name: call_name(*id),
            count,
            per_s: count as f64 / secs,
        })
        .collect();
    calls.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
    calls
}

/// The mix over `secs` seconds: by call, by command, and the observed tree apart.
fn summarise(
    t: &Tally,
    secs: f64,
    tree_root: Option<(u32, String)>,
    not_in_tree: &[u32],
) -> CallMix {
    let mut by_id: BTreeMap<u32, u64> = BTreeMap::new();
    let mut by_cmd: BTreeMap<u32, BTreeMap<u32, u64>> = BTreeMap::new();
    let tree: HashSet<u32> = match &tree_root {
        Some((root, _)) => descendants(*root, &t.parent_of, not_in_tree),
        None => HashSet::new(),
    };
    let mut in_tree: BTreeMap<u32, u64> = BTreeMap::new();
    for (&(pid, cmd, id), &n) in &t.counts {
        *by_id.entry(id).or_default() += n;
        *by_cmd.entry(cmd).or_default().entry(id).or_default() += n;
        if tree.contains(&pid) {
            *in_tree.entry(id).or_default() += n;
        }
    }
    let total: u64 = by_id.values().sum();
    let mut by_command: Vec<CommandCalls> = by_cmd
        .iter()
        .map(|(cmd, ids)| {
            let mut calls = sorted_counts(ids, secs);
            calls.truncate(TOP_PER_COMMAND);
            CommandCalls {
                command: t.commands[*cmd as usize].clone(),
                total: ids.values().sum(),
                calls,
            }
        })
        .collect();
    // Several processes may share a name: one line per name.
    by_command.sort_by(|a, b| a.command.cmp(&b.command));
    by_command.dedup_by(|later, first| {
        if later.command == first.command {
            first.total += later.total;
            for c in &later.calls {
                match first.calls.iter_mut().find(|f| f.name == c.name) {
                    Some(f) => {
                        f.count += c.count;
                        f.per_s += c.per_s;
                    }
                    None => first.calls.push(c.clone()),
                }
            }
            first
                .calls
                .sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
            first.calls.truncate(TOP_PER_COMMAND);
            true
        } else {
            false
        }
    });
    by_command.sort_by(|a, b| b.total.cmp(&a.total).then(a.command.cmp(&b.command)));
    CallMix {
        method: "every call's entry (raw_syscalls:sys_enter, one sampling event per CPU with \
                 period 1), named by the x86-64 call table; the observer's own calls left out"
            .into(),
        total,
        per_s: total as f64 / secs,
        lost: t.lost,
        calls: sorted_counts(&by_id, secs),
        by_command,
        command_tree: tree_root.map(|(_, name)| CommandCalls {
            command: name,
            total: in_tree.values().sum(),
            calls: sorted_counts(&in_tree, secs),
        }),
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

/// Where `raw_syscalls:sys_enter` keeps the call's number (`long id`), from its format
/// file; 8 (after the common fields) where it cannot be read.
fn id_offset() -> usize {
    [
        "/sys/kernel/tracing/events/raw_syscalls/sys_enter/format",
        "/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/format",
    ]
    .iter()
    .find_map(|p| std::fs::read_to_string(p).ok())
    .and_then(|f| field_offset(&f, "id"))
    .unwrap_or(8)
}

/// `\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;` → 8.
fn field_offset(format: &str, name: &str) -> Option<usize> {
    format.lines().find_map(|l| {
        let decl = l.trim().strip_prefix("field:")?.split(';').next()?;
        (decl.split_whitespace().last()? == name).then_some(())?;
        l.split(';')
            .find_map(|p| p.trim().strip_prefix("offset:"))?
            .parse()
            .ok()
    })
}

/// The CPUs online.
fn online_cpus() -> Vec<usize> {
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    let text = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap_or_default();
    let mut cpus = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<usize>(), b.parse::<usize>()) {
                    cpus.extend(a..=b);
                }
            }
            None => cpus.extend(part.parse::<usize>().ok()),
        }
    }
    if cpus.is_empty() {
        cpus = (0..n).collect();
    }
    cpus
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A child making exactly `n` getppid and `m` read calls, observed with the rest of
    /// the machine: its tree's counts are within 1 % of the truth (they are exact unless
    /// the kernel's buffer overflowed, which it says).
    #[test]
    fn a_known_workload_is_counted_apart_from_the_rest_of_the_machine() {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let mut notes = Vec::new();
        let counting = match CallCounting::start(root, LeaveOut::ThisProcess, &mut notes) {
            Ok(c) => c,
            Err(why) => {
                eprintln!("skipped: {why}");
                assert!(!root, "root can count every call: {why}");
                return;
            }
        };
        let (n, m) = (20_000u64, 12_345u64);
        // SAFETY: the child makes only async-signal-safe calls and ends with _exit.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let mut byte = [0u8; 1];
            // SAFETY: /dev/zero is opened, read into our buffer and the child exits.
            unsafe {
                let fd = libc::open(c"/dev/zero".as_ptr(), libc::O_RDONLY);
                for _ in 0..n {
                    libc::syscall(libc::SYS_getppid);
                }
                for _ in 0..m {
                    libc::read(fd, byte.as_mut_ptr().cast(), 1);
                }
                libc::_exit(0);
            }
        }
        let mut status = 0;
        // SAFETY: waits for our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        let mix = counting
            .stop(Some((pid as u32, "child".into())), &[])
            .unwrap();
        let tree = mix.command_tree.as_ref().unwrap();
        let within = |got: u64, want: u64| (got as f64 - want as f64).abs() <= 0.01 * want as f64;
        assert!(
            within(tree.count("getppid"), n),
            "{tree:?} lost {}",
            mix.lost
        );
        assert!(within(tree.count("read"), m), "{tree:?} lost {}", mix.lost);
        assert!(
            mix.total >= tree.total,
            "the machine's total holds the child's"
        );
        assert!(mix.by_command.iter().any(|c| c.count("getppid") >= n));
    }

    /// A sample record's bytes after its header: pid, tid, the raw size, then
    /// raw_syscalls:sys_enter's fields with the call's number at offset 8.
    fn sample_record(pid: u32, tid: u32, id: u64) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend(pid.to_ne_bytes());
        b.extend(tid.to_ne_bytes());
        b.extend(16u32.to_ne_bytes());
        b.extend([0u8; 8]);
        b.extend(id.to_ne_bytes());
        b
    }

    /// A fork record's bytes after its header: pid, ppid, tid, ptid, time.
    fn fork_record(pid: u32, ppid: u32) -> Vec<u8> {
        let mut b = Vec::new();
        for v in [pid, ppid, pid, ppid] {
            b.extend(v.to_ne_bytes());
        }
        b.extend(0u64.to_ne_bytes());
        b
    }

    #[test]
    fn the_call_number_is_found_in_the_format_file() {
        let f = "name: sys_enter\nID: 22\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n";
        assert_eq!(field_offset(f, "id"), Some(8));
        assert_eq!(field_offset(f, "nope"), None);
        assert_eq!(call_name(libc::SYS_getppid as u32), "getppid");
        assert_eq!(call_name(99_999), "syscall_99999");
    }

    #[test]
    fn records_are_counted_by_process_command_and_tree() {
        let mut t = Tally::default();
        let sample = |pid: u32, id: u64| sample_record(pid, pid, id);
        let comm = |pid: u32, name: &str| {
            let mut b = Vec::new();
            b.extend(pid.to_ne_bytes());
            b.extend(pid.to_ne_bytes());
            b.extend(name.as_bytes());
            b.extend([0u8; 4]);
            b
        };
        let fork = fork_record;
        let mine = Mine {
            pid: 1,
            threads: None,
        };
        take_record(&mut t, RECORD_COMM, &comm(100, "make"), 8, &mine);
        take_record(&mut t, RECORD_FORK, &fork(101, 100), 8, &mine);
        take_record(&mut t, RECORD_COMM, &comm(101, "cc"), 8, &mine);
        take_record(&mut t, RECORD_FORK, &fork(102, 101), 8, &mine);
        take_record(&mut t, RECORD_COMM, &comm(200, "other"), 8, &mine);
        let getppid = libc::SYS_getppid as u64;
        let read = libc::SYS_read as u64;
        for _ in 0..3 {
            assert_eq!(
                take_record(&mut t, RECORD_SAMPLE, &sample(102, getppid), 8, &mine),
                1
            );
        }
        take_record(&mut t, RECORD_SAMPLE, &sample(100, read), 8, &mine);
        take_record(&mut t, RECORD_SAMPLE, &sample(200, read), 8, &mine);
        assert_eq!(
            take_record(&mut t, RECORD_SAMPLE, &sample(1, read), 8, &mine),
            0,
            "ours"
        );
        let mut lost = 7u64.to_ne_bytes().to_vec();
        lost.extend(5u64.to_ne_bytes());
        take_record(&mut t, RECORD_LOST, &lost, 8, &mine);
        let mix = summarise(&t, 2.0, Some((100, "make".into())), &[]);
        assert_eq!(mix.total, 5);
        assert_eq!(mix.lost, 5);
        assert_eq!(mix.count("getppid"), 3);
        assert_eq!(mix.calls[0].per_s, 1.5);
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

    /// Beside a workload of its own, only the observer's threads are left out: the
    /// process's other threads and its children are the workload, but for a child that is
    /// the observer's (perf record), cut from the tree with its own children.
    #[test]
    fn beside_a_workload_only_the_observing_threads_are_left_out() {
        let sample = |pid: u32, tid: u32| sample_record(pid, tid, libc::SYS_getppid as u64);
        let fork = fork_record;
        let mine = Mine {
            pid: 10,
            threads: Some(vec![11]),
        };
        let mut t = Tally::default();
        take_record(&mut t, RECORD_FORK, &fork(20, 10), 8, &mine);
        take_record(&mut t, RECORD_FORK, &fork(30, 10), 8, &mine);
        take_record(&mut t, RECORD_FORK, &fork(31, 30), 8, &mine);
        assert_eq!(
            take_record(&mut t, RECORD_SAMPLE, &sample(10, 11), 8, &mine),
            0
        );
        for (pid, tid) in [(10, 10), (10, 12), (20, 20), (30, 30), (31, 31)] {
            assert_eq!(
                take_record(&mut t, RECORD_SAMPLE, &sample(pid, tid), 8, &mine),
                1
            );
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
