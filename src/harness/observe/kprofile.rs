//! The whole machine's kernel profile for `timeshare observe` (001 §2.2: the kernel
//! profiled in production): `perf record -a -g` over the span ([`super::profile`]'s
//! recording) in windows of [`WINDOW`]: as each window's file closes, a thread reads its
//! stacks back with `perf script`, folds them into a bounded aggregate ([`Folded`]) and
//! deletes the file, so that neither the scratch space nor the memory grows with the
//! span. The profile is built from the aggregate by
//! [`crate::model::observation::subsystem::build_weighted_profile`], at the end or at
//! any moment before ([`KernelRecording::so_far`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::Result;

use super::ksample::KernelSampling;
use super::profile::{self, parse_frame, Recording};
use crate::model::observation::subsystem::{
    flame_stack, Frame, NetShares, ProfileTally, StackSample, SyscallTracing,
};
use crate::model::observation::KernelProfile;

/// Samples per second per CPU of `observe`'s profile: 99, near the 100 Hz clock 001's
/// profiled kernels were sampled by and out of step with the timer tick. `perf script`
/// takes about as long as the span to read back 999 samples a second with call chains on
/// this machine, so the rate that suits one benchmark row is too high for hours.
pub const OBSERVE_HZ: u32 = 99;

/// How long perf writes one file before it starts the next: at 99 Hz on two CPUs with
/// call chains, about 5 MB; two are on disk at most (the one written, the one read).
pub const WINDOW: Duration = Duration::from_secs(60);

/// Distinct stacks kept in the aggregate; a sample of a new stack beyond them is counted
/// in one `[stacks cut]` stack, so the totals stay right and the memory bounded.
pub const MAX_STACKS: usize = 10_000;
/// Kernel frames kept of one stack (perf records at most 127): the leaf end, which
/// decides the subsystem and the self share. The BPF sampler keeps as many.
pub const MAX_FRAMES: usize = super::ksample::MAX_FRAMES;

const FIELDS: &str = "comm,pid,tid,ip,sym,dso";

/// A recording of the whole machine, folded window by window.
pub struct KernelRecording {
    source: Source,
    hz: u32,
    folded: Arc<Mutex<Folded>>,
    stop: Arc<AtomicBool>,
    folder: Option<JoinHandle<()>>,
}

/// Where the samples come from: counted in the kernel by BPF, or `perf record`'s files.
enum Source {
    Bpf(Arc<Mutex<KernelSampling>>),
    Perf(Recording),
}

impl KernelRecording {
    /// Sample the kernel in BPF at `hz` where this user and build may; else `perf record
    /// -a -g` in windows of [`WINDOW`]; or say exactly why neither can be.
    /// Why the BPF sampler could not be used, when root could have, goes into `notes`.
    pub fn start(
        perf: Option<PathBuf>,
        is_root: bool,
        hz: u32,
        notes: &mut Vec<String>,
    ) -> std::result::Result<Self, String> {
        if is_root {
            match KernelSampling::start(hz) {
                Ok(s) => return Self::sampling_in_the_kernel(s, hz, WINDOW),
                Err(why) => notes.push(format!(
                    "kernel profile from perf record, not sampled in the kernel: {why}"
                )),
            }
        }
        Self::start_windows(perf, is_root, hz, WINDOW)
    }

