//! §2 `signal`: seed 001's `signocsw` and `csw` (Table 1/2, Appendix A), the PERQ note's
//! Kashtan kt8 and kt7, and the derived context-switch cost.
//!
//! # Timing model
//! `signal.self`: one operation = one SIGUSR1 sent to the calling thread (tgkill) and its
//! handler run on the way back from the system call. `signal.pingpong`: one operation = a
//! round trip: the parent signals the child and sleeps in sigsuspend until the child's
//! handler has run and signalled back — two signals with handlers and two context
//! switches. Hence 001's `overhead = t1 − 2 × t2`: `ctx.switch` = pingpong − 2 × self is
//! what switching costs per round trip (two switches).
//!
//! `signal.catch` is lmbench's `lat_sig catch`: what catching costs beyond sending. Each
//! sample times a batch of signals sent to oneself and handled, then a batch of the same
//! call with signal 0 (the permission check and the system call, nothing delivered), and
//! its figure is the difference per signal. `signal.self` includes the sending: the seed's
//! signocsw timed the whole kill and its handler.
//!
//! Signals are sent to a thread (tgkill), not to the process, so that in a process with
//! other threads the handler runs on the measuring thread. Each side checks that its
//! handler really ran once per signal.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{bail, Result};

use super::micro::berkeley;
use crate::harness::anchor::{Anchor, Parse};
use crate::harness::children::{Pair, Partner};
use crate::harness::clock;
use crate::harness::contract::{Batch, Benchmark, Ctx, Derived, OwnFigures, Plan, Workload};
use crate::harness::interrupt;
use crate::harness::interrupt::Interrupted;
use crate::harness::rusage::{this_thread, Usage};
use crate::model::{Basis, Details, Mode, OpTimes, Source, Unit};

/// The family's section of `docs/benchmarks.md`.
#[linkme::distributed_slice(crate::model::catalogue::SECTIONS)]
fn section() -> crate::model::catalogue::Section {
    crate::model::catalogue::Section {
        order: 20,
        family: "signal",
        heading: "`signal` — signals and the context switch",
        seeds:
            "Seed 001 (Berkeley) Table 1/2: `signocsw` and `csw`; seed 003's Kashtan kt7 and kt8.",
    }
}

/// The family's place in the catalogue: registered here, gathered by
/// [`crate::bench::Registry`].
#[linkme::distributed_slice(crate::bench::FAMILIES)]
fn family() -> crate::bench::Family {
    crate::bench::Family {
        derived,
        ..crate::bench::Family::rows("signal", 20, |_| all())
    }
}

pub fn all() -> Vec<Benchmark> {
    rows()
}

fn rows() -> Vec<Benchmark> {
    vec![
        Benchmark::new(
            "signal.self",
            "send SIGUSR1 to yourself and run its handler (001 signocsw; PERQ kt8)",
            berkeley("Table 1/2: signocsw; also 003 Kashtan kt8"),
            prepare_self,
        )
        .per("signal to oneself"),
        Benchmark::new(
            "signal.catch",
            "catch a signal sent to yourself, less the cost of sending it (lmbench lat_sig catch)",
            Source::Modern("lmbench's lat_sig catch: kill(self, SIGUSR1) less kill(self, 0)"),
            prepare_catch,
        )
        .with_plan(catch_plan)
        .per("signal caught")
        .anchor(Anchor::lmbench(
            "lmbench lat_sig catch",
            "lat_sig",
            &["catch"],
            Parse::LmbenchMicroseconds,
            "per signal caught: kill(getpid(), SIGUSR1) and its handler less kill(getpid(), 0)",
        )),
        Benchmark::new(
            "signal.pingpong",
            "round trip of signals between two processes: 2 signals + 2 switches (001 csw; kt7)",
            berkeley("Table 1/2: csw; also 003 Kashtan kt7"),
            prepare_pingpong,
        )
        .partnered()
        .per("signal round trip"),
    ]
}

pub fn derived() -> Vec<Derived> {
    vec![Derived {
        id: "ctx.switch",
        about: "context-switch cost per signal round trip (two switches): \
                signal.pingpong − 2 × signal.self, 001's csw − 2 × signocsw",
        source: berkeley("Table 2 text: overhead = t1 − 2 × t2 (csw, signocsw)"),
        unit: Unit::SecondsPerOp,
        basis: Basis::per("signal round trip"),
        inputs: &["signal.pingpong", "signal.self"],
        compute: context_switch,
    }]
}

/// 001's formula: csw − 2 × signocsw.
pub fn context_switch(v: &[f64]) -> f64 {
    v[0] - 2.0 * v[1]
}

