//! `run --profile`: `perf record -a -g` around one benchmark, its flat profile kept.
//!
//! The recording is system-wide (seed 001 profiled the kernel, not one program), so the
//! kernel's side of a fork or a pipe round trip is in it; the shares are then counted over
//! the samples of the benchmark's own processes — timeshare and every process it started
//! during the recording, followed through perf's fork events — so a compiler running
//! beside it on a shared machine does not fill the profile.
//!
//! `perf.data` lives in a private temporary directory that is removed with the
//! [`Recording`]; the `perf` child is its own process group (a Ctrl-C meant for timeshare
//! is handled by timeshare), is killed when the recording is dropped, and is told by the
//! kernel (`PR_SET_PDEATHSIG`) to end if timeshare itself dies.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use super::perf::paranoid;
use crate::model::observe::{Profile, ProfileEntry};

/// Samples per second per CPU: perf's usual odd rate, out of step with the timer tick.
pub const FREQUENCY_HZ: u32 = 999;
/// Functions kept per profile.
pub const TOP: usize = 25;

/// The `perf` program, if it is there and this user may record the whole machine; else
/// why not, in words a reader can act on.
pub fn available(perf: Option<PathBuf>, is_root: bool) -> std::result::Result<PathBuf, String> {
    let Some(perf) = perf else {
        return Err("perf is not installed (Debian: apt-get install linux-perf)".into());
    };
    match Command::new(&perf)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
    {
        Ok(s) if s.success() => {}
        _ => {
            return Err(format!(
                "{} --version fails (no perf for this kernel?)",
                perf.display()
            ))
        }
    }
    if !is_root {
        if let Some(p) = paranoid().filter(|&p| p > 0) {
            return Err(format!(
                "recording the whole machine needs root, CAP_PERFMON or \
                 kernel.perf_event_paranoid ≤ 0, and it is {p}"
            ));
        }
    }
    Ok(perf)
}

/// A `perf record` running beside a benchmark.
pub struct Recording {
    child: Option<Child>,
    perf: PathBuf,
    dir: tempfile::TempDir,
}

impl Recording {
    /// Start recording at [`FREQUENCY_HZ`] and wait until perf writes its file (it then has
    /// its events open).
    pub fn start(perf: &Path) -> Result<Recording> {
        Recording::start_at(perf, FREQUENCY_HZ)
    }

    /// Start recording at `hz` samples per second per CPU.
    pub fn start_at(perf: &Path, hz: u32) -> Result<Recording> {
        Recording::start_windows(perf, hz, false)
    }