    /// Sampling in BPF, the closed window folded every `window`.
    fn sampling_in_the_kernel(
        sampling: KernelSampling,
        hz: u32,
        window: Duration,
    ) -> std::result::Result<Self, String> {
        let sampling = Arc::new(Mutex::new(sampling));
        let folded = Arc::new(Mutex::new(Folded::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let folder = {
            let (sampling, folded) = (Arc::clone(&sampling), Arc::clone(&folded));
            folding_thread(Arc::clone(&stop), window, move || {
                fold_sampled(&sampling, &folded)
            })?
        };
        Ok(KernelRecording {
            source: Source::Bpf(sampling),
            hz,
            folded,
            stop,
            folder: Some(folder),
        })
    }

    /// `perf record -a -g` at `hz` in windows of `window` (whole seconds).
    pub fn start_windows(
        perf: Option<PathBuf>,
        is_root: bool,
        hz: u32,
        window: Duration,
    ) -> std::result::Result<Self, String> {
        let perf = profile::available(perf, is_root)?;
        let recording = Recording::start_windows(&perf, hz, true).map_err(|e| format!("{e:#}"))?;
        let folded = Arc::new(Mutex::new(Folded::default()));
        let stop = Arc::new(AtomicBool::new(false));
        // perf is told to close a window every `window`, and each closed window is folded
        // as soon as the thread looks (every 250 ms). The thread is joined before perf is
        // reaped (`stop`, `drop`), so the pid it signals stays perf's.
        let folder = {
            let (dir, folded) = (recording.dir().to_path_buf(), Arc::clone(&folded));
            let pid = recording.pid();
            let mut switched = std::time::Instant::now();
            folding_thread(Arc::clone(&stop), Duration::ZERO, move || {
                if switched.elapsed() >= window {
                    if let Some(pid) = pid {
                        profile::switch_window(pid);
                    }
                    switched = std::time::Instant::now();
                }
                fold_closed(&perf, &dir, &folded)
            })?
        };
        Ok(KernelRecording {
            source: Source::Perf(recording),
            hz,
            folded,
            stop,
            folder: Some(folder),
        })
    }

    /// Say that every system call is traced while this records (the call mix is counted),
    /// so that the slow path it puts every call on is counted as the observer's.
    pub fn while_tracing(self, tracing: SyscallTracing) -> Self {
        // Before the first window is folded (a minute in): every sample is told by it.
        self.folded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .tracing = tracing;
        self
    }

    /// The `perf record` process (a child of this one, not part of an observed workload);
    /// none when the kernel is sampled in BPF.
    pub fn pid(&self) -> Option<u32> {
        match &self.source {
            Source::Perf(r) => r.pid(),
            Source::Bpf(_) => None,
        }
    }

    /// Whether the samples are counted in the kernel (no `perf` process runs).
    pub fn in_the_kernel(&self) -> bool {
        matches!(self.source, Source::Bpf(_))
    }

    /// The profile of the windows folded so far (the one being written is not in it).
    pub fn so_far(&self) -> KernelProfile {
        let folded = self.folded.lock().unwrap_or_else(|p| p.into_inner());
        self.build(&folded, 0.0).0
    }

    /// Stop, fold the last window, and build the profile.
    pub fn stop(mut self) -> Result<(KernelProfile, NetShares)> {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.folder.take() {
            let _ = t.join();
        }
        let recorder_cpu_s = match &mut self.source {
            Source::Perf(recording) => {
                let cpu_s = recording.end()?;
                fold_closed(recording.perf(), recording.dir(), &self.folded);
                cpu_s
            }
            Source::Bpf(sampling) => {
                let mut s = sampling.lock().unwrap_or_else(|p| p.into_inner());
                s.detach();
                drop(s);
                fold_sampled(sampling, &self.folded);
                0.0
            }
        };
        let folded = self.folded.lock().unwrap_or_else(|p| p.into_inner());
        Ok(self.build(&folded, recorder_cpu_s))
    }

    /// The scratch directory perf writes its windows into (none when sampled in BPF).
    pub fn scratch(&self) -> Option<&Path> {
        match &self.source {
            Source::Perf(r) => Some(r.dir()),
            Source::Bpf(_) => None,
        }
    }

    fn method(&self, folded: &Folded) -> String {
        let how = match &self.source {
            Source::Bpf(_) => format!(
                "sampled in the kernel by a BPF program on a {} Hz CPU clock on every CPU: \
                 each sample's kernel frames (at most {MAX_FRAMES}) counted with its command \
                 in a map, folded every {} s and named from /proc/kallsyms; no perf process",
                self.hz,
                WINDOW.as_secs()
            ),
            Source::Perf(_) => format!(
                "perf record -a -g -F {} (cpu-clock where there is no hardware PMU, cycles \
                 where there is one), every CPU, kernel and user call chains, read back \
                 and folded every {} s",
                self.hz,
                WINDOW.as_secs()
            ),
        };
        format!(
            "{how}{}{}",
            folded.cut_text(),
            if folded.tracing == SyscallTracing::On {
                "; every call being traced, the slow path's own time (syscall_trace_enter \
                 or syscall_exit_work as the leaf) counted as the observer's"
            } else {
                ""
            }
        )
    }

    fn build(&self, folded: &Folded, recorder_cpu_s: f64) -> (KernelProfile, NetShares) {
        let (mut p, net) = folded.profile(self.hz, &self.method(folded));
        p.profiler_cpu_s = recorder_cpu_s + folded.script_cpu_s;
        p.in_kernel = self.in_the_kernel();
        (p, net)
    }
}

impl Drop for KernelRecording {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.folder.take() {
            let _ = t.join();
        }
    }
}

/// The observer's thread that calls `fold` every `every` (looking each 250 ms, so that a
/// stop is seen at once) until `stop` is set.
fn folding_thread(
    stop: Arc<AtomicBool>,
    every: Duration,
    mut fold: impl FnMut() + Send + 'static,
) -> std::result::Result<JoinHandle<()>, String> {
    std::thread::Builder::new()
        .name("timeshare-observe-fold".into())
        .spawn(move || {
            let _observer = super::ObserverThread::register();
            let mut since = std::time::Instant::now();
            while !stop.load(Ordering::Relaxed) {
                if since.elapsed() >= every {
                    fold();
                    since = std::time::Instant::now();
                }
                std::thread::sleep(Duration::from_millis(250));
            }
        })
        .map_err(|e| format!("cannot start the profile's folding thread: {e}"))
}

/// Fold the BPF sampler's closed window into the aggregate. The window is kept apart
/// while it is read, so the lock on the aggregate is held only to add.
fn fold_sampled(sampling: &Mutex<KernelSampling>, folded: &Mutex<Folded>) {
    let mut window = Vec::new();
    let read = sampling
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .fold_window(&mut |s, n| window.push((s, n)));
    if let Ok(lost) = read {
        let mut f = folded.lock().unwrap_or_else(|p| p.into_inner());
        for (s, n) in window {
            f.add_weighted(s, n);
        }
        f.add_cut(lost);
    }
}

/// Read, fold and delete every window perf has closed in `dir`. A window that cannot
/// be read is deleted all the same: the scratch space must not grow.
fn fold_closed(perf: &Path, dir: &Path, folded: &Mutex<Folded>) {
    let lock = || folded.lock().unwrap_or_else(|p| p.into_inner());
    for window in profile::closed_windows(dir) {
        // Each record folded as it is read: the lock is held a moment a sample, so the
        // profile so far can be read meanwhile.
        let script_cpu_s = profile::script_each(perf, &window, FIELDS, |record| {
            for s in parse_stacks(record) {
                lock().add(s);
            }
        });
        let _ = std::fs::remove_file(&window);
        if let Ok(cpu_s) = script_cpu_s {
            lock().script_cpu_s += cpu_s;
        }
    }
}

/// The samples so far: the profile's tables counted sample by sample ([`ProfileTally`],
/// exact whatever the span), and for the flame graph one entry per distinct (shortened)
/// stack, each stack a list of numbers into one table of names: over hours the same few
/// thousand kernel functions make every stack, and a stack of 64 frames as strings was
/// kilobytes where as numbers it is 256 bytes (the observer's memory then grew by tens of
/// MB an hour until the cap). Beyond [`MAX_STACKS`] a new stack is counted in the tables
/// and, in the flame graph only, as `[stacks cut]`.
#[derive(Debug, Default)]
pub struct Folded {
    tally: ProfileTally,
    /// Whether every call was being traced, which decides the observer's samples.
    tracing: SyscallTracing,
    /// Each name (a frame or a command) once; a key's numbers index it.
    names: Vec<String>,
    ids: HashMap<String, u32>,
    stacks: HashMap<StackKey, u64>,
    /// Samples of stacks beyond [`MAX_STACKS`], drawn as the `[stacks cut]` stack in the
    /// flame graph (the tables count them as themselves).
    pub cut: u64,
    /// Samples the kernel's map had no room for: counted, their stacks unknown.
    pub unseen: u64,
    pub script_cpu_s: f64,
}

/// A shortened stack by its names' numbers: the command, whether it is the idle task
/// (pid 0), and its kernel frames leaf first (none: a sample in user mode).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct StackKey {
    comm: u32,
    idle: bool,
    kernel_frames: Box<[u32]>,
}

