//! Running the tools a row is checked against (`timeshare crosscheck`), beside the anchors
//! that declare them: each child in a process group of its own, bounded in wall-clock time
//! and stoppable; a tool's server started and stopped in the tool run's own network
//! namespace; a tool built from C where it has to be; lmbench's timing calibration
//! measured once and kept per machine. The pairing and the verdicts are the use case's
//! (`usecase/crosscheck.rs`) and the model's.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::harness::anchor::{self, Anchor, Server, ServerRuns};
use crate::harness::netview::PrivateNet;
use crate::harness::procgroup::{self, Reaped};
use crate::harness::toolview::PrivateView;
use crate::harness::{calibration, interrupt};

/// The longest one tool invocation may take: lmbench's programs, calibrated, take a few
/// seconds; iperf3 and fio are given ten.
pub const TOOL_LIMIT: Duration = Duration::from_secs(300);
/// The longest a server's start or stop command, or one calibration program, may take.
pub const HELPER_LIMIT: Duration = Duration::from_secs(120);

/// How a child that ran to its end went: its exit, its (and its reaped descendants') CPU
/// time, and its wall time.
pub struct Finished {
    pub reaped: Reaped,
    pub wall_s: f64,
}

/// What becomes of a child's process group once the child has ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leftovers {
    /// Whatever it started and left behind goes with it.
    Kill,
    /// It started a server that stays in the background (lmbench's `-s`).
    Keep,
}

