//! One `timeshare observe`: the span (a duration, or a command's life), and everything
//! watched over it — the rates ([`super::system`]), the call mix ([`super::callmix`]),
//! the kernel profile ([`super::kprofile`]) — put together as a
//! [`SystemObservation`]. Ctrl-C, TERM or HUP end the span early and keep what was
//! measured (the observation is then marked incomplete); a command still running is sent
//! TERM, then KILL after five seconds.
//!
//! Called a span, not a session: a session is a run's ([`crate::harness::Session`]).

use std::cell::RefCell;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use chrono::Utc;

use super::caches::CacheCounting;
use super::callmix::CallCounting;
use super::kprofile::{KernelRecording, OBSERVE_HZ};
use super::system::{Series, SeriesOutcome};
use super::tally::{CallTimes, LeaveOut, Processes};
use crate::harness::contract::Host;
use crate::harness::interrupt;
use crate::model::observation::subsystem::{NetShares, SyscallTracing};
use crate::model::observation::{
    CommandExit, NetworkShare, ObserverCost, Part, Rates, SeriesLine, Span, SystemObservation,
    FORMAT, VERSION,
};
use crate::model::{testpause, wallclock};

/// What to observe, and how.
#[derive(Debug, Clone)]
pub struct Plan {
    pub span: PlanSpan,
    pub interval: Duration,
    pub parts: Parts,
    pub label: Option<String>,
    /// How often the aggregates are handed to a [`Keeper`] (a minute; less in tests).
    pub keep_every: Duration,
}

/// Where an observation is kept as it goes (the store, for `observe`): every line of
/// the rates as it is taken, and every [`Plan::keep_every`] the observation so far,
/// marked partial, so that a killed observer loses only the last stretch.
pub trait Keeper {
    /// Lines `first`, `first + 1`… of the rates.
    fn lines(&mut self, first: usize, lines: &[SeriesLine]) -> Result<()>;
    /// The observation so far (its lines left out: they went to [`Keeper::lines`]).
    fn so_far(&mut self, o: &SystemObservation) -> Result<()>;
}

/// The parts of an observation that can be left out (the rates are always there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parts {
    pub calls: bool,
    /// Each call's time too (its exit traced as well as its entry), of every call or a
    /// sample.
    pub call_times: CallTimes,
    /// The page cache's reads (the filemap tracepoints).
    pub caches: bool,
    pub profile: bool,
}

impl Parts {
    pub const ALL: Parts = Parts {
        calls: true,
        call_times: CallTimes::DEFAULT,
        caches: true,
        profile: true,
    };
}

#[derive(Debug, Clone)]
pub enum PlanSpan {
    For(Duration),
    Command(Vec<String>),
    /// Beside a workload of this process, named by its command line, until `stop` is
    /// set ([`Beside`]).
    Workload {
        what: String,
        stop: Arc<AtomicBool>,
    },
}

/// An observation of the whole machine running on a thread of its own beside one of
/// timeshare's workloads (a run, an exercise): this process's calls count as the
/// workload's, apart from the rest of the machine, all but the observer's own threads'.
pub struct Beside {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Result<SystemObservation>>>,
}

impl Beside {
    /// Start observing the rates every `interval` and `parts` beside the workload
    /// `what` (its command line); `tell`: say on standard error what is watched.
    pub fn start(interval: Duration, what: String, parts: Parts, tell: bool) -> Result<Beside> {
        let stop = Arc::new(AtomicBool::new(false));
        let plan = Plan {
            span: PlanSpan::Workload {
                what,
                stop: Arc::clone(&stop),
            },
            interval,
            parts,
            label: None,
            keep_every: Duration::from_secs(60),
        };
        let thread = std::thread::Builder::new()
            .name("timeshare-observe".into())
            .spawn(move || {
                super::register_observer_thread();
                observe(
                    &plan,
                    &mut |line| {
                        if tell {
                            eprintln!("{line}")
                        }
                    },
                    None,
                )
            })
            .context("cannot start the observing thread")?;
        Ok(Beside {
            stop,
            thread: Some(thread),
        })
    }

