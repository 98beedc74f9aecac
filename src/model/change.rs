//! Did a figure change between two runs, or is the difference noise?
//!
//! The test: a two-sided Mann–Whitney U test on the two runs' clean per-sample values,
//! plus a minimum effect size on the ratio of medians. Both must agree before a change
//! is called.
//!
//! Why this test: samples of a benchmark are not normal (a floor set by the hardware and a
//! long right tail of interrupts and preemptions), so a t-test on means is pulled by a
//! few outliers; Mann–Whitney uses only ranks, is distribution-free, and asks the question
//! we want answered — does one run's per-sample figure tend to be larger than the other's?
//! We use the normal approximation with the tie correction and a continuity correction,
//! which is accurate from about five samples per side; below four we say so and call
//! nothing.
//!
//! Why a minimum effect too: with dozens of samples the test detects shifts of a percent
//! or less, and between two runs on a shared machine the CPU frequency, cache placement
//! and neighbours move figures by a few percent without any change in what is measured —
//! a drift that the spread *within* one run cannot show. So a difference must also exceed
//! `min_effect` (5% by default, `compare --threshold`) of the first run's median to be
//! called faster or slower. And p < 0.01 rather than 0.05, because a comparison tests
//! dozens of ids at once: at 0.05 one id in twenty would be called changed by chance.

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
    /// (the fast state, see [`super::levels::fast_state`]; both runs had at
    /// least [`MIN_INVOCATIONS`] invocations).
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
}

/// The test of one id: at the invocation level when both sides have at least
/// [`MIN_INVOCATIONS`] invocation medians, otherwise on the clean samples. `None` when
/// either side has too little to test.
pub fn test(
    before: (&[f64], Option<&[f64]>),
    after: (&[f64], Option<&[f64]>),
    headlines: (f64, f64),
) -> Option<Test> {
    let ratio = headlines.1 / headlines.0;
    match (before.1, after.1) {
        (Some(a), Some(b)) if a.len() >= MIN_INVOCATIONS && b.len() >= MIN_INVOCATIONS => {
            Some(Test {
                ratio,
                p_value: welch_log_p(a, b),
                level: Level::Invocations,
            })
        }
        _ if before.0.len() < MIN_SAMPLES || after.0.len() < MIN_SAMPLES => None,
        _ => Some(Test {
            ratio,
            p_value: mann_whitney_p(before.0, after.0),
            level: Level::Samples,
        }),
    }
}