/// Run `cmd` in a process group of its own, its standard output and error into the file
/// `out`, until it ends or the user asks to stop; `None` when stopped (the whole group
/// killed and reaped). Past `limit` of wall-clock time the whole group is killed too, and
/// that is an error naming the bound.
///
/// # Timing model
/// Wall time from just before the spawn to the reap that finds it ended, polled every
/// 5 ms: a tool's own figure comes from its output, and this wall time only divides its
/// CPU time (wait4's rusage of it and every descendant it reaped) into the share of its
/// CPU it had, where 5 ms in runs of seconds does not matter.
pub fn run_stoppable(
    cmd: &mut Command,
    out: &Path,
    limit: Duration,
    leftovers: Leftovers,
) -> Result<Option<Finished>> {
    let file = std::fs::File::create(out)?;
    cmd.stdin(Stdio::null())
        .stdout(file.try_clone()?)
        .stderr(file);
    procgroup::in_own_group(cmd);
    let start = Instant::now();
    // Reaped by pid with wait4 (for its rusage), not through `Child`.
    let pid = cmd.spawn()?.id() as i32;
    loop {
        if let Some(reaped) = procgroup::try_reap(pid)? {
            let wall_s = start.elapsed().as_secs_f64();
            if leftovers == Leftovers::Kill {
                procgroup::kill_group(pid);
            }
            return Ok(Some(Finished { reaped, wall_s }));
        }
        if interrupt::requested() {
            stop_group(pid);
            return Ok(None);
        }
        if start.elapsed() > limit {
            stop_group(pid);
            bail!(
                "{} did not end within {} s (a server that never answered? its whole \
                 process group was killed)",
                Path::new(cmd.get_program()).display(),
                limit.as_secs_f64()
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Stop the group led by `pid`: SIGTERM (a timeshare row then removes its scratch
/// directory), a second to end, then SIGKILL to all of it, and reap the leader.
pub fn stop_group(pid: i32) {
    procgroup::terminate_group(pid);
    let deadline = Instant::now() + Duration::from_secs(1);
    let mut reaped = false;
    while !reaped && Instant::now() < deadline {
        reaped = matches!(procgroup::try_reap(pid), Ok(Some(_)) | Err(_));
        std::thread::sleep(Duration::from_millis(5));
    }
    procgroup::kill_group(pid);
    if !reaped {
        let _ = procgroup::reap_blocking(pid);
    }
    procgroup::wait_groups_gone(&[pid], Duration::from_secs(2));
}

/// A tool's server, started before its pairs and ended when dropped: with the tool's
/// own stop command (lmbench), or by ending the process group of the child it is
/// (iperf3).
pub struct ToolServer<'a> {
    program: &'a Path,
    server: Server,
    env: &'a [(String, String)],
    net: &'a PrivateNet,
    scratch: &'a Path,
    /// The foreground server's pid, which leads its own process group.
    child: Option<i32>,
}

impl<'a> ToolServer<'a> {
    pub fn start(
        program: &'a Path,
        server: Server,
        env: &'a [(String, String)],
        net: &'a PrivateNet,
        scratch: &'a Path,
    ) -> Result<ToolServer<'a>> {
        let mut cmd = Command::new(program);
        cmd.args(server.start)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        net.apply_to_server(&mut cmd);
        let named = || format!("{} {}", program.display(), server.start.join(" "));
        let child = match server.runs {
            ServerRuns::Detached { .. } => {
                let started = run_stoppable(
                    &mut cmd,
                    &scratch.join("server.out"),
                    HELPER_LIMIT,
                    Leftovers::Keep,
                )
                .with_context(|| format!("cannot start {}'s server", program.display()))?;
                match started {
                    None => bail!("stopped while starting {}", named()),
                    Some(f) if f.reaped.end != procgroup::End::Exited(0) => {
                        bail!("{} failed ({:?})", named(), f.reaped.end)
                    }
                    Some(_) => None,
                }
            }
            ServerRuns::Foreground => {
                cmd.stderr(Stdio::null());
                procgroup::in_own_group(&mut cmd);
                // Reaped by pid when it is ended, not through `Child`.
                let pid = cmd
                    .spawn()
                    .with_context(|| format!("cannot start {}'s server", program.display()))?
                    .id() as i32;
                Some(pid)
            }
        };
        // lmbench's server forks into the background and then binds its socket; iperf3
        // binds its own after it starts.
        std::thread::sleep(std::time::Duration::from_millis(300));
        if let Some(pid) = child {
            if let Ok(Some(r)) = procgroup::try_reap(pid) {
                procgroup::kill_group(pid);
                bail!(
                    "{} ended at once ({:?}; is its port taken?)",
                    named(),
                    r.end
                );
            }
        }
        // The kill -9 tests stop crosscheck here, its server up and no client yet.
        crate::model::testpause::at("server");
        Ok(ToolServer {
            program,
            server,
            env,
            net,
            scratch,
            child,
        })
    }
}

impl Drop for ToolServer<'_> {
    fn drop(&mut self) {
        match (self.server.runs, self.child) {
            (_, Some(pid)) => {
                procgroup::kill_group(pid);
                let _ = procgroup::reap_blocking(pid);
                procgroup::wait_groups_gone(&[pid], Duration::from_secs(2));
            }
            (ServerRuns::Detached { stop }, None) => {
                // Bounded and stoppable; whatever it leaves running ends with the
                // private network's namespace.
                let mut cmd = Command::new(self.program);
                cmd.args(stop).envs(self.env.iter().map(|(k, v)| (k, v)));
                self.net.apply(&mut cmd);
                let _ = run_stoppable(
                    &mut cmd,
                    &self.scratch.join("server.out"),
                    HELPER_LIMIT,
                    Leftovers::Kill,
                );
            }
            (ServerRuns::Foreground, None) => {}
        }
    }
}

/// `built` compiled with the C compiler at `cc` into `scratch` (once: a later pair finds
/// it built); the program's path.
pub fn build_c(cc: &Path, built: anchor::BuiltFromC, scratch: &Path) -> Result<PathBuf> {
    let program = scratch.join(built.name);
    if program.exists() {
        return Ok(program);
    }
    let source = scratch.join(format!("{}.c", built.name));
    std::fs::write(&source, built.source)?;
    let out = Command::new(cc)
        .arg("-O2")
        .arg("-o")
        .arg(&program)
        .arg(&source)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run {}", cc.display()))?;
    if !out.status.success() {
        bail!(
            "{} could not build {}: {}",
            cc.display(),
            built.name,
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("")
        );
    }
    Ok(program)
}

/// The tool's private view of the fixed directory it uses, with the program it executes
/// put there (see [`crate::harness::toolview`]); `None` for a tool that uses none.
pub fn tool_view(a: &Anchor, scratch: &Path) -> Result<Option<PrivateView>> {
    let Some(dir) = a.dir else { return Ok(None) };
    let view = PrivateView::new(Path::new(dir), scratch)
        .with_context(|| format!("cannot give {} a private {dir}", a.tool))?;
    if let Some(f) = a.exec_file {
        view.place_program(f.name, f.image)?;
    }
    Ok(Some(view))
}

/// One run of the tool: its figure in seconds per row operation, and the share of its CPU
/// it had (CPU time of it and its children over its wall time); `None` when the user
/// stopped it.
pub fn run_tool(
    program: &Path,
    a: &Anchor,
    file: Option<&Path>,
    env: &[(String, String)],
    scratch: &Path,
    net: &PrivateNet,
    view: Option<&PrivateView>,
) -> Result<Option<(f64, f64)>> {
    let out = scratch.join("tool.out");
    let mut cmd = Command::new(program);
    cmd.args(a.args_with(file))
        .envs(env.iter().map(|(k, v)| (k, v)));
    // The network first: the view's mount namespace is then made inside it.
    net.apply(&mut cmd);
    if let Some(view) = view {
        view.apply(&mut cmd)?;
    }
    let Some(done) = run_stoppable(&mut cmd, &out, TOOL_LIMIT, Leftovers::Kill)
        .with_context(|| format!("cannot run {}", program.display()))?
    else {
        return Ok(None);
    };
    let cpu = done.reaped.user_s + done.reaped.system_s;
    let text = String::from_utf8_lossy(&std::fs::read(&out)?).into_owned();
    let figure = a.seconds_per_row_op(&text).with_context(|| {
        let last = text.lines().last().unwrap_or("(no output)");
        format!(
            "{} printed no figure ({:?}): {last}",
            a.tool, done.reaped.end
        )
    })?;
    Ok(Some((figure, cpu / done.wall_s.max(1e-9))))
}

/// lmbench's calibration: the one kept for this machine (younger than
/// `calibration::KEEP_DAYS`), else measured and kept. With any of its variables already
/// in the environment, those win, the rest is measured, and nothing is kept.
pub fn kept_lmbench_calibration(scratch: &Path, recalibrate: bool) -> Vec<(String, String)> {
    let machine = calibration::machine_key();
    let path = calibration::default_path();
    let in_env = ["ENOUGH", "TIMING_O", "LOOP_O"]
        .iter()
        .any(|v| std::env::var_os(v).is_some());
    if !(recalibrate || in_env) {
        if let Some(kept) = path
            .as_deref()
            .and_then(|p| calibration::load(p, &machine, crate::model::wallclock::now()))
        {
            eprintln!(
                "crosscheck: lmbench's timing calibration kept for this machine ({}; \
                 --recalibrate measures it again)",
                path.as_deref()
                    .map_or(String::new(), |p| p.display().to_string())
            );
            return kept;
        }
    }
    eprintln!("crosscheck: lmbench's timing calibration, once (enough, timing_o, loop_o) …");
    let measured = lmbench_calibration(scratch);
    // lmbench's `enough` asks for longer intervals on a busy machine: a calibration taken
    // with more runnable work than CPUs is used once, not kept for the next month.
    let busy = <procfs::LoadAverage as procfs::Current>::current()
        .map_or(true, |l| l.one as f64 > calibration::online_cpus() as f64);
    if busy {
        eprintln!("crosscheck: the machine was busy (load above its CPUs): calibration not kept");
    }
    if !in_env && !busy && measured.len() == 3 {
        if let Some(p) = &path {
            if let Err(e) = calibration::save(p, &machine, &measured) {
                eprintln!("crosscheck: {e:#}");
            }
        }
    }
    measured
}

/// lmbench's calibration as its run script does it: `ENOUGH`, `TIMING_O` and `LOOP_O`
/// from its `enough`, `timing_o` and `loop_o` programs (kept from the environment when
/// set there). A program that is missing or prints no number leaves its variable unset,
/// and the lmbench programs then calibrate themselves as usual.
fn lmbench_calibration(scratch: &Path) -> Vec<(String, String)> {
    [
        ("ENOUGH", "enough"),
        ("TIMING_O", "timing_o"),
        ("LOOP_O", "loop_o"),
    ]
    .into_iter()
    .filter_map(|(var, program)| {
        if let Ok(v) = std::env::var(var) {
            return Some((var.to_string(), v));
        }
        let path = anchor::locate(program)?;
        let out = scratch.join("calibration.out");
        run_stoppable(&mut Command::new(path), &out, HELPER_LIMIT, Leftovers::Kill).ok()??;
        let text = std::fs::read_to_string(&out).ok()?;
        let v = text.split_whitespace().next()?;
        v.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .map(|_| (var.to_string(), v.to_string()))
    })
    .collect()
}

/// A file of `bytes` bytes, written `block` bytes at a time, as the row writes its own,
/// and read back so its pages are cached.
pub fn make_file(path: &Path, bytes: u64, block: usize) -> Result<()> {
    if path.metadata().is_ok_and(|m| m.len() == bytes) {
        return Ok(());
    }
    // Written a page at a time (vm.pagefault's file), the page cache holds single pages
    // and a fault maps its fault-around window; in 1 MiB blocks (the io.bw and vm.mmap
    // files) it holds large folios, which made lat_pagefault a ninth as long and
    // bw_file_rd 1.2–1.45 times as fast here.
    let chunk = vec![7u8; block.max(1)];
    let mut f = std::fs::File::create(path)?;
    let mut left = bytes;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        std::io::Write::write_all(&mut f, &chunk[..n])?;
        left -= n as u64;
    }
    f.sync_all()?;
    std::fs::read(path)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_past_its_bound_is_killed_with_its_whole_group_and_named() {
        let scratch = tempfile::tempdir().unwrap();
        let pidfile = scratch.path().join("grandchild");
        // A child that never ends, with a grandchild in its group that never ends
        // either: both must be gone once the bound is past.
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("sleep 300 & echo $! > {}; wait", pidfile.display()));
        let start = Instant::now();
        let e = run_stoppable(
            &mut cmd,
            &scratch.path().join("out"),
            Duration::from_millis(500),
            Leftovers::Kill,
        )
        .err()
        .expect("past its bound");
        assert!(start.elapsed() < Duration::from_secs(10), "not bounded");
        assert!(
            format!("{e:#}").contains("sh did not end within 0.5 s"),
            "{e:#}"
        );
        let grandchild = std::fs::read_to_string(&pidfile).unwrap();
        let alive = Path::new(&format!("/proc/{}", grandchild.trim())).exists()
            && !std::fs::read_to_string(format!("/proc/{}/stat", grandchild.trim()))
                .unwrap_or_default()
                .contains(") Z");
        assert!(!alive, "the grandchild outlived the bound");
    }

    #[test]
    fn a_child_that_ends_in_time_is_its_figure() {
        let scratch = tempfile::tempdir().unwrap();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo 42"]);
        let done = run_stoppable(
            &mut cmd,
            &scratch.path().join("out"),
            Duration::from_secs(60),
            Leftovers::Kill,
        )
        .unwrap()
        .unwrap();
        assert_eq!(done.reaped.end, procgroup::End::Exited(0));
        assert_eq!(
            std::fs::read_to_string(scratch.path().join("out")).unwrap(),
            "42\n"
        );
    }
}