    /// End the span (the workload is over) and return the observation.
    pub fn finish(mut self) -> Result<SystemObservation> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .take()
            .ok_or_else(|| anyhow::anyhow!("the observation was already finished"))?
            .join()
            .map_err(|_| anyhow::anyhow!("the observing thread panicked"))?
    }
}

impl Drop for Beside {
    /// A workload that ended in an error still ends the observation, so that `perf
    /// record` and the tracepoints are stopped and closed before the process exits.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Observe the machine as `plan` says. `progress` is told, once, what is being watched;
/// `keeper`, if any, is handed the observation as it goes.
pub fn observe(
    plan: &Plan,
    progress: &mut dyn FnMut(&str),
    mut keeper: Option<&mut dyn Keeper>,
) -> Result<SystemObservation> {
    let host = Host::detect();
    let mut notes = Vec::new();
    let environment = crate::harness::sysinfo::detect(&std::env::temp_dir());
    let parts = plan.parts;
    let calls = if parts.calls {
        // A command's tree is counted apart; a span of the whole machine keeps its calls
        // by command only, so that a day of short-lived processes fits in the maps.
        let (leave_out, processes) = match plan.span {
            PlanSpan::Workload { .. } => (LeaveOut::ObserverThreads, Processes::Apart),
            PlanSpan::Command(_) => (LeaveOut::ThisProcess, Processes::Apart),
            PlanSpan::For(_) => (LeaveOut::ThisProcess, Processes::Together),
        };
        CallCounting::start(
            host.is_root,
            leave_out,
            parts.call_times,
            processes,
            &mut notes,
        )
    } else {
        Err("not asked for (--no-calls)".to_string())
    };
    let pages = if parts.caches {
        CacheCounting::start(host.is_root, &mut notes)
    } else {
        Err("not asked for (--no-caches)".to_string())
    };
    let profile = if parts.profile {
        let tracing = if calls.is_ok() {
            SyscallTracing::On
        } else {
            SyscallTracing::Off
        };
        KernelRecording::start(
            host.find_program("perf"),
            host.is_root,
            OBSERVE_HZ,
            &mut notes,
        )
        .map(|r| r.while_tracing(tracing))
    } else {
        Err("not asked for (--no-profile)".to_string())
    };
    let series = Series::start(plan.interval, calls.as_ref().ok().map(|c| c.total()))?;
    let beside = matches!(plan.span, PlanSpan::Workload { .. });
    let cpu_before = observer_cpu_s(beside);
    let started_at = wallclock::now();
    let start = Instant::now();
    let on = |yes: bool| if yes { "on" } else { "off" };
    progress(&format!(
        "observing: rates every {} s; call mix: {}; page cache: {}; kernel profile: {}",
        plan.interval.as_secs_f64(),
        on(calls.is_ok()),
        on(pages.is_ok()),
        on(profile.is_ok()),
    ));
    testpause::at("observing");
    let mut going = Going {
        plan,
        started_at,
        start,
        environment: &environment,
        notes: &notes,
        sent: 0,
        last_kept: Instant::now(),
        failed: false,
    };
    if let Some(k) = keeper.as_deref_mut() {
        // The row first, so that even the first minute's lines have somewhere to go.
        k.so_far(&going.so_far(Sources::default(), 0.0))?;
    }
    // The observed command's process, once started: its tree is counted apart mid-way too.
    let root_so_far: RefCell<Option<(u32, String)>> = RefCell::new(None);
    let mut tick = || {
        let lines = series.fresh_lines();
        if let Some(k) = keeper.as_deref_mut() {
            let root = root_so_far.borrow();
            let sources = Sources {
                profile: profile.as_ref().ok(),
                calls: calls.as_ref().ok(),
                tree_root: root.as_ref(),
            };
            going.keep(k, &lines, sources, observer_cpu_s(beside) - cpu_before);
        }
    };
    let (span, tree_root) = match &plan.span {
        PlanSpan::For(d) => {
            wait(Some(Instant::now() + *d), || false, &mut tick);
            (
                Span::For {
                    seconds: d.as_secs_f64(),
                },
                None,
            )
        }
        PlanSpan::Workload { what, stop } => {
            let root = (std::process::id(), what.clone());
            *root_so_far.borrow_mut() = Some(root.clone());
            wait(None, || stop.load(Ordering::Relaxed), &mut tick);
            (
                Span::Workload {
                    what: what.clone(),
                    run: None,
                },
                Some(root),
            )
        }
        PlanSpan::Command(argv) => {
            // Its own process group, so that what it starts is stopped with it.
            let mut cmd = Command::new(&argv[0]);
            cmd.args(&argv[1..]).process_group(0);
            // The span is the command's: if the observer is killed, the command is told
            // to end (TERM, as a Ctrl-C passes on), not left running unobserved.
            // SAFETY: prctl is async-signal-safe and touches no memory of the parent's.
            unsafe {
                cmd.pre_exec(|| {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM, 0, 0, 0);
                    Ok(())
                });
            }
            let mut child = cmd
                .spawn()
                .with_context(|| format!("cannot start {}", argv[0]))?;
            let root = (child.id(), command_name(&argv[0]));
            *root_so_far.borrow_mut() = Some(root.clone());
            let exit = wait_child(&mut child, &mut tick);
            kill_group(child.id());
            let exit = exit?;
            (
                Span::Command {
                    argv: argv.clone(),
                    exit,
                },
                Some(root),
            )
        }
    };
    testpause::at("ending");
    let sent = going.sent;
    let interrupted = interrupt::requested();
    let duration_s = start.elapsed().as_secs_f64();
    let finished_at = wallclock::now();
    let outcome = series.stop()?;
    let perf_pid = recorder_pids(profile.as_ref().ok());
    let calls = match calls {
        Ok(c) => c
            .stop(tree_root, &perf_pid)
            .map_or_else(|e| Part::unavailable(format!("{e:#}")), Part::Measured),
        Err(why) => Part::unavailable(why),
    };
    let pages = pages.and_then(|p| p.stop().map_err(|e| format!("{e:#}")));
    let observer_cpu_s = observer_cpu_s(beside) - cpu_before;
    let (profile, net_shares) = match profile {
        Ok(p) => match p.stop() {
            Ok((p, net)) => (Part::Measured(p), Some(net)),
            Err(e) => (Part::unavailable(format!("{e:#}")), None),
        },
        Err(why) => (Part::unavailable(why), None),
    };
    let profiler_cpu_s = profile.measured().map_or(0.0, |p| p.profiler_cpu_s);
    let network = network_share(&outcome, net_shares);
    let rates = rates_of(&outcome, plan.interval);
    let o = SystemObservation {
        format: FORMAT.into(),
        version: VERSION,
        started_at,
        finished_at,
        duration_s,
        span,
        complete: !interrupted,
        partial: false,
        label: plan.label.clone(),
        environment,
        rates,
        calls,
        profile,
        caches: super::caches::figures(&pages),
        network,
        overhead: ObserverCost {
            observer_cpu_s,
            share_of_one_cpu: observer_cpu_s / duration_s.max(1e-6),
            profiler_cpu_s,
        },
        notes,
    };
    if let Some(k) = keeper {
        // The lines not yet kept (the last, partial one at least), then the whole.
        k.lines(sent, o.rates.lines.get(sent..).unwrap_or_default())?;
        testpause::at("store");
        k.so_far(&o)?;
    }
    Ok(o)
}

