//! Did a figure change between two runs, or is the difference noise?
//!
//! Three levels of noise, three gates; a change is called only through all of them:
//!
//! - **processes**: when both runs measured an id in at least [`MIN_INVOCATIONS`] fresh
//!   processes, Welch's t on the logarithms of the medians of the processes in each
//!   headline ([`test()`], [`tested_pair`]): what differs from one process to the next
//!   (where the kernel placed it, the state of its vCPU) is what the test weighs. Below
//!   that, the fallback is a two-sided Mann–Whitney U test on the clean samples, which
//!   sees one process's spread only. The p-values of all ids are corrected together
//!   (Benjamini–Hochberg, [`FDR`]).
//! - **effect**: the medians must differ by at least `min_effect` (5% by default,
//!   `compare --threshold`): with dozens of samples a test finds shifts of a percent,
//!   and a shared machine moves figures by that much without any change in what is
//!   measured.
//! - **runs**: on a virtual machine whole runs differ by more than their processes do (the
//!   share of processes on a slow vCPU, the fast state itself by a few per cent), and all
//!   the ids of a run move together — so a process-level test of two runs a few per cent
//!   apart finds dozens of "changes" at once, each significant and each the machine's.
//!   A run that learned how far this machine's runs differ (`model::runlevel`, from
//!   earlier runs like it in its store) carries that spread per id; the two headlines
//!   must then lie further apart than two runs of the machine do with probability
//!   [`ALPHA`] ([`run_bound`]). Runs on a new machine, with nothing learned, are tested
//!   at the first two levels only, and `compare` says so.
//!
//! Why Mann–Whitney for samples: they are not normal (a floor set by the hardware and a
//! long right tail of interrupts and preemptions), so a t-test on means is pulled by a
//! few outliers; Mann–Whitney uses only ranks and is distribution-free. We use the normal
//! approximation with the tie correction and a continuity correction, which is accurate
//! from about five samples per side; below four we say so and call nothing. Why Welch on
//! logarithms for processes: a process's median is one robust figure, a change is a
//! ratio, and with three to ten processes a side a rank test cannot reach small p-values
//! at all (three against three: never below 0.05). And p < 0.01 rather than 0.05 for [`compare`],
//! because a comparison tests dozens of ids at once.

use super::invocations::Invocations;
use super::invocations::RunLevel;
use super::stats::median;
use super::unit::Better;

/// The significance level of the test.
pub const ALPHA: f64 = 0.01;
/// The default minimum relative difference of medians called a change.
pub const DEFAULT_MIN_EFFECT: f64 = 0.05;
/// Fewer clean samples than this on either side: no verdict.
pub const MIN_SAMPLES: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Faster,
    Slower,
    NoChange,
    /// Too few samples on one side to decide.
    TooFew,
}

impl Verdict {
    pub fn describe(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoChange => "no significant change",
            Verdict::TooFew => "too few samples",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    /// Median of `after` divided by median of `before`.
    pub ratio: f64,
    /// Two-sided p-value of the Mann–Whitney U test.
    pub p_value: f64,
    pub verdict: Verdict,
}

/// Compare `after` with `before` (clean per-sample values of one id in two runs).
pub fn compare(before: &[f64], after: &[f64], better: Better, min_effect: f64) -> Change {
    let ratio = median(after) / median(before);
    if before.len() < MIN_SAMPLES || after.len() < MIN_SAMPLES {
        return Change {
            ratio,
            p_value: f64::NAN,
            verdict: Verdict::TooFew,
        };
    }
    let p_value = mann_whitney_p(before, after);
    let significant = p_value < ALPHA && (ratio - 1.0).abs() >= min_effect;
    let verdict = if !significant {
        Verdict::NoChange
    } else if (ratio > 1.0) == (better == Better::Lower) {
        Verdict::Slower
    } else {
        Verdict::Faster
    };
    Change {
        ratio,
        p_value,
        verdict,
    }
}

/// The level a comparison was decided at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Welch's t test on the logarithms of the medians of the processes in each headline
    /// (the fast state, see [`super::levels::fast_state`]; every process of both when
    /// either headline has fewer than two, [`tested_pair`]; state for state,
    /// [`match_states`]): both runs measured the id in at least [`MIN_INVOCATIONS`]
    /// processes.
    Invocations,
    /// Mann–Whitney U on the pooled clean samples: the fallback, blind to the variation
    /// between processes.
    Samples,
}