    /// Start recording at `hz`; in `windows`, perf closes its file and starts another
    /// each time it is told to ([`switch_window`], `--switch-output=signal`),
    /// so that each closed window can be read and deleted while the next is written
    /// ([`Recording::closed_windows`]). perf's own timer (`--switch-output=60s`) is not
    /// used: perf arms its alarm before it reads every process's maps and heeds it only
    /// after, so when that reading outlasts the window the alarm is dropped, never armed
    /// again, and perf writes one file for ever (seen beside two busy loops: perf alive
    /// and sleeping, no window closed in 180 s). A signal sent each window is not lost
    /// for good: the next one switches.
    pub fn start_windows(perf: &Path, hz: u32, windows: bool) -> Result<Recording> {
        let dir = scratch_dir()?;
        let data = dir.path().join("perf.data");
        let log = std::fs::File::create(dir.path().join("perf.log"))?;
        let mut cmd = Command::new(perf);
        // No build ids: by default perf reads back every sample of each file it closes to
        // find the binaries they hit and copies those into the user's `~/.debug` (295 MB
        // there after a day of tests); the profile is read at once from the binaries'
        // own paths, so neither is needed. perf's CPU time for 10 s of the whole machine
        // at 999 Hz with a process started every few milliseconds: 0.45–0.56 s by
        // default, 0.17–0.21 s so.
        cmd.args([
            "record",
            "-a",
            "-g",
            "--quiet",
            "--no-buildid",
            "--no-buildid-cache",
        ])
        .arg("-F")
        .arg(hz.to_string());
        if windows {
            cmd.arg("--switch-output=signal");
        }
        cmd.arg("-o")
            .arg(&data)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .process_group(0);
        // SAFETY: prctl is async-signal-safe and touches no memory of the parent's.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                Ok(())
            });
        }
        let child = cmd.spawn().context("starting perf record")?;
        let mut rec = Recording {
            child: Some(child),
            perf: perf.to_path_buf(),
            dir,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = rec.child_mut().try_wait()? {
                bail!("perf record ended at once ({status}): {}", rec.log());
            }
            if std::fs::metadata(&data).is_ok_and(|m| m.len() > 0) {
                break;
            }
            if Instant::now() > deadline {
                bail!("perf record did not start within 10 s");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // perf writes the file's header before it has synthesised the running tasks and
        // enabled its events; give it that moment.
        std::thread::sleep(Duration::from_millis(200));
        crate::model::testpause::at("profile");
        Ok(rec)
    }

    /// The windows perf has closed (`perf.data.<time>`), oldest first: whole files, no
    /// longer written.
    pub fn closed_windows(&self) -> Vec<PathBuf> {
        closed_windows(self.dir.path())
    }

    /// The `perf` program recording.
    pub fn perf(&self) -> &Path {
        &self.perf
    }

    /// The directory perf writes into.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Stop perf (SIGINT: it closes its last window) and return the CPU time it used.
    pub fn end(&mut self) -> Result<f64> {
        let Some(mut child) = self.child.take() else {
            return Ok(0.0);
        };
        let recorder_cpu_s = process_cpu_s(child.id());
        // SAFETY: kill with a pid we spawned and have not yet reaped.
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let deadline = Instant::now() + Duration::from_secs(30);
        while child.try_wait()?.is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                bail!("perf record did not end within 30 s of being told to");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(recorder_cpu_s)
    }

    /// The `perf record` process, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    fn child_mut(&mut self) -> &mut Child {
        self.child
            .as_mut()
            .expect("the child is there until stopped")
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("perf.log"))
            .unwrap_or_default()
            .lines()
            .last()
            .unwrap_or("")
            .to_string()
    }

    /// Stop perf (SIGINT, as at a terminal), read the samples and return the flat profile
    /// of this process's tree.
    pub fn stop(self) -> Result<Profile> {
        let text = self.stop_script("pid,tid,ip,sym,dso")?.text;
        Ok(flat_profile(&text, std::process::id(), TOP))
    }

    /// Stop perf and return `perf script --show-task-events -F FIELDS`'s text, with the
    /// CPU time perf used to record and to write it.
    pub fn stop_script(mut self, fields: &str) -> Result<Script> {
        assert!(self.child.is_some(), "stopped once");
        let recorder_cpu_s = self.end()?;
        let before = children_cpu_s();
        let script = perf_script(&self.perf, &self.dir.path().join("perf.data"), fields)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("running perf script")?;
        crate::model::testpause::at("script");
        let out = script.wait_with_output().context("running perf script")?;
        if !out.status.success() {
            bail!("perf script failed ({}): {}", out.status, self.log());
        }
        Ok(Script {
            text: String::from_utf8_lossy(&out.stdout).into_owned(),
            cpu_s: recorder_cpu_s + (children_cpu_s() - before).max(0.0),
        })
    }
}

/// Tell the `perf record` recording in windows as `pid` to close its window and start
/// another (SIGUSR2, which perf heeds with `--switch-output=signal`; one that comes
/// before perf's main loop is dropped, and the next one switches). `pid` must be a child
/// of this process not yet reaped ([`Recording::pid`] while the recording lives), so
/// that it cannot have gone to another process.
pub fn switch_window(pid: u32) {
    // SAFETY: kill has no memory effects; the pid is our own unreaped child's (above).
    unsafe { libc::kill(pid as libc::pid_t, libc::SIGUSR2) };
}

/// The prefix of the private directory each recording writes in, followed by the pid of
/// the timeshare that made it (so `clean` can tell a live recording's from a dead one's).
pub const SCRATCH_PREFIX: &str = "timeshare-perf-";

fn scratch_dir() -> Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix(&format!("{SCRATCH_PREFIX}{}-", std::process::id()))
        .tempdir()
        .context("making a directory for perf.data")
}

/// `dir`'s closed windows, oldest first (their names end in the time they closed).
pub fn closed_windows(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("perf.data."))
        })
        .collect();
    found.sort();
    found
}

/// `perf script --show-task-events -F FIELDS -i DATA`, which ends with the thread that
/// starts it: a timeshare killed outright while perf script read a profile left it
/// reading, in a directory `clean` then removed. It must end by its own exit, which
/// removes the copy of the vDSO it makes in `/tmp/perf-vdso.so-XXXXXX`: killed, it left
/// that file behind (SIGKILL or SIGTERM 80 ms into a file: 3 of 3 times; SIGINT, which it
/// handles by stopping: 0 of 4), and so did the SIGPIPE of writing to a reader that had
/// gone (3 of 3 with its output cut short by `head`; 0 of 3 with SIGPIPE ignored). So it
/// is told to end by SIGINT, and a write to a dead reader fails instead of killing it.
fn perf_script(perf: &Path, data: &Path, fields: &str) -> Command {
    let mut cmd = Command::new(perf);
    cmd.args(["script", "--show-task-events", "-F", fields, "-i"])
        .arg(data);
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: signal, prctl, getppid and kill are all async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
            crate::harness::children::die_with_parent(libc::SIGINT, parent)
        });
    }
    cmd
}