/// What an observation under way can be read from mid-way.
#[derive(Default)]
struct Sources<'a> {
    profile: Option<&'a KernelRecording>,
    calls: Option<&'a CallCounting>,
    tree_root: Option<&'a (u32, String)>,
}

/// The observer's own `perf record`, to leave out of the observed command's tree.
fn recorder_pids(profile: Option<&KernelRecording>) -> Vec<u32> {
    profile.and_then(KernelRecording::pid).into_iter().collect()
}

/// An observation under way, as a [`Keeper`] is told of it.
struct Going<'a> {
    plan: &'a Plan,
    started_at: chrono::DateTime<Utc>,
    start: Instant,
    environment: &'a crate::model::Environment,
    notes: &'a [String],
    /// Lines handed over so far.
    sent: usize,
    last_kept: Instant,
    /// The keeper failed once (said on stderr): the observation goes on unkept.
    failed: bool,
}

impl Going<'_> {
    fn keep(
        &mut self,
        k: &mut dyn Keeper,
        lines: &[SeriesLine],
        sources: Sources<'_>,
        observer_cpu_s: f64,
    ) {
        if self.failed {
            return;
        }
        let mut kept = k.lines(self.sent, lines);
        self.sent += lines.len();
        if kept.is_ok() && self.last_kept.elapsed() >= self.plan.keep_every {
            self.last_kept = Instant::now();
            kept = k.so_far(&self.so_far(sources, observer_cpu_s));
        }
        if let Err(e) = kept {
            self.failed = true;
            eprintln!("timeshare: cannot store the observation as it goes: {e:#}");
        }
    }

    /// What is known mid-way: the span so far, the profile of the windows folded, the
    /// call mix counted in the kernel so far, the observer's cost; the caches (and the
    /// call mix counted from perf's records) are read at the end.
    fn so_far(&self, sources: Sources<'_>, observer_cpu_s: f64) -> SystemObservation {
        let duration_s = self.start.elapsed().as_secs_f64();
        let at_end = "read when the observation ends: not stored while it goes";
        // Read only when kept (once a minute), not at each tick that hands over lines.
        let perf_pid = recorder_pids(sources.profile);
        let calls = match sources
            .calls
            .and_then(|c| c.so_far(sources.tree_root.cloned(), &perf_pid))
        {
            Some(Ok(mix)) => Part::Measured(mix),
            Some(Err(e)) => Part::unavailable(format!("{e:#}")),
            None => Part::unavailable(at_end),
        };
        let profile = sources.profile;
        SystemObservation {
            format: FORMAT.into(),
            version: VERSION,
            started_at: self.started_at,
            finished_at: wallclock::now(),
            duration_s,
            span: match &self.plan.span {
                // Whole seconds: the row's span reads "for 120 s", not nine decimals.
                PlanSpan::For(_) => Span::For {
                    seconds: duration_s.round(),
                },
                PlanSpan::Command(argv) => Span::Command {
                    argv: argv.clone(),
                    exit: CommandExit::Unknown,
                },
                PlanSpan::Workload { what, .. } => Span::Workload {
                    what: what.clone(),
                    run: None,
                },
            },
            complete: false,
            partial: true,
            label: self.plan.label.clone(),
            environment: self.environment.clone(),
            rates: Rates {
                interval_s: self.plan.interval.as_secs_f64(),
                columns: super::system::columns(self.plan.parts.calls),
                lines: Vec::new(),
                disks: Vec::new(),
                interfaces: Vec::new(),
                terminal: None,
            },
            calls,
            profile: profile.map_or_else(
                || Part::unavailable("not recorded"),
                |p| Part::Measured(p.so_far()),
            ),
            caches: Vec::new(),
            network: NetworkShare::default(),
            overhead: ObserverCost {
                observer_cpu_s,
                share_of_one_cpu: observer_cpu_s / duration_s.max(1e-6),
                profiler_cpu_s: 0.0,
            },
            notes: self.notes.to_vec(),
        }
    }
}