const SIG: libc::c_int = libc::SIGUSR1;

thread_local! {
    /// Signals handled on this thread (a copy of it lives on in a forked child).
    static HANDLED: Cell<u64> = const { Cell::new(0) };
}

/// Set by the SIGCHLD handler: the partner of a ping-pong died.
static CHILD_ENDED: AtomicBool = AtomicBool::new(false);

extern "C" fn count_signal(_: libc::c_int) {
    HANDLED.with(|c| c.set(c.get() + 1));
}

extern "C" fn note_child_end(_: libc::c_int) {
    CHILD_ENDED.store(true, Ordering::Relaxed);
}

fn handled() -> u64 {
    HANDLED.with(Cell::get)
}

fn tid() -> libc::pid_t {
    // SAFETY: no arguments.
    unsafe { libc::syscall(libc::SYS_gettid) as libc::pid_t }
}

/// Send SIG to one thread. Async-signal-safe.
fn tgkill(pid: libc::pid_t, tid: libc::pid_t) -> i64 {
    send(pid, tid, SIG)
}

/// tgkill with any signal; 0 checks that the thread exists and may be signalled, and
/// delivers nothing.
fn send(pid: libc::pid_t, tid: libc::pid_t, sig: libc::c_int) -> i64 {
    // SAFETY: integer arguments.
    unsafe { libc::syscall(libc::SYS_tgkill, pid, tid, sig) }
}

/// A handler installed for the workload's lifetime; the old one is put back on drop.
struct Handler {
    sig: libc::c_int,
    old: libc::sigaction,
}

impl Handler {
    fn install(sig: libc::c_int, f: extern "C" fn(libc::c_int)) -> Result<Handler> {
        // SAFETY: sigaction is plain data; the handlers touch only a thread-local counter
        // or an atomic flag.
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = f as *const () as usize;
            act.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut act.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, &act, &mut old) != 0 {
                bail!("sigaction({sig}): {}", std::io::Error::last_os_error());
            }
            Ok(Handler { sig, old })
        }
    }
}

impl Drop for Handler {
    fn drop(&mut self) {
        // SAFETY: restoring what sigaction reported.
        unsafe { libc::sigaction(self.sig, &self.old, std::ptr::null_mut()) };
    }
}

struct SelfSignal {
    pid: libc::pid_t,
    tid: libc::pid_t,
    _handler: Handler,
}

fn prepare_self(_: &Ctx) -> Result<Box<dyn Workload>> {
    Ok(Box::new(SelfSignal {
        pid: std::process::id() as libc::pid_t,
        tid: tid(),
        _handler: Handler::install(SIG, count_signal)?,
    }))
}

impl Workload for SelfSignal {
    fn run(&mut self, n: u64) -> Result<()> {
        let before = handled();
        for _ in 0..n {
            if tgkill(self.pid, self.tid) != 0 {
                bail!("tgkill(self, SIGUSR1): {}", std::io::Error::last_os_error());
            }
        }
        let got = handled() - before;
        if got != n {
            bail!("sent {n} signals to myself but the handler ran {got} times");
        }
        Ok(())
    }
}

/// Signals per sample of `signal.catch`: a sample lasts about 1.5 ms here (2.5 µs a signal
/// caught, 0.5 µs a signal 0), far above the clock's resolution and short enough that few
/// are preempted. Fixed, not calibrated, so that every call of `run` is a sample and the
/// figures line up with the samples.
const CATCH_BATCH: u64 = 500;

fn catch_plan(mode: Mode) -> Plan {
    Plan {
        batch: Batch::Fixed(CATCH_BATCH),
        warmup: false,
        subtract_loop: false,
        ..Plan::calibrated(mode)
    }
}

/// `signal.catch`: per sample, n signals sent and caught, then n signals 0 sent, each
/// batch timed on its own; the figure is their difference per signal.
struct Catch {
    pid: libc::pid_t,
    tid: libc::pid_t,
    _handler: Handler,
    /// Seconds per signal caught beyond sending, one per sample.
    figures: Vec<f64>,
    /// Thread CPU time of the batches that caught.
    caught_cpu: Usage,
    signals: u64,
}

fn prepare_catch(_: &Ctx) -> Result<Box<dyn Workload>> {
    Ok(Box::new(Catch {
        pid: std::process::id() as libc::pid_t,
        tid: tid(),
        _handler: Handler::install(SIG, count_signal)?,
        figures: Vec::new(),
        caught_cpu: Usage::default(),
        signals: 0,
    }))
}