/// `perf script --show-task-events -F FIELDS` of one file read as perf writes it, handed
/// to `each` one record at a time (a header line and its indented frames), and the CPU
/// time it took: a window of an hour-long profile is never held whole in memory (read
/// whole, each minute's window left the observer's resident memory some 15 MB higher).
pub fn script_each(
    perf: &Path,
    data: &Path,
    fields: &str,
    mut each: impl FnMut(&str),
) -> Result<f64> {
    use std::io::BufRead;
    let before = children_cpu_s();
    let mut child = perf_script(perf, data, fields)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .context("running perf script")?;
    let mut out = std::io::BufReader::new(child.stdout.take().context("perf script's output")?);
    let (mut record, mut line) = (String::new(), Vec::new());
    loop {
        line.clear();
        if out.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let text = String::from_utf8_lossy(&line);
        let header = !text.trim().is_empty() && !text.starts_with(char::is_whitespace);
        if (header || text.trim().is_empty()) && !record.is_empty() {
            each(&record);
            record.clear();
        }
        if !text.trim().is_empty() {
            record.push_str(&text);
        }
    }
    if !record.is_empty() {
        each(&record);
    }
    let status = child.wait().context("waiting for perf script")?;
    if !status.success() {
        bail!("perf script of {} failed ({status})", data.display());
    }
    Ok((children_cpu_s() - before).max(0.0))
}

/// What `perf script` wrote, and the CPU time recording and writing it took.
pub struct Script {
    pub text: String,
    pub cpu_s: f64,
}

/// User and system CPU seconds of a running process (fields 14 and 15 of its stat).
fn process_cpu_s(pid: u32) -> f64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The command may hold spaces and parentheses: count from the last ')'.
    let after = text.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = after
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|v| v.parse().ok())
        .collect();
    f.iter().sum::<f64>() / crate::harness::sysinfo::clock_ticks()
}