/// The verdict of a test that survived (or not) the correction for many ids.
pub fn verdict(t: &Test, discovered: bool, better: Better, min_effect: f64) -> Verdict {
    if !(discovered && (t.ratio - 1.0).abs() >= min_effect) {
        Verdict::NoChange
    } else if (t.ratio > 1.0) == (better == Better::Lower) {
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
    let la: Vec<f64> = a
        .iter()
        .map(|v| v.abs().max(f64::MIN_POSITIVE).ln())
        .collect();
    let lb: Vec<f64> = b
        .iter()
        .map(|v| v.abs().max(f64::MIN_POSITIVE).ln())
        .collect();
    let mv = |x: &[f64]| {
        let n = x.len() as f64;
        let m = x.iter().sum::<f64>() / n;
        let v = x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n - 1.0);
        (m, v / n, n)
    };
    let ((ma, sa, na), (mb, sb, nb)) = (mv(&la), mv(&lb));
    let se2 = sa + sb;
    if se2 <= 0.0 {
        return if ma == mb { 1.0 } else { 0.0 };
    }
    let t = (mb - ma) / se2.sqrt();
    let df = se2 * se2 / (sa * sa / (na - 1.0) + sb * sb / (nb - 1.0));
    (2.0 * super::levels::t_cdf(-t.abs(), df)).min(1.0)
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
mod tests {
    use super::*;

    /// A deterministic, noisy-looking set of samples around `centre` (±8%).
    fn noisy(centre: f64, n: usize, phase: u64) -> Vec<f64> {
        let mut x = phase.wrapping_mul(2654435761).wrapping_add(12345);
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let u = (x >> 11) as f64 / (1u64 << 53) as f64;
                centre * (0.92 + 0.16 * u)
            })
            .collect()
    }

    #[test]
    fn identical_samples_are_no_change() {
        let a = noisy(1e-6, 30, 1);
        let c = compare(&a, &a, Better::Lower, DEFAULT_MIN_EFFECT);
        assert_eq!(c.verdict, Verdict::NoChange);
        assert!((c.ratio - 1.0).abs() < 1e-12);
        assert!(c.p_value > 0.9);
    }

    #[test]
    fn two_draws_of_the_same_noise_are_no_change() {
        let c = compare(
            &noisy(1e-6, 30, 1),
            &noisy(1e-6, 30, 2),
            Better::Lower,
            DEFAULT_MIN_EFFECT,
        );
        assert_eq!(c.verdict, Verdict::NoChange, "{c:?}");
    }

    #[test]
    fn a_thirty_percent_slowdown_is_slower_and_a_speedup_faster() {
        let a = noisy(1e-6, 20, 3);
        let slow: Vec<f64> = a.iter().map(|v| v * 1.3).collect();
        let c = compare(&a, &slow, Better::Lower, DEFAULT_MIN_EFFECT);
        assert_eq!(c.verdict, Verdict::Slower);
        assert!(c.p_value < 1e-4);
        assert_eq!(
            compare(&slow, &a, Better::Lower, DEFAULT_MIN_EFFECT).verdict,
            Verdict::Faster
        );
    }

    #[test]
    fn higher_is_better_turns_the_verdict_round() {
        let a = noisy(1e9, 20, 4);
        let more: Vec<f64> = a.iter().map(|v| v * 1.3).collect();
        assert_eq!(
            compare(&a, &more, Better::Higher, DEFAULT_MIN_EFFECT).verdict,
            Verdict::Faster
        );
    }

    #[test]
    fn a_significant_but_tiny_shift_is_not_called_a_change() {
        let a = noisy(1e-6, 200, 5);
        let b: Vec<f64> = a.iter().map(|v| v * 1.02).collect();
        let c = compare(&a, &b, Better::Lower, DEFAULT_MIN_EFFECT);
        assert_eq!(c.verdict, Verdict::NoChange);
        // …but with no minimum effect it is.
        assert_eq!(compare(&a, &b, Better::Lower, 0.0).verdict, Verdict::Slower);
    }

    #[test]
    fn too_few_samples_give_no_verdict() {
        let c = compare(&[1.0, 1.1], &[2.0, 2.1], Better::Lower, DEFAULT_MIN_EFFECT);
        assert_eq!(c.verdict, Verdict::TooFew);
    }

    #[test]
    fn benjamini_hochberg_matches_a_worked_example() {
        // m = 5, q = 0.05: thresholds 0.01, 0.02, 0.03, 0.04, 0.05. Sorted: 0.001 ≤ 0.01,
        // 0.025 > 0.02, 0.029 ≤ 0.03, 0.3, 0.9: the largest rank under its threshold is
        // the third, so 0.025 is a discovery too (the step-up), and 0.3 and 0.9 are not.
        let p = [0.029, 0.001, 0.9, 0.025, 0.3];
        assert_eq!(
            benjamini_hochberg(&p, 0.05),
            vec![true, true, false, true, false]
        );
        assert_eq!(benjamini_hochberg(&[0.2, 0.5], 0.05), vec![false, false]);
        assert_eq!(
            benjamini_hochberg(&[f64::NAN, 0.0], 0.05),
            vec![false, true]
        );
    }

    #[test]
    fn welch_matches_a_known_case() {
        // ln values 0,1,2 against 3,4,5 (e^x): t = 3/√(2/3) = 3.674, df = 4, p = 0.0213.
        let a: Vec<f64> = [0.0f64, 1.0, 2.0].iter().map(|x| x.exp()).collect();
        let b: Vec<f64> = [3.0f64, 4.0, 5.0].iter().map(|x| x.exp()).collect();
        let p = welch_log_p(&a, &b);
        assert!((p - 0.0213).abs() < 5e-4, "p = {p}");
        assert_eq!(welch_log_p(&[2.0; 3], &[2.0; 3]), 1.0);
    }

    #[test]
    fn the_test_uses_invocations_when_both_sides_have_three() {
        let s = noisy(1.0, 30, 1);
        let inv = [1.0, 1.01, 0.99];
        let t = test((&s, Some(&inv)), (&s, Some(&inv)), (1.0, 1.0)).unwrap();
        assert_eq!(t.level, Level::Invocations);
        let t = test((&s, Some(&inv[..2])), (&s, Some(&inv)), (1.0, 1.0)).unwrap();
        assert_eq!(t.level, Level::Samples);
        assert!(test((&s[..2], None), (&s, None), (1.0, 1.0)).is_none());
    }

    #[test]
    fn p_value_matches_a_known_case() {
        // Fully separated samples of 10 and 10: U = 0, z = (50 − 0.5)/√175 = 3.742,
        // two-sided p = 1.83e-4 (normal approximation).
        let a: Vec<f64> = (0..10).map(|i| i as f64).collect();
        let b: Vec<f64> = (10..20).map(|i| i as f64).collect();
        let p = mann_whitney_p(&a, &b);
        assert!((p - 1.83e-4).abs() < 0.05e-4, "p = {p}");
        assert_eq!(mann_whitney_p(&[1.0; 5], &[1.0; 5]), 1.0);
    }
}