/// Both runs need this many invocations for the comparison to use that level.
pub const MIN_INVOCATIONS: usize = 3;
/// The false discovery rate controlled across the ids of one comparison.
pub const FDR: f64 = 0.05;

/// One id's test, before the correction for testing many ids.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Test {
    /// The headline of `after` over the headline of `before`.
    pub ratio: f64,
    pub p_value: f64,
    pub level: Level,
    /// How far apart two runs' headlines of this id lie only [`ALPHA`] of the time on this
    /// machine, as a bound on |ln ratio|, from the run-to-run spread a run learned from
    /// earlier runs like it ([`run_bound`]); `None` when neither run learned one.
    pub run_bound: Option<f64>,
    /// Set when the runs were compared state for state ([`match_states`]): the p-value
    /// and the verdict are then of the processes in one state.
    pub states: Option<StateMatch>,
}

impl Test {
    /// The ratio the verdict is about: the headlines', or state for state.
    pub fn tested_ratio(&self) -> f64 {
        self.states.map_or(self.ratio, |s| s.ratio)
    }

    /// Whether the two figures tested lie further apart than this machine's runs do by
    /// themselves (always, when no run-to-run spread is known).
    pub fn beyond_runs(&self) -> bool {
        self.run_bound
            .is_none_or(|bound| self.tested_ratio().ln().abs() > bound)
    }
}

/// The medians of one side's processes, by the state they ran in (see
/// [`super::levels::fast_state`]): what a comparison at the process level tests.
#[derive(Debug, Clone, PartialEq)]
pub struct Processes {
    /// The processes in the headline (the fast state).
    pub fast: Vec<f64>,
    /// The processes left out of it, in a slower state.
    pub slower: Vec<f64>,
}

impl Processes {
    /// `None` below [`MIN_INVOCATIONS`] processes.
    pub fn of(inv: &Invocations) -> Option<Processes> {
        (inv.count() >= MIN_INVOCATIONS).then(|| Processes {
            fast: inv.fast_medians(),
            slower: inv.slower_medians(),
        })
    }

    /// Every process's median, the headline's first.
    fn all(&self) -> Vec<f64> {
        self.fast.iter().chain(&self.slower).copied().collect()
    }

    /// The same processes with every median multiplied by `factor` (a change of basis).
    pub fn scaled(&self, factor: f64) -> Processes {
        let by = |v: &[f64]| v.iter().map(|m| m * factor).collect();
        Processes {
            fast: by(&self.fast),
            slower: by(&self.slower),
        }
    }
}

/// The medians two sides are tested on: each side's headline processes; every process of
/// both when either headline has fewer than two. A headline of one process has no spread
/// to test with — and testing that side's every process against the other's headline
/// processes would set a mixture of states against one state: on a busy VM, where one
/// side's headline was one process now and then, that called 6 and 4 of 36 ids changed in
/// two `ab self self syscall --rounds 12` (Welch's t between a side's slower processes
/// and the other's fast ones), and 1 and 0 of 36 this way.
pub fn tested_pair(before: &Processes, after: &Processes) -> (Vec<f64>, Vec<f64>) {
    if before.fast.len() < 2 || after.fast.len() < 2 {
        (before.all(), after.all())
    } else {
        (before.fast.clone(), after.fast.clone())
    }
}

/// Two runs compared state for state: one run's processes were all in one state, further
/// from the other run's headline than [`super::levels::SLOWER_STATE`], and at least two of
/// the other run's slower processes were in that same state. On this VM the host puts
/// each process in a fast or a slower state about 25–40% apart, a few processes of ten or
/// twelve in the fast one (docs/noise.md): now and then one run catches none, and its
/// headline is then the slower state's, which the other run's headline is not. Tested
/// headline against headline, that is a "change" of the state gap in an unchanged
/// program; tested state for state, it is what it is. What cannot be told apart this way,
/// and is said with the verdict: a real change by about the state gap, in a run whose
/// processes all missed the fast state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StateMatch {
    /// The median of `after`'s compared processes over `before`'s.
    pub ratio: f64,
    /// Whether it was `after` whose processes were all in one state (else `before`).
    pub after_whole: bool,
    /// How many processes the whole side had, and how many of the other side's slower
    /// processes were in its state.
    pub whole: usize,
    pub matched: usize,
}

