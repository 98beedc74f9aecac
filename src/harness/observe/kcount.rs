//! The call mix counted in the kernel: the BPF programs of `bpf/callmix.bpf.c` on the
//! `raw_syscalls` tracepoints tally every call in maps, and this side reads the maps —
//! a running total each tenth of a second, the whole tally at the end — so that no record
//! per call crosses to user space (the perf path, [`super::callmix`], writes two per
//! call).
//!
//! # Counting model
//! At a call's entry the program keys it by process (tgid), call number and command
//! (the thread's comm at that moment). Timed, the entry waits on its CPU for its exit
//! (moved to a map by thread when the thread is switched out inside the call, so that a
//! call that sleeps or is preempted is found on whatever CPU it returns), where it is
//! counted with its time (`bpf_ktime_get_ns`, CLOCK_MONOTONIC:
//! wall time in the kernel, sleep included, as on the perf path) and its log2 slot of
//! nanoseconds is added to the call's histogram; a call still in the kernel at the end
//! is counted as unfinished, and `exit`/`exit_group` are counted at their entry. Untimed,
//! every call is counted at its entry. Counts gather per CPU in a run of one key (the
//! same process making the same call, as a loop does) and go to the shared map when the
//! key changes, so that the common call touches no shared map and takes no lock. A fork
//! records the child's parent, for the
//! observed command's tree. What a full map could not keep is counted, never guessed.
//! The observer's own calls are left out in the kernel: the whole process's, or only its
//! observing threads' (refreshed each tenth of a second).
//!
//! Loading needs CAP_BPF and CAP_PERFMON (root) and a kernel with BPF raw tracepoints;
//! where either is missing [`KernelCounting::start`] says why and the perf path is used.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use super::tally::{CallTimes, InCall, LeaveOut, Processes, Tallied, Tally};

/// The object clang built from `bpf/callmix.bpf.c`, when it did (build.rs).
#[cfg(timeshare_bpf)]
const OBJECT: Option<&[u8]> = Some(aya::include_bytes_aligned!(concat!(
    env!("OUT_DIR"),
    "/callmix.bpf.o"
)));
#[cfg(not(timeshare_bpf))]
const OBJECT: Option<&[u8]> = None;

/// How often the running total and the observer's threads are refreshed.
const TICK: Duration = Duration::from_millis(100);
const COMM_LEN: usize = 16;
/// Log2 slots of nanoseconds per call (as `SLOTS` in the program).
pub const SLOTS: usize = 48;
/// Call numbers with a histogram (as `MAX_CALL` in the program).
const MAX_CALL: u32 = 512;

/// The program's `struct key`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Key {
    tgid: u32,
    nr: u32,
    comm: [u8; COMM_LEN],
}

/// The program's `struct tally`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct KTally {
    count: u64,
    timed: u64,
    ns: u64,
}

/// The program's `struct pending`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct Pending {
    since: u64,
    key: Key,
}

/// The program's `struct hist`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct Hist {
    slot: [u64; SLOTS],
    entries: u64,
}

/// The program's `struct cpu`: one CPU's call in progress and its run of calls not yet
/// added to the shared tally.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct Cpu {
    tid: u32,
    in_call: u32,
    since: u64,
    key: Key,
    run_key: Key,
    run: KTally,
    calls: u64,
}

/// The program's `struct config`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct Config {
    skip_tgid: u32,
    only_threads: u32,
    timed: u32,
    fork_child_at: u32,
    empty: u32,
    sample_mask: u32,
    per_process: u32,
}

// SAFETY: plain C structs of integers, laid out as the program's (repr(C)), with no
// padding the kernel could leave uninitialised that Rust would read as a value.
unsafe impl aya::Pod for Key {}
// SAFETY: as above.
unsafe impl aya::Pod for KTally {}
// SAFETY: as above.
unsafe impl aya::Pod for Pending {}
// SAFETY: as above.
unsafe impl aya::Pod for Hist {}
// SAFETY: as above.
unsafe impl aya::Pod for Config {}
// SAFETY: as above.
unsafe impl aya::Pod for Cpu {}

/// The program's `enum in_call`: the CPU's thread is in a call that waits for its exit
/// to be timed (a call only counted, the other state, was tallied at its entry).
const IN_TIMED: u32 = 1;

/// The program's `enum stat`.
const STAT_TALLY_FULL: u32 = 0;
const STAT_PENDING_FULL: u32 = 1;
const STAT_UNENTERED: u32 = 2;
const STAT_UNPAIRED: u32 = 3;