/// Properties of the tests that hold for any samples, checked on generated ones.
#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Positive figures, with ties likely (a coarse grid), 2 to 40 of them.
    fn figures() -> impl Strategy<Value = Vec<f64>> {
        proptest::collection::vec((1u32..400).prop_map(|k| f64::from(k) * 1e-8), 2..40)
    }

    proptest! {
        #[test]
        fn a_p_value_is_a_probability_whatever_the_samples(a in figures(), b in figures()) {
            for p in [mann_whitney_p(&a, &b), welch_log_p(&a, &b)] {
                prop_assert!((0.0..=1.0).contains(&p), "{}", p);
            }
        }

        #[test]
        fn a_test_does_not_depend_on_the_order_of_samples_nor_on_which_side_is_first(
            a in figures(),
            b in figures(),
        ) {
            let (mut ra, mut rb) = (a.clone(), b.clone());
            ra.reverse();
            rb.rotate_left(1);
            prop_assert_eq!(mann_whitney_p(&a, &b), mann_whitney_p(&ra, &rb));
            prop_assert_eq!(mann_whitney_p(&a, &b), mann_whitney_p(&b, &a));
            let (w, rw) = (welch_log_p(&a, &b), welch_log_p(&ra, &rb));
            prop_assert!((w - rw).abs() <= 1e-9, "{} {}", w, rw);
        }

        #[test]
        fn a_comparison_is_the_same_in_any_unit(
            a in figures(),
            b in figures(),
            shift in -20i32..20,
        ) {
            // A power of two scales every figure exactly: ties and ranks stay as they were.
            let scale = 2f64.powi(shift);
            let sa: Vec<f64> = a.iter().map(|v| v * scale).collect();
            let sb: Vec<f64> = b.iter().map(|v| v * scale).collect();
            let (c, sc) = (
                compare(&a, &b, Better::Lower, DEFAULT_MIN_EFFECT),
                compare(&sa, &sb, Better::Lower, DEFAULT_MIN_EFFECT),
            );
            prop_assert!((c.ratio - sc.ratio).abs() <= 1e-12 * c.ratio, "{:?} {:?}", c, sc);
            prop_assert_eq!(c.verdict, sc.verdict);
            prop_assert_eq!(c.p_value.to_bits(), sc.p_value.to_bits());
            let (w, sw) = (welch_log_p(&a, &b), welch_log_p(&sa, &sb));
            prop_assert!((w - sw).abs() <= 1e-6, "{} {}", w, sw);
        }

        #[test]
        fn the_discoveries_follow_their_p_values_in_any_order(
            p in proptest::collection::vec(0.0f64..=1.0, 1..30),
            turn in 0usize..30,
        ) {
            let found = benjamini_hochberg(&p, FDR);
            let turn = turn % p.len();
            let mut turned = p.clone();
            turned.rotate_left(turn);
            let mut expected = found.clone();
            expected.rotate_left(turn);
            prop_assert_eq!(benjamini_hochberg(&turned, FDR), expected);
            // A discovery's p is never above a non-discovery's.
            for i in 0..p.len() {
                for j in 0..p.len() {
                    if found[i] && !found[j] {
                        prop_assert!(p[i] <= p[j]);
                    }
                }
            }
        }
    }
}
