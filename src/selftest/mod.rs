//! `timeshare selftest`: the checks that need a quiet CPU, run on demand instead of in the
//! test suite.
//!
//! A benchmark's figure is only worth something if the loop really did its work: twice the
//! operations must take about twice the time (nothing was optimised away, every operation
//! was done), and a row that does more must not cost less (a longer path, a bigger parent,
//! a round trip through a child). Those claims are about timing, so on a busy machine a
//! test of them fails for reasons that have nothing to do with the code. The unit and
//! integration tests keep exact assertions on deterministic seams (counts, batch sizes, a
//! synthetic clock); the timing claims live here, measured with their own precautions:
//!
//! - pinned to one CPU (children inherit it), except checks that need every CPU;
//! - the measuring thread's CPU time where the work is its own (waiting for a CPU does not
//!   count), wall time where the work is another process's;
//! - the fastest of several repeats, interleaved so that every variant sees the same
//!   phases of the machine's load (other load only ever adds time);
//! - a check whose figures miss their bounds is measured again, up to `attempts` times.
//!
//! Each check reports its figures, their bounds and a verdict. Two sets of bounds: strict
//! (the claim as it holds on a quiet machine) and loose (wide enough for a machine busy
//! with other work, as CI's is, yet still failing when the work is plainly not done:
//! twice the operations in about the same time).

use std::time::Instant;

use anyhow::Result;

use crate::harness::interrupt::{self, Interrupted};
use crate::model::Mode;

mod aa;
mod checks;
pub mod timing;

pub use checks::all;

/// An interval a figure must fall in, ends excluded; infinite ends for one-sided claims.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub low: f64,
    pub high: f64,
}

impl Bounds {
    pub const fn between(low: f64, high: f64) -> Bounds {
        Bounds { low, high }
    }

    pub const fn above(low: f64) -> Bounds {
        Bounds {
            low,
            high: f64::INFINITY,
        }
    }

    pub const fn below(high: f64) -> Bounds {
        Bounds {
            low: f64::NEG_INFINITY,
            high,
        }
    }

    pub fn contains(&self, v: f64) -> bool {
        v.is_finite() && v > self.low && v < self.high
    }

    /// "1.6–2.5", "> 1.3", "< 1".
    pub fn describe(&self) -> String {
        match (self.low.is_finite(), self.high.is_finite()) {
            (true, true) => format!("{}–{}", self.low, self.high),
            (true, false) => format!("> {}", self.low),
            (false, true) => format!("< {}", self.high),
            (false, false) => "any".to_string(),
        }
    }
}

/// Which bounds a figure is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strictness {
    /// The claim as it holds on a quiet machine.
    Strict,
    /// Wide enough for a machine busy with other work.
    Loose,
}

/// One measured figure of a check, with the bounds the claim puts on it.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// What was measured: "fork: time(2n) / time(n)".
    pub name: String,
    pub value: f64,
    /// Shown after the value: "×" for ratios, "µs".
    pub unit: &'static str,
    pub strict: Bounds,
    pub loose: Bounds,
    /// The raw figures behind it, for the report: "n = 10: 1.21 ms, 2n: 2.40 ms".
    pub basis: String,
}

impl Figure {
    /// A ratio of two times.
    pub fn ratio(name: impl Into<String>, value: f64, strict: Bounds, loose: Bounds) -> Figure {
        Figure {
            name: name.into(),
            value,
            unit: "×",
            strict,
            loose,
            basis: String::new(),
        }
    }

    pub fn with_basis(mut self, basis: impl Into<String>) -> Figure {
        self.basis = basis.into();
        self
    }

    pub fn bounds(&self, s: Strictness) -> Bounds {
        match s {
            Strictness::Strict => self.strict,
            Strictness::Loose => self.loose,
        }
    }

    pub fn holds(&self, s: Strictness) -> bool {
        self.bounds(s).contains(self.value)
    }
}