/// How long an observation sleeps between two looks at its lines, its keeping and its
/// end when nothing wakes it sooner (the command's end, a signal): a wake-up costs the
/// observer tens of microseconds on a VM, and over a day they add up.
const TICK: Duration = Duration::from_millis(250);

/// Sleep in steps of at most [`TICK`] until `end` (if any), until `done` says so or the
/// user asks to stop, calling `tick` at each.
fn wait(end: Option<Instant>, done: impl Fn() -> bool, tick: &mut dyn FnMut()) {
    while !done() && end.is_none_or(|e| Instant::now() < e) && !interrupt::requested() {
        tick();
        let left = end.map_or(TICK, |e| e.saturating_duration_since(Instant::now()));
        nap(None, left.min(TICK));
    }
}

/// Sleep for `most`, or until `pidfd`'s process ends or a signal comes.
fn nap(pidfd: Option<&OwnedFd>, most: Duration) {
    let fds: Vec<_> = pidfd.map(AsRawFd::as_raw_fd).into_iter().collect();
    super::stream::wait_readable(&fds, most);
}

/// A descriptor that becomes readable when the process `pid` (our own child) ends.
fn pidfd_of(pid: u32) -> Option<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    // SAFETY: a descriptor the kernel just gave us, owned by nothing else.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// Wait for the observed command; when the user asks to stop, pass TERM on (a Ctrl-C at
/// a terminal has reached it already), then KILL after five seconds.
fn wait_child(child: &mut Child, tick: &mut dyn FnMut()) -> Result<CommandExit> {
    use std::os::unix::process::ExitStatusExt;
    let mut told: Option<Instant> = None;
    // Without a pidfd (a kernel before 5.3) the end is seen at the next tick.
    let ended = pidfd_of(child.id());
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(match (status.code(), status.signal()) {
                (Some(code), _) => CommandExit::Status { code },
                (None, Some(signal)) => CommandExit::Signal { signal },
                _ => CommandExit::Unknown,
            });
        }
        if interrupt::requested() {
            match told {
                None => {
                    // Its own group does not get a terminal's Ctrl-C: pass TERM to
                    // the whole group.
                    // SAFETY: the group of our own unreaped child, which leads it.
                    unsafe { libc::kill(-(child.id() as i32), libc::SIGTERM) };
                    told = Some(Instant::now());
                }
                Some(t) if t.elapsed() > Duration::from_secs(5) => kill_group(child.id()),
                Some(_) => {}
            }
        }
        tick();
        nap(ended.as_ref(), TICK);
    }
}