/// User and system CPU seconds of this process's reaped children.
fn children_cpu_s() -> f64 {
    // SAFETY: getrusage writes into the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above; RUSAGE_CHILDREN is a valid selector.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

impl Drop for Recording {
    /// An interrupted or failed benchmark ends its perf child too.
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The flat profile of the process tree rooted at `root`, from `perf script
/// --show-task-events -F pid,tid,ip,sym,dso` output: the top `top` functions by the
/// samples where they were at the top of the stack, each with its commonest caller when
/// call chains were recorded.
pub fn flat_profile(script: &str, root: u32, top: usize) -> Profile {
    let mut ours: BTreeSet<u32> = BTreeSet::from([root]);
    let mut machine = 0u64;
    let mut samples = 0u64;
    let mut call_graph = false;
    // (symbol, dso) → (samples, callers)
    let mut funcs: HashMap<(String, String), (u64, BTreeMap<String, u64>)> = HashMap::new();
    let mut lines = script.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if t.is_empty() || line.starts_with('\t') {
            continue;
        }
        let (task, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
        let pid = task.split('/').next().and_then(|p| p.parse::<u32>().ok());
        let rest = rest.trim();
        if let Some(ev) = rest.strip_prefix("PERF_RECORD_FORK(") {
            // PERF_RECORD_FORK(child_pid:child_tid):(parent_pid:parent_tid)
            let child = ev.split(':').next().and_then(|p| p.parse::<u32>().ok());
            let parent = ev
                .split_once("):(")
                .and_then(|(_, p)| p.split(':').next())
                .and_then(|p| p.parse::<u32>().ok());
            if let (Some(c), Some(p)) = (child, parent) {
                if ours.contains(&p) {
                    ours.insert(c);
                }
            }
            continue;
        }
        if rest.starts_with("PERF_RECORD_") {
            continue;
        }
        // A sample: its frames follow, one per line, leaf first.
        let mut frames = Vec::new();
        while let Some(next) = lines.peek() {
            if next.trim().is_empty() || !next.starts_with(char::is_whitespace) {
                break;
            }
            frames.push(parse_frame(next));
            lines.next();
        }
        machine += 1;
        if !pid.is_some_and(|p| ours.contains(&p)) || frames.is_empty() {
            continue;
        }
        samples += 1;
        call_graph |= frames.len() > 1;
        let leaf = frames[0].clone();
        let entry = funcs.entry(leaf).or_default();
        entry.0 += 1;
        if let Some(caller) = frames.get(1) {
            *entry.1.entry(caller.0.clone()).or_default() += 1;
        }
    }
    let mut functions: Vec<ProfileEntry> = funcs
        .into_iter()
        .map(|((symbol, dso), (n, callers))| ProfileEntry {
            kernel: dso.contains("kernel.kallsyms") || dso.starts_with("[kernel"),
            share: n as f64 / samples.max(1) as f64,
            samples: n,
            caller: callers
                .into_iter()
                .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
                .map(|c| c.0),
            symbol,
            dso,
        })
        .collect();
    functions.sort_by(|a, b| b.samples.cmp(&a.samples).then(a.symbol.cmp(&b.symbol)));
    functions.truncate(top);
    Profile {
        event: "cycles (cpu-clock where there is no PMU)".into(),
        frequency_hz: FREQUENCY_HZ,
        call_graph,
        machine_samples: machine,
        samples,
        functions,
    }
}

/// `\t ffffffff81372bba free_uid ([kernel.kallsyms])` → (symbol, dso).
pub fn parse_frame(line: &str) -> (String, String) {
    let t = line.trim();
    let rest = t
        .split_once(char::is_whitespace)
        .map_or("", |(_, r)| r.trim());
    match rest.rsplit_once(" (") {
        Some((sym, dso)) => (
            strip_offset(sym).to_string(),
            dso.trim_end_matches(')').to_string(),
        ),
        None => (strip_offset(rest).to_string(), "[unknown]".into()),
    }
}

/// `copy_page_range+0x1f` → `copy_page_range`.
fn strip_offset(sym: &str) -> &str {
    match sym.rsplit_once("+0x") {
        Some((s, off)) if off.chars().all(|c| c.is_ascii_hexdigit()) => s,
        _ => sym,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT: &str = "\
  100/100  PERF_RECORD_FORK(200:200):(100:100)
  999/999  PERF_RECORD_FORK(300:300):(999:999)
  200/200  PERF_RECORD_FORK(201:201):(200:200)
100/100 
\tffffffff81000001 copy_page_range ([kernel.kallsyms])
\tffffffff81000002 dup_mm ([kernel.kallsyms])

200/200 
\tffffffff81000001 copy_page_range ([kernel.kallsyms])
\tffffffff81000003 copy_process ([kernel.kallsyms])

201/201 
\tffffffff81000001 copy_page_range ([kernel.kallsyms])
\tffffffff81000002 dup_mm ([kernel.kallsyms])

100/100 
\t          48fb19 timeshare::bench::run (/usr/bin/timeshare)
\t            7bf8 [unknown] ([unknown])

300/300 
\t         5d03885 rustc::compile (/usr/lib/librustc.so)

  200/200  PERF_RECORD_EXIT(200:200):(100:100)
";

    #[test]
    fn the_profile_counts_the_tree_of_processes_only() {
        let p = flat_profile(SCRIPT, 100, 10);
        assert_eq!(p.machine_samples, 5);
        assert_eq!(p.samples, 4, "the compiler beside it is not ours");
        assert!(p.call_graph);
        let top = &p.functions[0];
        assert_eq!(top.symbol, "copy_page_range");
        assert!(top.kernel && top.dso == "[kernel.kallsyms]");
        assert_eq!(top.samples, 3);
        assert_eq!(top.share, 0.75);
        assert_eq!(top.caller.as_deref(), Some("dup_mm"), "the commoner caller");
        let user = &p.functions[1];
        assert_eq!(user.symbol, "timeshare::bench::run");
        assert!(!user.kernel);
        assert!(p.functions.iter().all(|f| f.symbol != "rustc::compile"));
    }

    #[test]
    fn offsets_are_not_part_of_a_name() {
        assert_eq!(strip_offset("copy_page_range+0x1f"), "copy_page_range");
        assert_eq!(strip_offset("a+b"), "a+b");
        let f = parse_frame("\t ffffffff8124915a ret_from_fork_asm+0x1a ([kernel.kallsyms])");
        assert_eq!(f, ("ret_from_fork_asm".into(), "[kernel.kallsyms]".into()));
    }

    #[test]
    fn a_missing_perf_is_said_plainly() {
        let why = available(None, true).unwrap_err();
        assert!(why.contains("not installed"), "{why}");
    }
}