/// What one measurement of a check gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Measured {
    Figures(Vec<Figure>),
    /// The check cannot be made here, and why (a busy machine for a check that needs
    /// every CPU idle, one CPU for a two-CPU claim).
    Skipped(String),
}

/// A check that cannot be made here (a row it needs cannot run on this machine): the
/// check is skipped with this reason.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CannotCheck(pub String);

/// How a check is measured.
#[derive(Debug, Clone, Copy)]
pub struct Env {
    pub mode: Mode,
    /// Repeats of each timing, of which the fastest counts.
    pub repeats: usize,
}

impl Env {
    pub fn new(mode: Mode) -> Env {
        Env {
            mode,
            repeats: match mode {
                Mode::Quick => 9,
                Mode::Full => 21,
            },
        }
    }
}

/// One check: a claim about the benchmarks' timing and how to measure it.
pub struct Check {
    /// `family.what`, e.g. `proc.doubling`.
    pub id: &'static str,
    /// The claim, one line: "twice the forks take about twice the time".
    pub claim: &'static str,
    /// Pinned to the selftest's CPU while it measures; false for a check that needs
    /// every CPU (concurrent copies).
    pub pinned: bool,
    pub measure: fn(&Env) -> Result<Measured>,
}

/// The end of a check.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Ok,
    /// Every attempt missed a bound.
    Failed,
    Skipped(String),
    /// The measurement itself failed (a workload's error): not noise, not retried.
    Error(String),
}

#[derive(Debug, Clone)]
pub struct Outcome {
    pub id: &'static str,
    pub claim: &'static str,
    /// Measurements made (1 when the first one held).
    pub attempts: usize,
    /// The figures of the last measurement.
    pub figures: Vec<Figure>,
    pub verdict: Verdict,
    pub seconds: f64,
}

/// How a selftest is run.
#[derive(Debug, Clone)]
pub struct Options {
    pub mode: Mode,
    pub strictness: Strictness,
    /// Measurements of a check before it is called failed (at least 1).
    pub attempts: usize,
    /// The CPU pinned checks run on.
    pub cpu: usize,
}

/// The checks `words` name (ids or prefixes at a dot: `proc` selects `proc.doubling`), in
/// registry order; every check when `words` is empty. Err names the first unknown word.
pub fn select<'a>(checks: &'a [Check], words: &[String]) -> Result<Vec<&'a Check>, String> {
    if words.is_empty() {
        return Ok(checks.iter().collect());
    }
    for w in words {
        if !checks.iter().any(|c| matches(c.id, w)) {
            return Err(w.clone());
        }
    }
    Ok(checks
        .iter()
        .filter(|c| words.iter().any(|w| matches(c.id, w)))
        .collect())
}

