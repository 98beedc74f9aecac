//! Ctrl-C, SIGTERM and SIGHUP (a closed terminal): the first one asks the run to stop after cleaning up (benchmarks
//! poll [`requested`] in long loops; the runner checks between samples); a second one
//! exits at once with 130.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::sync::OnceLock;

/// The run stopped because the user asked it to; not a failure of the benchmark.
#[derive(Debug, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;

static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// Install the handlers; call once, early in `main`.
pub fn install() -> anyhow::Result<()> {
    let flag = FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)));
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    for sig in [SIGINT, SIGTERM, SIGHUP] {
        // Registered first, so that it sees the flag as the previous signal left it.
        signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(flag))?;
        signal_hook::flag::register(sig, Arc::clone(flag))?;
    }
    Ok(())
}

/// True once the user asked the run to stop.
pub fn requested() -> bool {
    FLAG.get().is_some_and(|f| f.load(Ordering::Relaxed))
}