/// The object named by `TIMESHARE_BPF_OBJECT`, if set: a variant of the counter built
/// from `bpf/callmix.bpf.c` (same maps, same layout) loaded in place of the built one, so
/// that what each piece of the programs costs a call can be measured without rebuilding
/// timeshare (docs/observe.md, "What the counting costs").
fn variant_object() -> Result<Option<Vec<u8>>, String> {
    let Some(path) = std::env::var_os("TIMESHARE_BPF_OBJECT") else {
        return Ok(None);
    };
    std::fs::read(&path).map(Some).map_err(|e| {
        format!(
            "reading TIMESHARE_BPF_OBJECT {}: {e}",
            path.to_string_lossy()
        )
    })
}

/// Whether this build carries the BPF counter (clang was there when it was built).
pub fn built() -> bool {
    OBJECT.is_some()
}

/// Counting every call in the kernel; `KernelCounting::stop` ends it.
pub struct KernelCounting {
    stop: Arc<AtomicBool>,
    /// The programs and their maps, shared with the reader (which refreshes the running
    /// total) and read mid-way by [`KernelCounting::so_far`].
    bpf: Arc<Mutex<aya::Ebpf>>,
    reader: Option<JoinHandle<()>>,
    timed: bool,
}

/// What the maps held at the end, as the perf path's tally, and each call's histogram.
pub(super) struct KernelTally {
    pub(super) tally: Tally,
    /// Call number → calls per log2 slot of nanoseconds.
    pub(super) histograms: HashMap<u32, [u64; SLOTS]>,
}

impl KernelCounting {
    /// Load and attach the programs; `total` is kept at the calls counted so far. Fails
    /// with the reason (not built, not allowed, not supported) for the caller to say.
    pub fn start(
        leave_out: LeaveOut,
        timing: CallTimes,
        processes: Processes,
        total: Arc<AtomicU64>,
    ) -> Result<KernelCounting, String> {
        let timed = timing != CallTimes::Off;
        let built = OBJECT.ok_or(
            "this timeshare was built without clang, so without its BPF call counter \
             (build.rs)",
        )?;
        let variant = variant_object()?;
        let object = variant.as_deref().unwrap_or(built);
        let config = Config {
            skip_tgid: std::process::id(),
            only_threads: u32::from(leave_out == LeaveOut::ObserverThreads),
            timed: u32::from(timed),
            fork_child_at: super::stream::field_of("sched/sched_process_fork", "child_pid")
                .unwrap_or(20) as u32,
            empty: u32::from(std::env::var_os("TIMESHARE_BPF_EMPTY").is_some()),
            sample_mask: timing.one_in().saturating_sub(1),
            per_process: u32::from(processes == Processes::Apart),
        };
        // A constant of the programs, not a map: read for nothing on every call. No
        // relocation against the kernel's types is needed: not parsing its BTF (megabytes)
        // keeps the observer's memory down.
        let mut bpf = aya::EbpfLoader::new()
            .btf(None)
            .set_global("cfg", &config, true)
            .load(object)
            .map_err(|e| format!("loading the BPF maps: {e}"))?;
        refresh_observer_threads(&mut bpf, leave_out);
        attach(&mut bpf, timed).map_err(|e| {
            format!(
                "attaching the BPF counter: {}",
                super::bpfobj::verdict_of(&e)
            )
        })?;
        let stop = Arc::new(AtomicBool::new(false));
        let bpf = Arc::new(Mutex::new(bpf));
        let reader = {
            let (stop, bpf) = (Arc::clone(&stop), Arc::clone(&bpf));
            std::thread::Builder::new()
                .name("timeshare-observe-kcalls".into())
                .spawn(move || {
                    let _me = super::ObserverThread::register();
                    while !stop.load(Ordering::Relaxed) {
                        {
                            let mut bpf = locked(&bpf);
                            refresh_observer_threads(&mut bpf, leave_out);
                            total.store(calls_counted(&bpf), Ordering::Relaxed);
                        }
                        std::thread::sleep(TICK);
                    }
                    total.store(calls_counted(&locked(&bpf)), Ordering::Relaxed);
                })
                .map_err(|e| format!("starting the reader of the BPF counter: {e}"))?
        };
        Ok(KernelCounting {
            stop,
            bpf,
            reader: Some(reader),
            timed,
        })
    }

    /// What the maps hold so far, the programs still counting: for an observation kept
    /// as it goes, so that a killed observer keeps its call mix up to the last keeping.
    pub(super) fn so_far(&self) -> anyhow::Result<KernelTally> {
        read_tally(&locked(&self.bpf), self.timed)
    }

    /// Detach the programs and read what they tallied.
    pub(super) fn stop(mut self) -> anyhow::Result<KernelTally> {
        self.stop.store(true, Ordering::Relaxed);
        self.reader
            .take()
            .expect("stopped once")
            .join()
            .map_err(|_| anyhow::anyhow!("the BPF counter's reader panicked"))?;
        let mut bpf = locked(&self.bpf);
        detach(&mut bpf);
        read_tally(&bpf, self.timed)
    }
}

