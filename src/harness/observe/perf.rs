//! Counting through `perf_event_open` (the `perf-event2` crate): hardware and software
//! counters (`run --counters`) and the kernel's system-call tracepoints (`run --trace`).
//!
//! # Counting model
//! The counters are opened, disabled and inherited, *before* the workload of the pass is
//! prepared, so that its partner processes and every child it forks count with it. The
//! pass then does one untimed warm-up batch, and counts exactly one batch of `ops`
//! operations between `prctl(PR_TASK_PERF_EVENTS_ENABLE)` and `…_DISABLE`, which switch
//! all of the thread's counters (and their inherited copies) with one system call each.
//! The disabling `prctl` is itself a system call seen on entry while counting is still on:
//! exactly one, subtracted. A partner blocked in a call when counting starts or ends may
//! add or lose a call at either edge; [`crate::model::observe::expectation_met`] allows
//! for it.

use std::io;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use perf_event::events::{Event, Hardware, Software, Tracepoint};
use perf_event::{Builder, Counter};

use crate::model::observe::{
    check_expectations, Counted, PerfCounters, Reading, SyscallCount, SyscallTrace,
};

/// Switch every counter this thread opened (and their inherited copies) on or off.
fn switch_all(on: bool) -> io::Result<()> {
    let op = if on {
        libc::PR_TASK_PERF_EVENTS_ENABLE
    } else {
        libc::PR_TASK_PERF_EVENTS_DISABLE
    };
    // SAFETY: prctl with a perf-events option takes no further arguments and touches no
    // memory of ours.
    let r = unsafe { libc::prctl(op, 0, 0, 0, 0) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// `kernel.perf_event_paranoid`, if readable.
pub fn paranoid() -> Option<i32> {
    std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// A counter that can be opened, and whether it counts kernel-side events.
fn open(event: impl Event, kernel: bool) -> io::Result<Counter> {
    Builder::new(event)
        .observe_self()
        .any_cpu()
        .inherit(true)
        .enabled(false)
        .exclude_kernel(!kernel)
        .exclude_hv(true)
        .build()
}

/// Why a counter could not be opened, in words a reader can act on.
pub fn explain(err: &io::Error, hardware: bool) -> String {
    let p = paranoid().map_or("unknown".to_string(), |p| p.to_string());
    match err.raw_os_error() {
        Some(libc::ENOENT) | Some(libc::EOPNOTSUPP) | Some(libc::ENODEV) if hardware => {
            if Path::new("/sys/bus/event_source/devices/cpu").exists() {
                format!("the CPU's PMU does not count this event ({err})")
            } else {
                "no hardware PMU: the kernel exposes no CPU performance counters here \
                 (usual in a virtual machine)"
                    .to_string()
            }
        }
        Some(libc::EACCES) | Some(libc::EPERM) => format!(
            "not permitted: kernel.perf_event_paranoid is {p} (≤ 1, root or CAP_PERFMON \
             lets an ordinary user count the kernel's side)"
        ),
        _ => format!("perf_event_open: {err}"),
    }
}

/// What `--counters` counts: perf's name, the event, and whether it is a hardware one.
enum Spec {
    Hw(&'static str, Hardware),
    Sw(&'static str, Software, bool),
}

fn specs() -> Vec<Spec> {
    vec![
        Spec::Hw("cycles", Hardware::CPU_CYCLES),
        Spec::Hw("instructions", Hardware::INSTRUCTIONS),
        Spec::Hw("cache-references", Hardware::CACHE_REFERENCES),
        Spec::Hw("cache-misses", Hardware::CACHE_MISSES),
        Spec::Hw("branches", Hardware::BRANCH_INSTRUCTIONS),
        Spec::Hw("branch-misses", Hardware::BRANCH_MISSES),
        // The last field: counted in the kernel only (scheduler events), so invisible when
        // only the user side may be counted.
        Spec::Sw("task-clock", Software::TASK_CLOCK, false),
        Spec::Sw("context-switches", Software::CONTEXT_SWITCHES, true),
        Spec::Sw("cpu-migrations", Software::CPU_MIGRATIONS, true),
        Spec::Sw("page-faults", Software::PAGE_FAULTS, false),
    ]
}

/// Opened counters of one pass, or each one's reason for not being there.
pub struct CounterSet {
    slots: Vec<(String, bool, std::result::Result<Counter, String>)>,
}

impl CounterSet {
    /// Open every counter, disabled and inherited. Kernel-side counting is tried first;
    /// where it is not allowed, the user side alone, and the scheduler's events (counted
    /// only in the kernel) are then unavailable with the reason.
    pub fn open() -> CounterSet {
        let mut slots = Vec::new();
        for spec in specs() {
            let (name, hardware, opened) = match spec {
                Spec::Hw(name, ev) => (name, true, open_either(ev, true, false)),
                Spec::Sw(name, ev, kernel_only) => {
                    (name, false, open_either(ev, false, kernel_only))
                }
            };
            slots.push((name.to_string(), hardware, opened));
        }
        CounterSet { slots }
    }

    /// Why the hardware counters are unavailable, when none of them opened.
    pub fn hardware_unavailable(&self) -> Option<String> {
        let hw: Vec<_> = self.slots.iter().filter(|s| s.1).collect();
        if hw.iter().all(|s| s.2.is_err()) {
            hw.first().and_then(|s| s.2.as_ref().err().cloned())
        } else {
            None
        }
    }

    /// Software counters that could not be had, with the reason (`name: reason`).
    pub fn software_unavailable(&self) -> Vec<String> {
        self.slots
            .iter()
            .filter(|s| !s.1)
            .filter_map(|s| s.2.as_ref().err().map(|e| format!("{}: {e}", s.0)))
            .collect()
    }

    /// Count `run` (which must do `ops` operations) and read every counter.
    pub fn count(&mut self, ops: u64, run: impl FnOnce() -> Result<()>) -> Result<PerfCounters> {
        counting(run)?;
        Ok(self.read(ops))
    }

    /// Read every counter after a [`counting`] pass of `ops` operations.
    pub fn read(&mut self, ops: u64) -> PerfCounters {
        let ops = ops.max(1);
        let mut counters = Vec::new();
        for (name, hardware, slot) in &mut self.slots {
            let reading = match slot {
                Err(reason) => Reading::Unavailable {
                    reason: reason.clone(),
                },
                Ok(c) => match c.read_count_and_time() {
                    Err(e) => Reading::Unavailable {
                        reason: format!("reading the counter: {e}"),
                    },
                    Ok(t) if t.time_running == 0 && t.time_enabled > 0 => Reading::Unavailable {
                        reason: "never scheduled on the PMU (too many counters at once)"
                            .to_string(),
                    },
                    Ok(t) => {
                        let running = if t.time_enabled > 0 {
                            t.time_running as f64 / t.time_enabled as f64
                        } else {
                            1.0
                        };
                        let total = (t.count as f64 / running.max(1e-9)).round() as u64;
                        let per_op = if name == "task-clock" {
                            total as f64 * 1e-9 / ops as f64
                        } else {
                            total as f64 / ops as f64
                        };
                        Reading::Counted {
                            total,
                            per_op,
                            running,
                        }
                    }
                },
            };
            counters.push(Counted {
                name: name.clone(),
                hardware: *hardware,
                reading,
            });
        }
        PerfCounters { ops, counters }
    }
}

/// Run `run` with every counter this thread opened switched on, and only it.
pub fn counting(run: impl FnOnce() -> Result<()>) -> Result<()> {
    switch_all(true).context("enabling the counters")?;
    let outcome = run();
    switch_all(false).context("disabling the counters")?;
    outcome
}

/// Open with the kernel side counted if allowed, else the user side alone; a counter seen
/// only in the kernel is then unavailable.
fn open_either<E: Event + Copy>(
    ev: E,
    hardware: bool,
    kernel_only: bool,
) -> std::result::Result<Counter, String> {
    match open(ev, true) {
        Ok(c) => Ok(c),
        Err(e) if matches!(e.raw_os_error(), Some(libc::EACCES) | Some(libc::EPERM)) => {
            if kernel_only {
                return Err(format!(
                    "counted only inside the kernel, which kernel.perf_event_paranoid = {} \
                     hides from an ordinary user (≤ 1, root or CAP_PERFMON shows it)",
                    paranoid().map_or("?".into(), |p| p.to_string())
                ));
            }
            open(ev, false).map_err(|e| explain(&e, hardware))
        }
        Err(e) => Err(explain(&e, hardware)),
    }
}

/// The kernel's per-call entry tracepoints (`syscalls:sys_enter_NAME`) and the one for
/// every call (`raw_syscalls:sys_enter`), by their tracefs ids.
#[derive(Debug, Clone)]
pub struct SyscallTracepoints {
    pub all: u64,
    pub calls: Vec<(String, u64)>,
}

/// Where tracefs is mounted, if it is.
fn tracefs_events() -> Option<PathBuf> {
    [
        "/sys/kernel/tracing/events",
        "/sys/kernel/debug/tracing/events",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.join("raw_syscalls").exists())
}

impl SyscallTracepoints {
    /// Find the tracepoints. Where tracefs is not mounted and this is root, mount it at
    /// /sys/kernel/tracing first, as perf itself does; the note says so.
    pub fn find(is_root: bool, notes: &mut Vec<String>) -> std::result::Result<Self, String> {
        let events = match tracefs_events() {
            Some(e) => e,
            None if is_root && mount_tracefs().is_ok() => {
                notes.push(
                    "--trace: mounted tracefs at /sys/kernel/tracing to find the syscall \
                     tracepoints (as perf does)"
                        .into(),
                );
                tracefs_events().ok_or("tracefs mounted but it has no raw_syscalls events")?
            }
            None => {
                let dir = Path::new("/sys/kernel/tracing");
                return Err(match std::fs::read_dir(dir) {
                    Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                        "the syscall tracepoints are listed in tracefs, which only root may \
                         read here (/sys/kernel/tracing: permission denied)"
                            .to_string()
                    }
                    _ => "tracefs is not mounted (as root: mount -t tracefs nodev \
                          /sys/kernel/tracing), so the syscall tracepoints cannot be found"
                        .to_string(),
                });
            }
        };
        let id =
            |p: PathBuf| -> Option<u64> { std::fs::read_to_string(p).ok()?.trim().parse().ok() };
        let all = id(events.join("raw_syscalls/sys_enter/id")).ok_or_else(|| {
            format!(
                "cannot read {}: only root may, here",
                events.join("raw_syscalls/sys_enter/id").display()
            )
        })?;
        let mut calls = Vec::new();
        if let Ok(dir) = std::fs::read_dir(events.join("syscalls")) {
            for e in dir.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if let Some(call) = name.strip_prefix("sys_enter_") {
                    if let Some(i) = id(e.path().join("id")) {
                        calls.push((call.to_string(), i));
                    }
                }
            }
        }
        calls.sort();
        Ok(SyscallTracepoints { all, calls })
    }
}

fn mount_tracefs() -> io::Result<()> {
    let c = |s: &str| std::ffi::CString::new(s).expect("no NUL");
    let (src, target, fs) = (c("nodev"), c("/sys/kernel/tracing"), c("tracefs"));
    // SAFETY: valid NUL-terminated strings that outlive the call; no data argument.
    let r = unsafe {
        libc::mount(
            src.as_ptr(),
            target.as_ptr(),
            fs.as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The tracepoint counters of one pass.
pub struct SyscallCounters {
    all: Counter,
    calls: Vec<(String, Counter)>,
}

impl SyscallCounters {
    /// Open a counter on every call's tracepoint, disabled and inherited. A call whose
    /// tracepoint will not open is left out (the total still counts it, as "other").
    pub fn open(tp: &SyscallTracepoints, kernel: bool) -> Result<SyscallCounters> {
        let all = open(Tracepoint::with_id(tp.all), kernel)
            .map_err(|e| anyhow::anyhow!(explain(&e, false)))
            .context("opening raw_syscalls:sys_enter")?;
        let calls = tp
            .calls
            .iter()
            .filter_map(|(name, id)| {
                Some((name.clone(), open(Tracepoint::with_id(*id), kernel).ok()?))
            })
            .collect();
        Ok(SyscallCounters { all, calls })
    }

    /// Count the calls `run` makes in its `ops` operations; compare with `declared`.
    pub fn count(
        &mut self,
        ops: u64,
        declared: &[(&str, f64)],
        run: impl FnOnce() -> Result<()>,
    ) -> Result<SyscallTrace> {
        counting(run)?;
        self.read(ops, declared)
    }

    /// Set every count back to zero, for the next row's pass.
    pub fn reset(&mut self) -> Result<()> {
        self.all.reset()?;
        for (_, c) in &mut self.calls {
            c.reset()?;
        }
        Ok(())
    }

    /// Read the calls after a [`counting`] pass of `ops` operations.
    pub fn read(&mut self, ops: u64, declared: &[(&str, f64)]) -> Result<SyscallTrace> {
        let ops = ops.max(1);
        // The disabling prctl entered the kernel while counting was on (see the module).
        let total = self.all.read()?.saturating_sub(1);
        let mut calls = Vec::new();
        let mut named = 0;
        for (name, c) in &mut self.calls {
            let mut n = c.read()?;
            if name == "prctl" {
                n = n.saturating_sub(1);
            }
            if n > 0 {
                named += n;
                calls.push(SyscallCount {
                    name: name.clone(),
                    count: n,
                    per_op: n as f64 / ops as f64,
                });
            }
        }
        if total > named {
            calls.push(SyscallCount {
                name: "other".into(),
                count: total - named,
                per_op: (total - named) as f64 / ops as f64,
            });
        }
        calls.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
        Ok(SyscallTrace {
            ops,
            total_per_op: total as f64 / ops as f64,
            expected: check_expectations(declared, &calls, ops),
            calls,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tracepoints() -> Option<SyscallTracepoints> {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        match SyscallTracepoints::find(root, &mut Vec::new()) {
            Ok(tp) => Some(tp),
            Err(why) => {
                eprintln!("syscall tracepoints unavailable ({why}): nothing checked");
                None
            }
        }
    }

    fn getpid_loop(n: u64) {
        for _ in 0..n {
            // SAFETY: getpid has no preconditions.
            std::hint::black_box(unsafe { libc::syscall(libc::SYS_getpid) });
        }
    }

    #[test]
    fn the_trace_counts_each_getpid_and_flags_a_wrong_declaration() {
        let Some(tp) = tracepoints() else { return };
        let mut c = SyscallCounters::open(&tp, true).unwrap();
        let t = c
            .count(5_000, &[("getpid", 1.0), ("getppid", 1.0)], || {
                getpid_loop(5_000);
                Ok(())
            })
            .unwrap();
        let getpid = t.calls.iter().find(|c| c.name == "getpid").unwrap();
        assert_eq!(getpid.count, 5_000, "{t:?}");
        assert!(t.expected[0].met, "{t:?}");
        assert!(
            !t.expected[1].met && t.flagged(),
            "getppid was declared, never made"
        );
        // Nothing else: the switching prctl is accounted for.
        assert_eq!(t.total_per_op, 1.0, "{:?}", t.calls);
    }

    #[test]
    fn a_forked_child_is_counted_with_its_parent() {
        let Some(tp) = tracepoints() else { return };
        let mut c = SyscallCounters::open(&tp, true).unwrap();
        let t = c
            .count(1, &[("exit_group", 1.0), ("wait4", 1.0)], || {
                // SAFETY: the child only calls getpid and _exit, async-signal-safe.
                let pid = unsafe { libc::fork() };
                if pid == 0 {
                    getpid_loop(7);
                    // SAFETY: ends the forked child at once.
                    unsafe { libc::_exit(0) };
                }
                let mut status = 0;
                // SAFETY: waits for our own child.
                unsafe { libc::waitpid(pid, &mut status, 0) };
                Ok(())
            })
            .unwrap();
        let n = |name: &str| {
            t.calls
                .iter()
                .find(|c| c.name == name)
                .map_or(0, |c| c.count)
        };
        assert_eq!(n("getpid"), 7, "the child's calls count: {t:?}");
        assert!(!t.flagged(), "{t:?}");
    }

    /// Map `len` bytes of fresh anonymous memory, store into every page and unmap it.
    fn touch_fresh_pages(len: usize) {
        // SAFETY: a private anonymous mapping of `len` bytes, checked for failure, written
        // only inside its bounds and unmapped once.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(p, libc::MAP_FAILED, "mmap of {len} bytes");
            // Small pages even where transparent huge pages are always on: one fault a page.
            libc::madvise(p, len, libc::MADV_NOHUGEPAGE);
            let bytes = p.cast::<u8>();
            for offset in (0..len).step_by(4096) {
                std::ptr::write_volatile(bytes.add(offset), 1);
            }
            libc::munmap(p, len);
        }
    }

    #[test]
    fn software_counters_count_work_and_hardware_ones_say_why_not() {
        let mut set = CounterSet::open();
        let pc = set
            .count(1_000, || {
                // A fresh anonymous mapping, not a Vec: the allocator may hand back heap
                // that an earlier test in this process already touched, which faults no
                // page (this test failed so once).
                touch_fresh_pages(8 << 20);
                Ok(())
            })
            .unwrap();
        let faults = pc
            .total("page-faults")
            .expect("page faults are always countable");
        assert!(
            faults >= 1_000,
            "8 MiB touched is at least 2,048 pages: {faults}"
        );
        let clock = pc.total("task-clock").unwrap();
        assert!(clock > 0);
        match set.hardware_unavailable() {
            Some(why) => assert!(pc.total("cycles").is_none() && !why.is_empty()),
            None => assert!(pc.total("cycles").unwrap() > 0),
        }
    }
}