impl Catch {
    /// Send `n` signals `sig` to this thread; the nanoseconds it took.
    fn timed_batch(&self, n: u64, sig: libc::c_int) -> Result<u64> {
        let t0 = clock::now_ns();
        for _ in 0..n {
            if send(self.pid, self.tid, sig) != 0 {
                bail!("tgkill(self, {sig}): {}", std::io::Error::last_os_error());
            }
        }
        Ok(clock::now_ns().saturating_sub(t0))
    }
}

impl Workload for Catch {
    fn run(&mut self, n: u64) -> Result<()> {
        let before = handled();
        let u0 = this_thread();
        let caught_ns = self.timed_batch(n, SIG)?;
        let caught = this_thread().since(&u0);
        let sent_ns = self.timed_batch(n, 0)?;
        let got = handled() - before;
        if got != n {
            bail!("sent {n} signals to myself but the handler ran {got} times");
        }
        let per = n.max(1) as f64;
        self.figures
            .push((caught_ns as f64 - sent_ns as f64) * 1e-9 / per);
        self.caught_cpu = self.caught_cpu.plus(&caught);
        self.signals += n;
        Ok(())
    }

    fn own_figures(&mut self) -> Option<OwnFigures> {
        if self.figures.is_empty() {
            return None;
        }
        let elapsed_s = self.figures.iter().sum::<f64>() / self.figures.len() as f64;
        // The kernel splits a thread's CPU time into user and system by clock ticks, and a
        // batch is shorter than a tick: the difference of the two batches' splits is noise
        // (it came out at a fifth of the figure). The catching batches' own split, summed
        // over every sample, is steady; the figure is divided in its proportions.
        let cpu = self.caught_cpu.user_s + self.caught_cpu.system_s;
        let user_share = if cpu > 0.0 {
            self.caught_cpu.user_s / cpu
        } else {
            0.0
        };
        Some(OwnFigures {
            values: self.figures.clone(),
            times: OpTimes {
                ops: self.signals,
                elapsed_s,
                user_s: elapsed_s * user_share,
                system_s: elapsed_s * (1.0 - user_share),
            },
            note: format!(
                "per signal caught beyond sending, as lat_sig catch: each sample is {CATCH_BATCH} \
                 signals sent and handled less {CATCH_BATCH} signals 0 sent, timed apart \
                 (user and system time in the catching batches' proportions); signal.self \
                 includes the sending"
            ),
        })
    }
}

/// The thread's signal mask with `sigs` blocked; the old mask is put back on drop.
struct Blocked {
    old: libc::sigset_t,
}

impl Blocked {
    fn block(sigs: &[libc::c_int]) -> Result<Blocked> {
        // SAFETY: sigset_t is plain data.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for &s in sigs {
                libc::sigaddset(&mut set, s);
            }
            let mut old: libc::sigset_t = std::mem::zeroed();
            let r = libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
            if r != 0 {
                bail!("pthread_sigmask: {}", std::io::Error::from_raw_os_error(r));
            }
            Ok(Blocked { old })
        }
    }

    /// The mask to sleep with: the old one, with `sigs` open.
    fn open_mask(&self, sigs: &[libc::c_int]) -> libc::sigset_t {
        let mut m = self.old;
        for &s in sigs {
            // SAFETY: editing a copy.
            unsafe { libc::sigdelset(&mut m, s) };
        }
        m
    }
}

impl Drop for Blocked {
    fn drop(&mut self) {
        // SAFETY: restoring the mask we found.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut()) };
    }
}

/// Field order is drop order: the child dies before the mask and handlers are restored.
struct PingPong {
    partner: Partner,
    child_pid: libc::pid_t,
    sleep_mask: libc::sigset_t,
    _blocked: Blocked,
    _usr1: Handler,
    _chld: Handler,
}

fn prepare_pingpong(ctx: &Ctx) -> Result<Box<dyn Workload>> {
    let pair = Pair::resolve(ctx.options.placement, &ctx.host.usable_cpus)?;
    let usr1 = Handler::install(SIG, count_signal)?;
    let chld = Handler::install(libc::SIGCHLD, note_child_end)?;
    // Blocked before the fork, so that no signal can arrive between two sigsuspends; the
    // child inherits the mask.
    let blocked = Blocked::block(&[SIG, libc::SIGCHLD])?;
    let sleep_mask = blocked.open_mask(&[SIG, libc::SIGCHLD]);
    let (parent_pid, parent_tid) = (std::process::id() as libc::pid_t, tid());
    CHILD_ENDED.store(false, Ordering::Relaxed);
    let partner = Partner::start(pair, move || {
        // The child: wait for a signal, answer it, forever (killed by the parent's drop,
        // or by PDEATHSIG if the parent dies).
        loop {
            let seen = handled();
            while handled() == seen {
                // SAFETY: sigsuspend with a mask prepared before the fork.
                unsafe { libc::sigsuspend(&sleep_mask) };
            }
            if tgkill(parent_pid, parent_tid) != 0 {
                return 3;
            }
        }
    })?;
    let child_pid = partner.child.as_ref().map_or(0, |c| c.pid());
    Ok(Box::new(PingPong {
        partner,
        child_pid,
        sleep_mask,
        _blocked: blocked,
        _usr1: usr1,
        _chld: chld,
    }))
}