impl StateMatch {
    /// One line for the reader: which run missed the fast state, and the ratio state for
    /// state.
    pub fn describe(&self) -> String {
        let (whole, other) = if self.after_whole {
            ("the second", "the first")
        } else {
            ("the first", "the second")
        };
        format!(
            "all {} processes of {whole} run were in the state {} of {other} run's slower \
             processes were in, not in its headline's; state for state ×{:.3}",
            self.whole, self.matched, self.ratio
        )
    }
}

/// The processes to test state for state, when one side's were all in the state of the
/// other's slower ones (see [`StateMatch`]): `(before's, after's, the match)`.
pub fn match_states(
    before: &Processes,
    after: &Processes,
) -> Option<(Vec<f64>, Vec<f64>, StateMatch)> {
    let band = super::levels::SLOWER_STATE;
    for after_whole in [true, false] {
        let (whole, other) = if after_whole {
            (after, before)
        } else {
            (before, after)
        };
        if !whole.slower.is_empty() || other.slower.is_empty() || whole.fast.is_empty() {
            continue;
        }
        let (level, headline) = (median(&whole.fast), median(&other.fast));
        if !(level.is_finite() && headline.is_finite() && headline != 0.0 && level != 0.0) {
            continue;
        }
        if (level / headline).ln().abs() <= (1.0 + band).ln() {
            continue;
        }
        let same: Vec<f64> = other
            .slower
            .iter()
            .copied()
            .filter(|m| (m / level - 1.0).abs() <= band)
            .collect();
        if same.len() < 2 {
            continue;
        }
        let (b, a) = if after_whole {
            (same, whole.fast.clone())
        } else {
            (whole.fast.clone(), same)
        };
        let m = StateMatch {
            ratio: median(&a) / median(&b),
            after_whole,
            whole: whole.fast.len(),
            matched: if after_whole { b.len() } else { a.len() },
        };
        return Some((b, a, m));
    }
    None
}

/// The run-to-run spread of one id to test two runs against: the wider of the two runs'
/// learned spreads (`(sd of ln headline, degrees of freedom)`, see
/// [`super::invocations::RunLevel`]), or the one run's that learned one.
pub fn learned_spread(a: Option<&RunLevel>, b: Option<&RunLevel>) -> Option<(f64, usize)> {
    [a, b]
        .into_iter()
        .flatten()
        .filter(|l| l.sd_log.is_finite() && l.df > 0)
        .map(|l| (l.sd_log, l.df))
        .max_by(|x, y| x.0.total_cmp(&y.0))
}

/// The bound on |ln ratio| of two runs' headlines that a machine whose runs differ by
/// `sd_log` (one run's sd of ln headline, `df` degrees of freedom) exceeds only [`ALPHA`]
/// of the time: two runs differ by two draws of the spread, so
/// `t(1 − α/2, df) · √2 · sd_log`.
pub fn run_bound((sd_log, df): (f64, usize)) -> f64 {
    super::stats::t_quantile(1.0 - ALPHA / 2.0, df as f64) * std::f64::consts::SQRT_2 * sd_log
}

/// The test of one id: at the process level when both sides have processes (see
/// [`Processes`]; state for state when one side's were all in the other's slower state,
/// [`match_states`]), otherwise on the clean samples; `runs` is the learned run-to-run
/// spread ([`learned_spread`]), which the difference must also exceed. `None` when either
/// side has too little to test.
pub fn test(
    before: (&[f64], Option<&Processes>),
    after: (&[f64], Option<&Processes>),
    headlines: (f64, f64),
    runs: Option<(f64, usize)>,
) -> Option<Test> {
    let ratio = headlines.1 / headlines.0;
    let run_bound = runs.map(run_bound);
    let at_processes = match (before.1, after.1) {
        (Some(a), Some(b)) => processes_p(a, b),
        _ => None,
    };
    match at_processes {
        Some((p_value, states)) => Some(Test {
            ratio,
            p_value,
            level: Level::Invocations,
            run_bound,
            states,
        }),
        _ if before.0.len() < MIN_SAMPLES || after.0.len() < MIN_SAMPLES => None,
        _ => Some(Test {
            ratio,
            p_value: mann_whitney_p(before.0, after.0),
            level: Level::Samples,
            run_bound,
            states: None,
        }),
    }
}