fn matches(id: &str, word: &str) -> bool {
    id == word
        || id
            .strip_prefix(word)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// Measure `check` until its figures hold or `options.attempts` measurements have missed.
/// Only an interrupt is an `Err`.
pub fn run_check(check: &Check, options: &Options) -> Result<Outcome, Interrupted> {
    let started = Instant::now();
    let env = Env::new(options.mode);
    let mut outcome = Outcome {
        id: check.id,
        claim: check.claim,
        attempts: 0,
        figures: Vec::new(),
        verdict: Verdict::Failed,
        seconds: 0.0,
    };
    let pinned = Pinned::to(check.pinned.then_some(options.cpu));
    while outcome.attempts < options.attempts.max(1) {
        if interrupt::requested() {
            return Err(Interrupted);
        }
        outcome.attempts += 1;
        match (check.measure)(&env) {
            Ok(Measured::Skipped(why)) => {
                outcome.verdict = Verdict::Skipped(why);
                break;
            }
            Ok(Measured::Figures(figures)) => {
                let held = figures.iter().all(|f| f.holds(options.strictness));
                outcome.figures = figures;
                if held {
                    outcome.verdict = Verdict::Ok;
                    break;
                }
            }
            Err(e) if e.downcast_ref::<Interrupted>().is_some() || interrupt::requested() => {
                return Err(Interrupted)
            }
            Err(e) if e.downcast_ref::<CannotCheck>().is_some() => {
                outcome.verdict = Verdict::Skipped(e.to_string());
                break;
            }
            Err(e) => {
                outcome.verdict = Verdict::Error(format!("{e:#}"));
                break;
            }
        }
    }
    drop(pinned);
    outcome.seconds = started.elapsed().as_secs_f64();
    Ok(outcome)
}

/// The process pinned to one CPU (or to every usable one) until dropped, when the CPUs it
/// could use before are given back.
struct Pinned {
    before: Vec<usize>,
}

impl Pinned {
    fn to(cpu: Option<usize>) -> Pinned {
        let before = crate::harness::cpu::usable_cpus();
        if let Some(cpu) = cpu {
            // A CPU that cannot be pinned to was refused before anything ran (check_usable).
            let _ = crate::harness::cpu::pin_to(&[cpu]);
        }
        Pinned { before }
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        let _ = crate::harness::cpu::pin_to(&self.before);
    }
}

/// The report of one check: its verdict line, then one line per figure.
/// The width of the checks' names in the printed lines, so that the claims line up: the
/// longest name's (`load.driver.overhead`-sized); a longer one only pushes its own line.
pub const ID_WIDTH: usize = 20;

pub fn render(o: &Outcome, strictness: Strictness) -> String {
    let verdict = match &o.verdict {
        Verdict::Ok => "ok",
        Verdict::Failed => "FAILED",
        Verdict::Skipped(_) => "skipped",
        Verdict::Error(_) => "ERROR",
    };
    let tries = if o.attempts > 1 {
        format!(", {} attempts", o.attempts)
    } else {
        String::new()
    };
    let mut s = format!(
        "{verdict:<7} {:<ID_WIDTH$}  {} ({:.1} s{tries})\n",
        o.id, o.claim, o.seconds
    );
    match &o.verdict {
        Verdict::Skipped(why) => s.push_str(&format!("        {why}\n")),
        Verdict::Error(e) => s.push_str(&format!("        {e}\n")),
        Verdict::Ok | Verdict::Failed => {}
    }
    // A check of many rows (every cpu kernel) shows the figures that missed, and sums up
    // the others in one line.
    let many = o.figures.len() > MANY;
    let mut held = Vec::new();
    for f in &o.figures {
        let holds = f.holds(strictness);
        if many && holds {
            held.push(f);
            continue;
        }
        let mark = if holds { " " } else { "!" };
        let mut line = format!(
            "      {mark} {}: {}{} (want {})",
            f.name,
            significant(f.value),
            f.unit,
            f.bounds(strictness).describe()
        );
        if !f.basis.is_empty() {
            line.push_str(&format!("; {}", f.basis));
        }
        s.push_str(&line);
        s.push('\n');
    }
    if let Some(first) = held.first() {
        let (lo, hi) = held
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), f| {
                (lo.min(f.value), hi.max(f.value))
            });
        s.push_str(&format!(
            "        {} {}within bounds: {}{} to {}{}\n",
            held.len(),
            if held.len() < o.figures.len() {
                "others "
            } else {
                "figures "
            },
            significant(lo),
            first.unit,
            significant(hi),
            first.unit
        ));
    }
    s
}

/// Beyond this many figures, a check's report lists only those that missed.
const MANY: usize = 8;

/// Three significant figures, no exponent for the magnitudes shown here.
fn significant(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let digits = if v.abs() >= 100.0 {
        0
    } else if v.abs() >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$}")
}

