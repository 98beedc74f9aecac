//! Ctrl-C, SIGTERM and SIGHUP (a closed terminal): the first one asks the run to stop after
//! cleaning up (benchmarks poll [`requested`] in long loops; the runner checks between
//! samples); another one, [`GRACE`] or more after the first, exits at once with 130.
//!
//! The grace period is there because one stop often arrives twice: `timeout` sends its
//! SIGTERM to the command and then to the command's whole process group, and a terminal's
//! Ctrl-C reaches every process of the foreground group. Without it the second copy, a
//! moment after the first, threw away what was measured and left children behind.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::sync::OnceLock;
use std::time::Duration;

/// The run stopped because the user asked it to; not a failure of the benchmark.
#[derive(Debug, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;

/// How long after the first stop signal another one is taken as the same request.
pub const GRACE: Duration = Duration::from_secs(1);

static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// CLOCK_MONOTONIC in ns when the first stop signal arrived; 0 before.
static FIRST_NS: AtomicU64 = AtomicU64::new(0);

/// CLOCK_MONOTONIC in ns, from within a signal handler (clock_gettime is
/// async-signal-safe).
fn monotonic_ns() -> u64 {
    // SAFETY: timespec is plain data that clock_gettime fills.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: a valid clock id and a valid timespec to write.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64).saturating_mul(1_000_000_000) + ts.tv_nsec as u64
}

/// Install the handlers; call once, early in `main`.
pub fn install() -> anyhow::Result<()> {
    let flag = FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)));
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    for sig in [SIGINT, SIGTERM, SIGHUP] {
        let flag = Arc::clone(flag);
        let handler = move || {
            let now = monotonic_ns().max(1);
            match FIRST_NS.compare_exchange(0, now, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => {}
                Err(first) if now.saturating_sub(first) >= GRACE.as_nanos() as u64 => {
                    signal_hook::low_level::exit(130)
                }
                Err(_) => {}
            }
            flag.store(true, Ordering::SeqCst);
        };
        // SAFETY: the handler only reads the clock, uses atomics and may call _exit, all
        // async-signal-safe.
        unsafe { signal_hook::low_level::register(sig, handler) }?;
    }
    Ok(())
}

/// True once the user asked the run to stop.
pub fn requested() -> bool {
    FLAG.get().is_some_and(|f| f.load(Ordering::Relaxed))
}