impl Folded {
    /// Count one sample, shortened to what the profile reads of it: its kernel frames
    /// (at most [`MAX_FRAMES`]), whether it was in user mode, whether it was the idle
    /// task. Which user code and which process (but the idle task) are dropped: they
    /// would make every process's stacks distinct.
    pub fn add(&mut self, s: StackSample) {
        self.add_weighted(s, 1);
    }

    /// Count `n` samples of one stack (the BPF sampler counts them in the kernel).
    pub fn add_weighted(&mut self, s: StackSample, n: u64) {
        let shortened = shortened(s);
        self.tally.add(&shortened, n, self.tracing);
        let key = if self.stacks.len() < MAX_STACKS {
            self.key_of(&shortened)
        } else {
            // Full: only a stack already kept is counted as itself; nothing new is named.
            match self.known_key_of(&shortened) {
                Some(key) if self.stacks.contains_key(&key) => key,
                _ => {
                    self.cut += n;
                    let cut = cut_stack();
                    self.key_of(&cut)
                }
            }
        };
        *self.stacks.entry(key).or_default() += n;
    }

    /// Count `n` samples that were not kept as themselves (the kernel's map was full).
    pub fn add_cut(&mut self, n: u64) {
        if n == 0 {
            return;
        }
        self.unseen += n;
        let cut = cut_stack();
        self.tally.add(&cut, n, self.tracing);
        let key = self.key_of(&cut);
        *self.stacks.entry(key).or_default() += n;
    }