impl Workload for PingPong {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            let seen = handled();
            // A child thread group's leader has tid = pid.
            if tgkill(self.child_pid, self.child_pid) != 0 {
                let e =
                    anyhow::anyhow!("signalling the child: {}", std::io::Error::last_os_error());
                return Err(self.partner.explain(e));
            }
            while handled() == seen {
                if CHILD_ENDED.load(Ordering::Relaxed) {
                    self.partner.child_mut().check_alive("signal ping-pong")?;
                    CHILD_ENDED.store(false, Ordering::Relaxed);
                }
                if interrupt::requested() {
                    return Err(Interrupted.into());
                }
                // SAFETY: sleeps until a signal open in sleep_mask is handled.
                unsafe { libc::sigsuspend(&self.sleep_mask) };
            }
            self.partner.ops += 1;
        }
        Ok(())
    }

    fn notes(&self) -> Vec<String> {
        self.partner.notes()
    }

    fn details(&mut self) -> Option<Details> {
        Some(Details::of(&self.partner.finish_record()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_switch_is_the_seeds_formula() {
        // 001 Table 2, 4.1BSD: csw 45.0 s, signocsw 16.5 s → 12 s of switching.
        assert!((context_switch(&[45.0, 16.5]) - 12.0).abs() < 1e-9);
    }

    #[test]
    fn every_run_of_the_catching_row_is_a_sample() {
        // Own figures replace the samples one for one: a calibration or warm-up run would
        // add a figure no sample has, and the row would be refused.
        for mode in [Mode::Quick, Mode::Full] {
            let plan = catch_plan(mode);
            assert_eq!(plan.batch, Batch::Fixed(CATCH_BATCH), "{mode:?}");
            assert!(!plan.warmup, "{mode:?}");
        }
    }

    #[test]
    fn catching_gives_one_figure_per_sample_and_counts_every_signal() {
        // One at a time with the ping-pong test, whose handler for the same signal is
        // process-wide too.
        let _one_at_a_time = crate::bench::micro::testing::forking();
        let catching = || Catch {
            pid: std::process::id() as libc::pid_t,
            tid: tid(),
            _handler: Handler::install(SIG, count_signal).unwrap(),
            figures: Vec::new(),
            caught_cpu: Usage::default(),
            signals: 0,
        };
        let mut w = catching();
        for n in [50, 100, 200] {
            w.run(n).unwrap();
        }
        let own = w.own_figures().unwrap();
        assert_eq!(own.values.len(), 3);
        assert_eq!(own.times.ops, 350);
        let cpu = own.times.user_s + own.times.system_s;
        assert!((cpu - own.times.elapsed_s).abs() <= 1e-9 * own.times.elapsed_s.max(1.0));
        // Delivering and handling a signal is never free next to not delivering one: a
        // sign error or a swapped pair of batches would make the figures negative. One
        // sample is two batches timed apart, and a preemption inside the batch sending
        // signal 0 makes that sample negative on a busy machine (seen beside two busy
        // loops); the median of seven is not, and a sign error fails every attempt.
        let positive_median = |_| {
            let mut w = catching();
            (0..7).for_each(|_| w.run(200).unwrap());
            crate::model::stats::median(&w.own_figures().unwrap().values) > 0.0
        };
        assert!(
            (0..3).any(positive_median),
            "no attempt had a positive median"
        );
    }
}

#[cfg(test)]
mod scaling {
    use super::*;
    use crate::bench::micro::testing::{forking, with_ctx};
    use crate::model::Placement;

    /// Every round trip is one the child answered. (That twice the signals take about
    /// twice the time is a timing claim: `timeshare selftest signal.doubling`.)
    #[test]
    fn the_ping_pong_counts_every_round_trip() {
        let _one_at_a_time = forking();
        with_ctx(Placement::Same, |ctx| {
            let mut w = prepare_pingpong(ctx).unwrap();
            w.run(500).unwrap();
            w.run(250).unwrap();
            let d: crate::model::details::micro::Partnership = w.details().unwrap().read().unwrap();
            assert_eq!(d.child_cpu_time.unwrap().ops, 750);
        });
    }
}