/// The closing line: "12 ok, 0 failed, 1 skipped in 41.2 s".
pub fn summary(outcomes: &[Outcome], seconds: f64) -> String {
    let count = |f: fn(&Verdict) -> bool| outcomes.iter().filter(|o| f(&o.verdict)).count();
    let ok = count(|v| matches!(v, Verdict::Ok));
    let failed = count(|v| matches!(v, Verdict::Failed | Verdict::Error(_)));
    let skipped = count(|v| matches!(v, Verdict::Skipped(_)));
    format!("{ok} ok, {failed} failed, {skipped} skipped in {seconds:.1} s")
}

/// True when any check failed or could not be measured.
pub fn any_failed(outcomes: &[Outcome]) -> bool {
    outcomes
        .iter()
        .any(|o| matches!(o.verdict, Verdict::Failed | Verdict::Error(_)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::atomic::{AtomicUsize, Ordering};

    const DOUBLE: (Bounds, Bounds) = (Bounds::between(1.6, 2.5), Bounds::between(1.3, 3.5));

    fn figure(value: f64) -> Figure {
        Figure::ratio("t(2n) / t(n)", value, DOUBLE.0, DOUBLE.1)
    }

    #[test]
    fn bounds_exclude_their_ends_and_anything_not_finite() {
        let b = Bounds::between(1.6, 2.5);
        assert!(b.contains(2.0) && !b.contains(1.6) && !b.contains(2.5));
        assert!(!b.contains(f64::NAN) && !Bounds::above(1.0).contains(f64::INFINITY));
        assert!(Bounds::above(1.3).contains(1.31) && !Bounds::above(1.3).contains(1.3));
        assert!(Bounds::below(1.0).contains(0.2) && !Bounds::below(1.0).contains(1.0));
        assert_eq!(b.describe(), "1.6–2.5");
        assert_eq!(Bounds::above(1.3).describe(), "> 1.3");
        assert_eq!(Bounds::below(1.0).describe(), "< 1");
    }

    #[test]
    fn loose_bounds_accept_what_strict_ones_refuse() {
        let f = figure(3.0);
        assert!(!f.holds(Strictness::Strict));
        assert!(f.holds(Strictness::Loose));
        // Work optimised away (about the same time for twice the operations) fails both.
        let f = figure(1.05);
        assert!(!f.holds(Strictness::Strict) && !f.holds(Strictness::Loose));
    }

    fn options(attempts: usize) -> Options {
        Options {
            mode: Mode::Quick,
            strictness: Strictness::Strict,
            attempts,
            cpu: crate::harness::cpu::usable_cpus()[0],
        }
    }

    fn check(measure: fn(&Env) -> Result<Measured>) -> Check {
        Check {
            id: "test.check",
            claim: "a claim",
            pinned: false,
            measure,
        }
    }

    static NOISY_CALLS: AtomicUsize = AtomicUsize::new(0);

    /// Misses twice (a burst of other load), then holds.
    fn noisy(_: &Env) -> Result<Measured> {
        let call = NOISY_CALLS.fetch_add(1, Ordering::SeqCst);
        Ok(Measured::Figures(vec![figure(if call < 2 {
            1.1
        } else {
            2.0
        })]))
    }

    #[test]
    fn a_check_is_measured_again_until_it_holds() {
        let o = run_check(&check(noisy), &options(3)).unwrap();
        assert_eq!(o.verdict, Verdict::Ok);
        assert_eq!(o.attempts, 3);
        assert_eq!(o.figures[0].value, 2.0, "the figures of the last attempt");
    }

    static BROKEN_CALLS: AtomicUsize = AtomicUsize::new(0);

    fn broken(_: &Env) -> Result<Measured> {
        BROKEN_CALLS.fetch_add(1, Ordering::SeqCst);
        Ok(Measured::Figures(vec![figure(1.0), figure(2.0)]))
    }

    #[test]
    fn a_check_that_never_holds_fails_after_every_attempt() {
        let o = run_check(&check(broken), &options(4)).unwrap();
        assert_eq!(o.verdict, Verdict::Failed);
        assert_eq!((o.attempts, BROKEN_CALLS.load(Ordering::SeqCst)), (4, 4));
        let text = render(&o, Strictness::Strict);
        // The name is padded to one column width, so the claims line up.
        assert!(text.starts_with("FAILED  test.check "), "{text}");
        assert!(text.contains(" a claim (0.0 s"), "{text}");
        assert!(text.contains("4 attempts"), "{text}");
        assert!(
            text.contains("! t(2n) / t(n): 1.00× (want 1.6–2.5)"),
            "{text}"
        );
        assert!(text.contains("  t(2n) / t(n): 2.00×"), "{text}");
        assert!(any_failed(&[o]));
    }

    #[test]
    fn a_skip_or_an_error_is_not_measured_again() {
        let o = run_check(
            &check(|_| Ok(Measured::Skipped("one CPU".into()))),
            &options(3),
        )
        .unwrap();
        assert_eq!(
            (o.verdict.clone(), o.attempts),
            (Verdict::Skipped("one CPU".into()), 1)
        );
        assert!(!any_failed(&[o]));
        let o = run_check(&check(|_| anyhow::bail!("the child died")), &options(3)).unwrap();
        assert_eq!(
            (o.verdict.clone(), o.attempts),
            (Verdict::Error("the child died".into()), 1)
        );
        assert!(render(&o, Strictness::Loose).contains("ERROR   test.check"));
        assert!(any_failed(&[o]));
    }

    #[test]
    fn a_check_of_many_figures_lists_only_those_that_missed() {
        let mut figures: Vec<Figure> = (0..20).map(|i| figure(1.9 + i as f64 * 0.01)).collect();
        figures[7] = Figure::ratio("cpu.bad", 1.02, DOUBLE.0, DOUBLE.1);
        let o = Outcome {
            id: "cpu.doubling",
            claim: "c",
            attempts: 3,
            figures,
            verdict: Verdict::Failed,
            seconds: 1.0,
        };
        let text = render(&o, Strictness::Strict);
        assert_eq!(text.lines().count(), 3, "{text}");
        assert!(text.contains("! cpu.bad: 1.02× (want 1.6–2.5)"), "{text}");
        assert!(
            text.contains("19 others within bounds: 1.90× to 2.09×"),
            "{text}"
        );
    }

    #[test]
    fn the_summary_counts_each_verdict() {
        let o = |verdict| Outcome {
            id: "x.y",
            claim: "c",
            attempts: 1,
            figures: vec![],
            verdict,
            seconds: 0.0,
        };
        let all = [
            o(Verdict::Ok),
            o(Verdict::Ok),
            o(Verdict::Failed),
            o(Verdict::Error("e".into())),
            o(Verdict::Skipped("s".into())),
        ];
        assert_eq!(summary(&all, 12.34), "2 ok, 2 failed, 1 skipped in 12.3 s");
    }

    #[test]
    fn check_ids_are_unique_and_selectable_by_family() {
        let checks = all();
        let mut seen = HashSet::new();
        for c in &checks {
            assert!(seen.insert(c.id), "duplicate check {}", c.id);
            assert!(c.id.contains('.') && !c.claim.is_empty(), "{}", c.id);
        }
        let proc = select(&checks, &["proc".to_string()]).unwrap();
        assert!(!proc.is_empty() && proc.iter().all(|c| c.id.starts_with("proc.")));
        assert_eq!(
            select(&checks, &["pro".to_string()]).err(),
            Some("pro".to_string())
        );
        assert_eq!(select(&checks, &[]).unwrap().len(), checks.len());
    }

    #[test]
    fn every_check_has_a_loose_bound_at_least_as_wide_as_its_strict_one() {
        // Checked on the figures a synthetic measurement would give: each bound pair is
        // declared in the checks, so build them through the same constructors.
        for (strict, loose) in checks::BOUNDS {
            assert!(
                loose.low <= strict.low && loose.high >= strict.high,
                "{strict:?} vs {loose:?}"
            );
        }
    }
}