    /// The profile: the tables from the tally, the flame graph from the stacks kept.
    pub fn profile(&self, frequency_hz: u32, method: &str) -> (KernelProfile, NetShares) {
        let mut flame: HashMap<String, u64> = HashMap::new();
        for (s, n) in self.samples() {
            if let Some(stack) = flame_stack(&s, self.tracing) {
                *flame.entry(stack).or_default() += n;
            }
        }
        self.tally.profile(flame, frequency_hz, method)
    }

    /// Distinct stacks kept (the `[stacks cut]` one included).
    pub fn distinct_stacks(&self) -> usize {
        self.stacks.len()
    }

    /// Every stack kept with its count, as samples the profile is built from.
    pub fn samples(&self) -> Vec<(StackSample, u64)> {
        let name = |id: &u32| self.names[*id as usize].clone();
        self.stacks
            .iter()
            .map(|(k, &n)| {
                let frames = if k.kernel_frames.is_empty() {
                    vec![user_frame()]
                } else {
                    k.kernel_frames
                        .iter()
                        .map(|id| Frame {
                            name: name(id),
                            kernel: true,
                        })
                        .collect()
                };
                let sample = StackSample {
                    comm: name(&k.comm),
                    pid: u32::from(!k.idle),
                    frames,
                };
                (sample, n)
            })
            .collect()
    }

    fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), id);
        id
    }

    /// The key of a shortened sample, naming what is new.
    fn key_of(&mut self, s: &StackSample) -> StackKey {
        StackKey {
            comm: self.id(&s.comm),
            idle: s.pid == 0,
            kernel_frames: kernel_names(s).map(|f| self.id(f)).collect(),
        }
    }

    /// The key of a shortened sample all of whose names are known already.
    fn known_key_of(&self, s: &StackSample) -> Option<StackKey> {
        Some(StackKey {
            comm: *self.ids.get(&s.comm)?,
            idle: s.pid == 0,
            kernel_frames: kernel_names(s)
                .map(|f| self.ids.get(f).copied())
                .collect::<Option<_>>()?,
        })
    }

    fn cut_text(&self) -> String {
        let mut text = String::new();
        if self.cut > 0 {
            text += &format!(
                "; {} samples of stacks beyond the {MAX_STACKS} distinct ones kept drawn as one \
                 [stacks cut] stack in the flame graph (counted as themselves in the tables)",
                self.cut
            );
        }
        if self.unseen > 0 {
            text += &format!(
                "; {} samples the kernel's map had no room for counted as [stacks cut]",
                self.unseen
            );
        }
        text
    }
}

/// A shortened sample's kernel frames' names (none when it was in user mode).
fn kernel_names(s: &StackSample) -> impl Iterator<Item = &str> {
    s.frames
        .iter()
        .take_while(|f| f.kernel)
        .map(|f| f.name.as_str())
}

/// The one frame a sample in user mode is shortened to.
fn user_frame() -> Frame {
    Frame {
        name: "[user]".into(),
        kernel: false,
    }
}

fn shortened(mut s: StackSample) -> StackSample {
    let kernel = s.frames.iter().take_while(|f| f.kernel).count();
    if kernel == 0 {
        s.frames = vec![user_frame()];
    } else {
        s.frames.truncate(kernel.min(MAX_FRAMES));
    }
    s.pid = u32::from(s.pid != 0);
    s
}

fn cut_stack() -> StackSample {
    StackSample {
        comm: "[stacks cut]".into(),
        pid: 1,
        frames: vec![Frame {
            name: "[stacks cut]".into(),
            kernel: true,
        }],
    }
}