impl Drop for KernelCounting {
    fn drop(&mut self) {
        // Dropping the Ebpf (with the last of its two holders) detaches the programs and
        // frees the maps.
        self.stop.store(true, Ordering::Relaxed);
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }
}

/// The programs, whoever held them last having panicked or not (the maps stay readable).
fn locked(bpf: &Mutex<aya::Ebpf>) -> MutexGuard<'_, aya::Ebpf> {
    bpf.lock().unwrap_or_else(|p| p.into_inner())
}

fn attach(bpf: &mut aya::Ebpf, timed: bool) -> anyhow::Result<()> {
    let mut calls = vec![("timeshare_sys_enter", "sys_enter")];
    if timed {
        // The switch program before the exit's: an entry must never be left on a CPU its
        // thread has left.
        calls.insert(0, ("timeshare_switch", "sched_switch"));
        calls.push(("timeshare_sys_exit", "sys_exit"));
    }
    // The fork program first: a child forked between the call programs' attaching and
    // its own would be outside the tree.
    let fork: &mut aya::programs::TracePoint =
        super::bpfobj::program(bpf, "timeshare_fork")?.try_into()?;
    fork.load()?;
    fork.attach("sched", "sched_process_fork")?;
    for (name, tracepoint) in calls {
        let p: &mut aya::programs::RawTracePoint = super::bpfobj::program(bpf, name)?.try_into()?;
        p.load()?;
        p.attach(tracepoint)?;
    }
    Ok(())
}

/// Detach the call programs before the maps are read, so that the tally is of one span.
fn detach(bpf: &mut aya::Ebpf) {
    for name in [
        "timeshare_sys_enter",
        "timeshare_sys_exit",
        "timeshare_switch",
    ] {
        let p: Option<&mut aya::programs::RawTracePoint> =
            bpf.program_mut(name).and_then(|p| p.try_into().ok());
        if let Some(p) = p {
            let _ = p.unload();
        }
    }
    let fork: Option<&mut aya::programs::TracePoint> = bpf
        .program_mut("timeshare_fork")
        .and_then(|p| p.try_into().ok());
    if let Some(p) = fork {
        let _ = p.unload();
    }
}

/// Tell the program which threads are the observer's ([`LeaveOut::ObserverThreads`]).
fn refresh_observer_threads(bpf: &mut aya::Ebpf, leave_out: LeaveOut) {
    if leave_out != LeaveOut::ObserverThreads {
        return;
    }
    let Some(map) = bpf.map_mut("skip_tids") else {
        return;
    };
    let Ok(mut skip) = aya::maps::HashMap::<_, u32, u8>::try_from(map) else {
        return;
    };
    for tid in super::observer_threads() {
        let _ = skip.insert(tid, 1, 0);
    }
}

/// One of the program's counters, summed over the CPUs.
fn stat(bpf: &aya::Ebpf, which: u32) -> u64 {
    bpf.map("stats")
        .and_then(|m| aya::maps::PerCpuArray::<_, u64>::try_from(m).ok())
        .and_then(|a| a.get(&which, 0).ok())
        .map_or(0, |v| v.iter().sum())
}

/// The calls counted so far (entries), summed over the CPUs.
fn calls_counted(bpf: &aya::Ebpf) -> u64 {
    per_cpu_states(bpf).iter().map(|c| c.calls).sum()
}

fn per_cpu_states(bpf: &aya::Ebpf) -> Vec<Cpu> {
    bpf.map("cpus")
        .and_then(|m| aya::maps::PerCpuArray::<_, Cpu>::try_from(m).ok())
        .and_then(|a| a.get(&0, 0).ok())
        .map_or_else(Vec::new, |v| v.iter().copied().collect())
}

/// A kernel `comm` (NUL-padded) as text.
pub(super) fn comm_name(comm: &[u8; COMM_LEN]) -> String {
    let end = comm.iter().position(|&c| c == 0).unwrap_or(COMM_LEN);
    String::from_utf8_lossy(&comm[..end]).into_owned()
}