/// The verdict of a test that survived (or not) the correction for many ids: a change
/// is called when the corrected test finds one, the figures differ by at least
/// `min_effect`, and by more than this machine's runs differ by themselves
/// ([`Test::beyond_runs`]).
pub fn verdict(t: &Test, discovered: bool, better: Better, min_effect: f64) -> Verdict {
    let ratio = t.tested_ratio();
    if !(discovered && (ratio - 1.0).abs() >= min_effect && t.beyond_runs()) {
        Verdict::NoChange
    } else if (ratio > 1.0) == (better == Better::Lower) {
        Verdict::Slower
    } else {
        Verdict::Faster
    }
}

/// Benjamini–Hochberg: which of `p` are discoveries at false discovery rate `q`. The
/// largest rank i with p₍ᵢ₎ ≤ i·q/m, and every p at or below it. NaN is never one.
pub fn benjamini_hochberg(p: &[f64], q: f64) -> Vec<bool> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).filter(|&i| p[i].is_finite()).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut cut = None;
    for (rank, &i) in order.iter().enumerate() {
        if p[i] <= (rank + 1) as f64 * q / m as f64 {
            cut = Some(rank);
        }
    }
    let mut out = vec![false; m];
    if let Some(c) = cut {
        for &i in &order[..=c] {
            out[i] = true;
        }
    }
    out
}

/// Two-sided p-value of Welch's t test on the logarithms of `a` and `b` (positive
/// figures: a ratio of medians is a difference of logs). 1.0 when both have no spread
/// and are equal, 0.0 when they have none and differ.
pub fn welch_log_p(a: &[f64], b: &[f64]) -> f64 {
    let s = Stratum::of(a, b);
    if s.se2() <= 0.0 {
        return if s.difference == 0.0 { 1.0 } else { 0.0 };
    }
    stratified_log_p(&[s])
}

/// Welch's t on the logarithms over several strata of processes (the fast state, the
/// slower one): the strata's differences of mean logs weighted by the inverse of their
/// variances, with Satterthwaite's degrees of freedom. Each stratum compares processes of
/// one state with processes of the same state, so a mixture that differs between the two
/// runs moves nothing, and a change that moves every process is seen in every stratum.
fn stratified_log_p(strata: &[Stratum]) -> f64 {
    let weight: Vec<f64> = strata.iter().map(|s| 1.0 / s.se2()).collect();
    let total: f64 = weight.iter().sum();
    let difference = strata
        .iter()
        .zip(&weight)
        .map(|(s, w)| s.difference * w)
        .sum::<f64>()
        / total;
    // The variance of the weighted difference as a sum of the sides' variance terms, each
    // with its own degrees of freedom.
    let terms: Vec<(f64, f64)> = strata
        .iter()
        .zip(&weight)
        .flat_map(|(s, w)| {
            let share = (w / total).powi(2);
            [
                (share * s.var.0, s.n.0 - 1.0),
                (share * s.var.1, s.n.1 - 1.0),
            ]
        })
        .collect();
    let df = terms.iter().map(|t| t.0).sum::<f64>().powi(2)
        / terms.iter().map(|(v, k)| v * v / k).sum::<f64>();
    let t = difference * total.sqrt();
    (2.0 * super::stats::t_cdf(-t.abs(), df)).min(1.0)
}

/// One state's processes on both sides, in logarithms.
struct Stratum {
    /// Mean log of `b` less mean log of `a`.
    difference: f64,
    /// The variance of each side's mean log.
    var: (f64, f64),
    n: (f64, f64),
}