/// KILL whatever is left in the observed command's process group (what it started
/// and left running when it ended, or what ignored TERM), so nothing outlives the span.
fn kill_group(leader: u32) {
    // SAFETY: kill has no memory preconditions; the group is the one our child was put
    // in, and ESRCH (nothing left) is the usual and harmless answer.
    unsafe { libc::kill(-(leader as i32), libc::SIGKILL) };
}

fn command_name(program: &str) -> String {
    std::path::Path::new(program)
        .file_name()
        .map_or(program.to_string(), |n| n.to_string_lossy().into_owned())
}

/// The CPU seconds the observer has used so far: beside a workload of this process, its
/// own threads' (the ended ones' and this one's); otherwise the whole process's.
fn observer_cpu_s(beside: bool) -> f64 {
    if beside {
        super::ended_observer_cpu_s() + super::thread_cpu_s()
    } else {
        own_cpu_s()
    }
}

/// This process's user and system CPU seconds, all threads.
fn own_cpu_s() -> f64 {
    // SAFETY: getrusage writes into the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above; RUSAGE_SELF is a valid selector.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn rates_of(o: &SeriesOutcome, interval: Duration) -> Rates {
    Rates {
        interval_s: interval.as_secs_f64(),
        columns: o.columns.clone(),
        lines: o.lines.clone(),
        disks: o.last.disks_since(&o.first),
        interfaces: o.last.interfaces_since(&o.first),
        terminal: Some(o.last.terminal_since(&o.first)),
    }
}

fn network_share(o: &SeriesOutcome, shares: Option<NetShares>) -> NetworkShare {
    let secs = o.last.seconds_since(&o.first);
    let d = |a: u64, b: u64| a.saturating_sub(b);
    NetworkShare {
        messages_in: d(o.last.ip_messages[0], o.first.ip_messages[0]),
        messages_out: d(o.last.ip_messages[1], o.first.ip_messages[1]),
        net_rx_softirqs_per_s: d(o.last.net_softirqs[0], o.first.net_softirqs[0]) as f64 / secs,
        net_tx_softirqs_per_s: d(o.last.net_softirqs[1], o.first.net_softirqs[1]) as f64 / secs,
        system_share: shares.map(|s| s.system),
        timer_share: shares.map(|s| s.timers),
        receive_share: shares.map(|s| s.receive),
    }
}