/// The samples of `perf script -F comm,pid,tid,ip,sym,dso` (with call chains): a header
/// line `comm pid/tid` then one frame per line, leaf first.
pub fn parse_stacks(script: &str) -> Vec<StackSample> {
    let mut out = Vec::new();
    let mut lines = script.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim().is_empty() || line.starts_with(char::is_whitespace) {
            continue;
        }
        let head = line.trim_end();
        // The command may hold spaces: the task is the last word.
        let (comm, task) = head.rsplit_once(char::is_whitespace).unwrap_or(("", head));
        if task.starts_with("PERF_RECORD_") || head.contains("PERF_RECORD_") {
            continue;
        }
        let pid = task
            .split('/')
            .next()
            .and_then(|p| p.parse::<u32>().ok())
            .unwrap_or(u32::MAX);
        let mut frames = Vec::new();
        while let Some(next) = lines.peek() {
            if next.trim().is_empty() || !next.starts_with(char::is_whitespace) {
                break;
            }
            let addr = next.split_whitespace().next().unwrap_or("");
            let (name, dso) = parse_frame(next);
            let kernel = dso.contains("kernel.kallsyms")
                || dso.starts_with("[kernel")
                || u64::from_str_radix(addr, 16).is_ok_and(|a| a >= 0xffff_8000_0000_0000);
            let name = if name == "[unknown]" {
                format!("[unknown {}]", if kernel { "kernel" } else { dso.as_str() })
            } else {
                name
            };
            frames.push(Frame { name, kernel });
            lines.next();
        }
        out.push(StackSample {
            comm: comm.trim().to_string(),
            pid,
            frames,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::observe::profile::FREQUENCY_HZ;

    /// A child that stats a four-component path for 1.5 s: most of its system time is
    /// path-name translation and the rest of the VFS, by the written rules.
    #[test]
    fn a_stat_loop_spends_most_of_its_system_time_in_the_vfs() {
        use crate::model::observation::subsystem::{build_profile, VFS};
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let host = crate::harness::contract::Host::detect();
        let rec = match profile::available(host.find_program("perf"), root)
            .and_then(|perf| Recording::start_at(&perf, FREQUENCY_HZ).map_err(|e| e.to_string()))
        {
            Ok(r) => r,
            Err(why) => {
                eprintln!("skipped: {why}");
                return;
            }
        };
        // SAFETY: the child only calls stat and _exit.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let end = std::time::Instant::now() + std::time::Duration::from_millis(1500);
            // SAFETY: stat is plain data; all zeroes is a valid value.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            while std::time::Instant::now() < end {
                for _ in 0..1000 {
                    // SAFETY: a valid path and a stat buffer of our own.
                    unsafe { libc::stat(c"/usr/share/doc/../bin/env".as_ptr(), &mut st) };
                }
            }
            // SAFETY: ends the forked child at once.
            unsafe { libc::_exit(0) };
        }
        let mut status = 0;
        // SAFETY: waits for our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        let script = rec.stop_script("comm,pid,tid,ip,sym,dso").unwrap();
        let ours: Vec<_> = parse_stacks(&script.text)
            .into_iter()
            .filter(|s| s.pid == pid as u32)
            .collect();
        let (p, _) = build_profile(&ours, FREQUENCY_HZ, "test");
        assert!(p.system_samples > 100, "{p:?}");
        assert!(
            p.share_of(VFS) > 0.5,
            "VFS {:.2}: {:?}",
            p.share_of(VFS),
            p.subsystems
        );
        assert!(p.namei_inclusive_share > 0.3, "{}", p.namei_inclusive_share);
    }

    fn stack(comm: &str, pid: u32, frames: &[(&str, bool)]) -> StackSample {
        StackSample {
            comm: comm.into(),
            pid,
            frames: frames
                .iter()
                .map(|&(name, kernel)| Frame {
                    name: name.into(),
                    kernel,
                })
                .collect(),
        }
    }

    #[test]
    fn the_aggregate_merges_what_the_profile_does_not_read_and_is_capped() {
        let mut f = Folded::default();
        // The same kernel stack in two processes, under two different user callers.
        f.add(stack("ls", 10, &[("vfs_read", true), ("main", false)]));
        f.add(stack("ls", 11, &[("vfs_read", true), ("other", false)]));
        f.add(stack("ls", 12, &[("main", false)]));
        f.add(stack("swapper", 0, &[("default_idle", true)]));
        assert_eq!(f.distinct_stacks(), 3, "{:?}", f.samples());
        let count_of =
            |f: &Folded, s: &StackSample| f.samples().iter().find(|(k, _)| k == s).map(|(_, n)| *n);
        assert_eq!(
            count_of(&f, &stack("ls", 1, &[("vfs_read", true)])),
            Some(2)
        );
        assert_eq!(count_of(&f, &stack("ls", 1, &[("[user]", false)])), Some(1));
        for i in 0..MAX_STACKS + 5 {
            f.add(stack("x", 5, &[(&format!("fn{i}"), true)]));
        }
        // A stack already kept is still counted as itself once the map is full.
        f.add(stack("ls", 10, &[("vfs_read", true), ("main", false)]));
        assert_eq!(
            f.distinct_stacks(),
            MAX_STACKS + 1,
            "capped, plus the cut stack"
        );
        assert_eq!(f.cut, 8);
        assert_eq!(
            count_of(&f, &stack("ls", 1, &[("vfs_read", true)])),
            Some(3)
        );
        let samples = f.samples();
        let total: u64 = samples.iter().map(|(_, n)| n).sum();
        assert_eq!(
            total,
            4 + MAX_STACKS as u64 + 5 + 1,
            "no sample lost from the flame graph's totals"
        );
        let (p, _) = f.profile(99, "t");
        assert_eq!(p.samples, total);
        assert_eq!((p.idle_samples, p.user_samples), (1, 1));
        // The tables count the samples beyond the cap as themselves: no [stacks cut]
        // function, and the last of the x stacks is a function of its own.
        assert!(p.functions.iter().all(|f| f.name != "[stacks cut]"));
        let flame_cut: u64 = p
            .folded
            .iter()
            .filter(|s| s.stack.contains("[stacks_cut]"))
            .map(|s| s.count)
            .sum();
        assert_eq!(flame_cut, 8, "the flame graph draws them as [stacks cut]");
        let mut h = Folded::default();
        for i in 0..MAX_STACKS + 500 {
            h.add(stack(
                "x",
                5,
                &[("hot", true), (&format!("caller{i}"), true)],
            ));
        }
        let (p, _) = h.profile(99, "t");
        let hot = p.functions.iter().find(|f| f.name == "hot").unwrap();
        assert_eq!(hot.self_samples, MAX_STACKS as u64 + 500, "{hot:?}");
        let deep: Vec<(String, bool)> = (0..200).map(|i| (format!("k{i}"), true)).collect();
        let deep: Vec<(&str, bool)> = deep.iter().map(|(n, k)| (n.as_str(), *k)).collect();
        let mut g = Folded::default();
        g.add(stack("d", 3, &deep));
        assert_eq!(g.samples()[0].0.frames.len(), MAX_FRAMES);
    }

    /// perf closes a file a second; the folding thread reads and deletes each, and the
    /// samples are in the profile before the end.
    #[test]
    fn windows_are_folded_and_deleted_as_they_close() {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let host = crate::harness::contract::Host::detect();
        let rec = match KernelRecording::start_windows(
            host.find_program("perf"),
            root,
            OBSERVE_HZ,
            Duration::from_secs(1),
        ) {
            Ok(r) => r,
            Err(why) => {
                eprintln!("skipped: {why}");
                return;
            }
        };
        let dir = rec.scratch().expect("perf writes files").to_path_buf();
        assert!(dir
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(&format!("timeshare-perf-{}-", std::process::id())));
        // A window is in the profile only once perf has closed it and the thread has
        // folded it: samples before the end show both (perf script's speed depends on
        // the machine's load: up to 60 s allowed). perf closes a window when the thread
        // tells it to, once a second here: a signal perf drops while it starts (it reads
        // every process's maps first) is followed by another.
        let started = std::time::Instant::now();
        let deadline = started + Duration::from_secs(60);
        while rec.so_far().samples == 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "no window folded in 60 s: {}",
                what_perf_did(&rec, &dir, started)
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        eprintln!(
            "first samples folded {}",
            what_perf_did(&rec, &dir, started)
        );
        // The oldest closed window is the one folded first: it is deleted before the end
        // (how many others wait beside it depends on the machine's load).
        if let Some(oldest) = profile::closed_windows(&dir).first().cloned() {
            while oldest.exists() {
                assert!(
                    std::time::Instant::now() < deadline,
                    "a folded window is deleted before the end: {}",
                    what_perf_did(&rec, &dir, started)
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        let before_end = rec.so_far();
        assert!(
            before_end.samples > 0,
            "folded before the end: {before_end:?}"
        );
        let (p, _) = rec.stop().unwrap();
        assert!(p.samples >= before_end.samples);
        assert!(
            !dir.exists(),
            "the scratch directory is removed with the recording"
        );
    }

    /// What a recording that folded nothing in time shows, so that a failure says why:
    /// the windows perf closed and left unread, whether perf record still runs, the last
    /// line of its log, how many `perf script` run now, and the machine's load.
    fn what_perf_did(rec: &KernelRecording, dir: &Path, started: std::time::Instant) -> String {
        let waiting: Vec<String> = profile::closed_windows(dir)
            .iter()
            .map(|w| {
                let name = w.file_name().unwrap_or_default().to_string_lossy();
                let size = std::fs::metadata(w).map(|m| m.len()).unwrap_or(0);
                format!("{name} ({size} B)")
            })
            .collect();
        let state = |pid: u32| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| Some(s.rsplit_once(") ")?.1.chars().next()?.to_string()))
        };
        let recorder = match rec.pid().map(|p| (p, state(p))) {
            Some((pid, Some(st))) => {
                format!("perf record {pid} in state {st}, {}", where_perf_waits(pid))
            }
            Some((pid, None)) => format!("perf record {pid} gone"),
            None => "no perf record".to_string(),
        };
        let log = std::fs::read_to_string(dir.join("perf.log")).unwrap_or_default();
        let me = std::process::id().to_string();
        let scripts = std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| {
                let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
                let ppid = stat
                    .rsplit_once(") ")
                    .and_then(|(_, r)| r.split(' ').nth(1));
                let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
                ppid == Some(me.as_str()) && String::from_utf8_lossy(&cmd).contains("script")
            })
            .count();
        let writing = std::fs::metadata(dir.join("perf.data")).map_or(0, |m| m.len());
        format!(
            "after {:.1} s: {} closed windows unread [{}], {writing} B in the window being \
             written; {recorder}; log {:?}; {scripts} perf script running; load average {}",
            started.elapsed().as_secs_f64(),
            waiting.len(),
            waiting.join(", "),
            log.lines().last().unwrap_or(""),
            std::fs::read_to_string("/proc/loadavg")
                .unwrap_or_default()
                .trim()
        )
    }

    /// Where perf record's threads wait, and which signals it blocks, ignores and
    /// catches: a window is closed on SIGUSR2, sent once a second here. One failure (on
    /// perf's own one-second alarm, since replaced) saw perf record alive and sleeping
    /// after 180 s with not one window closed.
    fn where_perf_waits(pid: u32) -> String {
        let read = |p: String| std::fs::read_to_string(p).unwrap_or_default();
        let threads: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/task"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|t| {
                let stat = read(format!("{}/stat", t.path().display()));
                let st = stat.rsplit_once(") ").map_or("?", |(_, r)| &r[..1]);
                let wchan = read(format!("{}/wchan", t.path().display()));
                format!("{} {st} {wchan}", t.file_name().to_string_lossy())
            })
            .collect();
        let signals: Vec<String> = read(format!("/proc/{pid}/status"))
            .lines()
            .filter(|l| {
                ["SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt"]
                    .iter()
                    .any(|k| l.starts_with(k))
            })
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        format!("threads [{}], {}", threads.join(", "), signals.join(", "))
    }

    #[test]
    fn stacks_are_read_with_their_command_and_kernel_frames() {
        let script = "\
lto cgu.03 24114/24277 
\t         881b9a1 llvm::run (/usr/lib/libLLVM.so)
\t               0 [unknown] ([unknown])

swapper     0/0     
\tffffffff81e8f0b4 pv_native_safe_halt+0x4 ([kernel.kallsyms])
\tffffffff81e8f3e5 default_idle+0x5 ([kernel.kallsyms])

stat 77/77 
\tffffffff8149b6b0 strncpy_from_user+0x30 ([kernel.kallsyms])
\tffffffff8147a2c0 getname_flags+0x50 ([kernel.kallsyms])
\t    7f00000012 __GI___stat (/usr/lib/libc.so.6)

  100/100  PERF_RECORD_FORK(200:200):(100:100)
";
        let s = parse_stacks(script);
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].comm, "lto cgu.03");
        assert_eq!(s[0].pid, 24114);
        assert!(!s[0].frames[0].kernel);
        assert_eq!(s[1].pid, 0);
        assert_eq!(s[1].frames[0].name, "pv_native_safe_halt");
        assert!(s[1].frames[0].kernel);
        assert_eq!(s[2].frames.len(), 3);
        assert!(s[2].frames[1].kernel && !s[2].frames[2].kernel);
    }
}