impl Stratum {
    fn of(a: &[f64], b: &[f64]) -> Stratum {
        let mv = |x: &[f64]| {
            let logs: Vec<f64> = x
                .iter()
                .map(|v| v.abs().max(f64::MIN_POSITIVE).ln())
                .collect();
            let n = logs.len() as f64;
            let m = logs.iter().sum::<f64>() / n;
            let v = logs.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0);
            (m, v / n, n)
        };
        let ((ma, va, na), (mb, vb, nb)) = (mv(a), mv(b));
        Stratum {
            difference: mb - ma,
            var: (va, vb),
            n: (na, nb),
        }
    }

    fn se2(&self) -> f64 {
        self.var.0 + self.var.1
    }
}

/// The p-value of two runs' processes, and whether they were compared state for state;
/// `None` when either side has fewer than two to test. State for state when
/// [`match_states`] says so; else the headline processes of both ([`tested_pair`]), with
/// their slower state beside them as a second stratum ([`states_p`]); else every process
/// of both.
fn processes_p(before: &Processes, after: &Processes) -> Option<(f64, Option<StateMatch>)> {
    if let Some((a, b, states)) = match_states(before, after) {
        return Some((welch_log_p(&a, &b), Some(states)));
    }
    let (a, b) = tested_pair(before, after);
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let headlines = before.fast.len() >= 2 && after.fast.len() >= 2;
    Some((
        if headlines {
            states_p(before, after)
        } else {
            welch_log_p(&a, &b)
        },
        None,
    ))
}

/// The p-value of two sides' headline processes (`fast`), with their slower processes as a
/// second stratum when both sides have at least two in one slower state: those within
/// [`super::levels::SLOWER_STATE`] of the median of their side's slower processes (the
/// state, without the stragglers a busy machine adds). With twelve processes a side and
/// two or three of them in the fast state, the headline processes alone found an injected
/// 10% slowdown in 3–4 of 40 resampled pairs; with the slower state beside them, in 14
/// of 40 (20 a side: 8–10 and 34 of 40; docs/noise.md).
fn states_p(before: &Processes, after: &Processes) -> f64 {
    let fast = Stratum::of(&before.fast, &after.fast);
    let (a, b) = (one_state(&before.slower), one_state(&after.slower));
    if fast.se2() > 0.0 && a.len() >= 2 && b.len() >= 2 {
        let slower = Stratum::of(&a, &b);
        if slower.se2() > 0.0 {
            return stratified_log_p(&[fast, slower]);
        }
    }
    welch_log_p(&before.fast, &after.fast)
}

/// The medians of `slower` within [`super::levels::SLOWER_STATE`] of their median.
fn one_state(slower: &[f64]) -> Vec<f64> {
    if slower.is_empty() {
        return Vec::new();
    }
    let centre = median(slower);
    let band = super::levels::SLOWER_STATE;
    slower
        .iter()
        .copied()
        .filter(|m| (m / centre - 1.0).abs() <= band)
        .collect()
}

/// Two-sided p-value of the Mann–Whitney U test (normal approximation, tie-corrected,
/// continuity-corrected). 1.0 when every value is tied.
pub fn mann_whitney_p(a: &[f64], b: &[f64]) -> f64 {
    let (n1, n2) = (a.len() as f64, b.len() as f64);
    let n = n1 + n2;
    let mut all: Vec<(f64, bool)> = a
        .iter()
        .map(|&v| (v, true))
        .chain(b.iter().map(|&v| (v, false)))
        .collect();
    all.sort_by(|x, y| x.0.total_cmp(&y.0));
    // Average ranks over ties; collect the tie sizes for the variance correction.
    let mut rank_sum_a = 0.0;
    let mut tie_term = 0.0;
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j + 1 < all.len() && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let avg_rank = (i + j) as f64 / 2.0 + 1.0;
        let t = (j - i + 1) as f64;
        tie_term += t * t * t - t;
        rank_sum_a += all[i..=j].iter().filter(|x| x.1).count() as f64 * avg_rank;
        i = j + 1;
    }
    let u = rank_sum_a - n1 * (n1 + 1.0) / 2.0;
    let mean = n1 * n2 / 2.0;
    let var = n1 * n2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
    if var <= 0.0 {
        return 1.0;
    }
    let z = ((u - mean).abs() - 0.5).max(0.0) / var.sqrt();
    libm::erfc(z / std::f64::consts::SQRT_2).min(1.0)
}

#[cfg(test)]
mod tests;

/// Properties of the tests that hold for any samples, checked on generated ones.
#[cfg(test)]
mod properties;
