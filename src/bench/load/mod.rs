//! §6 of the catalogue: many processes at once (seed 000, Brandt & Thompson 1975, Tables
//! 9, 10, 11 and Attachment C).
//!
//! - `load.cpu.N` (`cpu.rs`): N copies of a compute-bound program at once (Table 9).
//! - `load.script.N` (`script.rs`): N users running a command script, started at staggered
//!   intervals, with per-command accounting (Table 10, Attachment C).
//! - `load.iointerference.K` (`io.rs`): a compute-bound program alone and beside K
//!   sequential readers (Table 11).
//!
//! The rows of one kind share their work size and their single-copy baseline through
//! [`Shared`], so that `Inc` (average real at N / real at 1) compares like with like even
//! when the user selects only `load.cpu.10`: the baseline is then measured first.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::model::LoadOptions;

use super::Benchmark;

mod cpu;
mod io;
pub mod kernel;
pub mod knee;
pub mod script;

/// The options the registry is built from: set once by `run` before it asks for the
/// registry (the ids `load.cpu.N` depend on the lists the user gave).
static CONFIG: OnceLock<LoadOptions> = OnceLock::new();

/// Record the user's load options; later calls are ignored (one run per process).
pub fn configure(options: LoadOptions) {
    let _ = CONFIG.set(options);
}

fn config() -> LoadOptions {
    CONFIG.get().cloned().unwrap_or_default()
}

pub fn all() -> Vec<Box<dyn Benchmark>> {
    let o = config();
    let mut all: Vec<Box<dyn Benchmark>> = Vec::new();
    all.extend(o.copies().into_iter().map(cpu::row));
    all.extend(o.users().into_iter().map(script::row));
    all.extend(o.readers().into_iter().map(io::row));
    all
}

/// An id that lives as long as the program (ids are `&'static str`; these are built from
/// the user's lists once per run).
fn leak_id(id: String) -> &'static str {
    Box::leak(id.into_boxed_str())
}

/// Figures shared between the rows of a run: calibrated work sizes and baselines, keyed by
/// everything they depend on.
#[derive(Default)]
pub struct Shared {
    values: HashMap<String, f64>,
    works: HashMap<String, kernel::Work>,
    /// (N, Inc) of the `load.cpu` rows measured so far, for the knee.
    pub cpu_incs: Vec<(usize, f64)>,
}

pub fn shared() -> std::sync::MutexGuard<'static, Shared> {
    static SHARED: OnceLock<Mutex<Shared>> = OnceLock::new();
    SHARED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    pub fn get(&self, key: &str) -> Option<f64> {
        self.values.get(key).copied()
    }
    pub fn set(&mut self, key: &str, value: f64) {
        self.values.insert(key.to_string(), value);
    }
}

/// The value under `key`, computed by `make` the first time (outside the lock: `make` may
/// take seconds).
pub fn remembered(key: &str, make: impl FnOnce() -> anyhow::Result<f64>) -> anyhow::Result<f64> {
    if let Some(v) = shared().get(key) {
        return Ok(v);
    }
    let v = make()?;
    shared().set(key, v);
    Ok(v)
}

/// The calibrated work under `key`, calibrated by `make` the first time.
pub fn remembered_work(
    key: &str,
    make: impl FnOnce() -> anyhow::Result<kernel::Work>,
) -> anyhow::Result<kernel::Work> {
    if let Some(w) = shared().works.get(key) {
        return Ok(*w);
    }
    let w = make()?;
    shared().works.insert(key.to_string(), w);
    Ok(w)
}

/// The median of `v` (which must not be empty).
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    crate::model::stats::median_of_sorted(&s)
}

/// A progress line on standard error while copies run, only when it is a terminal,
/// at most once a second, drawn by the parent between waits (no ticking thread).
pub struct Ticker {
    label: String,
    started: std::time::Instant,
    last: Option<std::time::Instant>,
    enabled: bool,
}

impl Ticker {
    pub fn new(label: &str) -> Ticker {
        use std::io::IsTerminal;
        Ticker {
            label: label.to_string(),
            started: std::time::Instant::now(),
            last: None,
            enabled: std::io::stderr().is_terminal(),
        }
    }

    pub fn tick(&mut self, done: usize, total: usize, what: &str) {
        let now = std::time::Instant::now();
        if !self.enabled
            || self
                .last
                .is_some_and(|l| now - l < std::time::Duration::from_secs(1))
        {
            return;
        }
        self.last = Some(now);
        eprint!(
            "\r\x1b[K  {}: {:.0} s, {done}/{total} {what} done",
            self.label,
            (now - self.started).as_secs_f64()
        );
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        if self.enabled && self.last.is_some() {
            eprint!("\r\x1b[K");
        }
    }
}