/// The maps, as the perf path's [`Tally`].
fn read_tally(bpf: &aya::Ebpf, timed: bool) -> anyhow::Result<KernelTally> {
    let mut tally = Tally {
        timing: timed,
        ..Tally::default()
    };
    let map = |name: &str| {
        bpf.map(name)
            .ok_or_else(|| anyhow::anyhow!("no {name} map in the BPF object"))
    };
    let tallies = aya::maps::HashMap::<_, Key, KTally>::try_from(map("tallies")?)?;
    let cpus = per_cpu_states(bpf);
    // Each CPU's last run, not yet in the shared map, is added here.
    let runs = cpus.iter().map(|c| Ok((c.run_key, c.run)));
    for entry in tallies
        .iter()
        .map(|e| e.map_err(anyhow::Error::from))
        .chain(runs)
    {
        let (k, t) = entry?;
        if t.count == 0 {
            continue;
        }
        let cmd = tally.command_index(comm_name(&k.comm));
        let into = tally.counts.entry((k.tgid, cmd, k.nr)).or_default();
        *into = Tallied {
            count: into.count + t.count,
            timed: into.timed + t.timed,
            ns: into.ns + t.ns,
            unfinished: into.unfinished,
        };
    }
    // Calls still in the kernel: counted (their entry was seen), unfinished.
    let pending = aya::maps::HashMap::<_, u32, Pending>::try_from(map("pending")?)?;
    let on_cpus = cpus.iter().filter(|c| c.in_call != 0).map(|c| {
        Ok((
            c.tid,
            Pending {
                since: if c.in_call == IN_TIMED { c.since } else { 0 },
                key: c.key,
            },
        ))
    });
    for entry in pending
        .iter()
        .map(|e| e.map_err(anyhow::Error::from))
        .chain(on_cpus)
    {
        let (tid, p) = entry?;
        let cmd = tally.command_index(comm_name(&p.key.comm));
        let key = (p.key.tgid, cmd, p.key.nr);
        // A timed call is counted at its exit; one not timed (a time of 0) was counted at
        // its entry already.
        if p.since != 0 {
            tally.counts.entry(key).or_default().count += 1;
        }
        tally.in_call.insert(
            tid,
            InCall {
                id: p.key.nr,
                since: p.since,
                key,
            },
        );
    }
    let parents = aya::maps::HashMap::<_, u32, u32>::try_from(map("parents")?)?;
    for entry in parents.iter() {
        let (child, parent) = entry?;
        if child != parent {
            tally.parent_of.insert(child, parent);
        }
    }
    tally.lost = stat(bpf, STAT_TALLY_FULL);
    tally.exits_unentered = stat(bpf, STAT_UNENTERED);
    tally.unpaired = stat(bpf, STAT_UNPAIRED);
    let untimed_full = stat(bpf, STAT_PENDING_FULL);
    if untimed_full > 0 {
        tally.unpaired += untimed_full;
    }
    let hists = aya::maps::PerCpuArray::<_, Hist>::try_from(map("hists")?)?;
    let mut histograms = HashMap::new();
    if timed {
        for nr in 0..MAX_CALL {
            let per_cpu = hists.get(&nr, 0)?;
            let mut sum = [0u64; SLOTS];
            for h in per_cpu.iter() {
                for (s, n) in sum.iter_mut().zip(h.slot) {
                    *s += n;
                }
            }
            if sum.iter().any(|&n| n > 0) {
                histograms.insert(nr, sum);
            }
        }
    }
    Ok(KernelTally { tally, histograms })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over the whole machine, calls are kept by command alone: 3,000 short-lived
    /// processes leave one key a call per command (kept apart, each would have keys of
    /// its own, and a day of them fills the map), every call counted and none lost.
    #[test]
    fn a_span_of_short_lived_processes_is_kept_by_command_alone() {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let total = Arc::new(AtomicU64::new(0));
        let counting = match KernelCounting::start(
            LeaveOut::ThisProcess,
            CallTimes::OneIn(16),
            Processes::Together,
            total,
        ) {
            Ok(c) => c,
            Err(why) => {
                assert!(!root || !built(), "root can count in the kernel: {why}");
                eprintln!("skipped: {why}");
                return;
            }
        };
        const CHILDREN: u32 = 3_000;
        const CALLS: u64 = 25;
        let child = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "i=0; while [ $i -lt {CHILDREN} ]; do (exit 0); i=$((i+1)); done"
            ))
            .status()
            .unwrap();
        assert!(child.success());
        // SAFETY: fork, then only async-signal-safe calls in the child before _exit.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            for _ in 0..CALLS {
                // SAFETY: getppid cannot fail.
                unsafe { libc::getppid() };
            }
            // SAFETY: ends the forked child at once.
            unsafe { libc::_exit(0) };
        }
        // SAFETY: waits for our own child.
        unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
        let kt = counting.stop().unwrap();
        let t = &kt.tally;
        assert!(t.counts.keys().all(|k| k.0 == 0), "kept by process");
        assert!(t.parent_of.is_empty(), "forks kept: {}", t.parent_of.len());
        assert_eq!(t.lost, 0);
        let getppid = libc::SYS_getppid as u32;
        let counted: u64 = t
            .counts
            .iter()
            .filter(|(k, _)| k.2 == getppid)
            .map(|(_, n)| n.count)
            .sum();
        assert!(counted >= CALLS, "{counted} getppid calls");
        let sh_keys = t
            .counts
            .keys()
            .filter(|k| t.commands[k.1 as usize] == "sh")
            .count();
        assert!(
            sh_keys < 100,
            "{sh_keys} keys for sh's {CHILDREN} children: one a call expected"
        );
    }
}
