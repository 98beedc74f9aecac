//! The change tests on chosen samples.

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
fn the_test_uses_processes_when_both_sides_have_process_medians() {
    let s = noisy(1.0, 30, 1);
    let inv = [1.0, 1.01, 0.99];
    let one = |v: &[f64]| in_one_state(v);
    let t = test(
        (&s, Some(&one(&inv))),
        (&s, Some(&one(&inv))),
        (1.0, 1.0),
        None,
    )
    .unwrap();
    assert_eq!(t.level, Level::Invocations);
    let t = test(
        (&s, Some(&one(&inv[..2]))),
        (&s, Some(&one(&inv))),
        (1.0, 1.0),
        None,
    )
    .unwrap();
    assert_eq!(
        t.level,
        Level::Invocations,
        "two in a headline still have a spread"
    );
    let t = test(
        (&s, Some(&one(&inv[..1]))),
        (&s, Some(&one(&inv))),
        (1.0, 1.0),
        None,
    )
    .unwrap();
    assert_eq!(t.level, Level::Samples);
    let t = test((&s, None), (&s, Some(&one(&inv))), (1.0, 1.0), None).unwrap();
    assert_eq!(t.level, Level::Samples);
    assert!(test((&s[..2], None), (&s, None), (1.0, 1.0), None).is_none());
}

/// Processes with these medians, all in the headline's state.
fn in_one_state(medians: &[f64]) -> Processes {
    Processes {
        fast: medians.to_vec(),
        slower: Vec::new(),
    }
}

/// Processes with these medians, each ±1% within.
fn processes(medians: &[f64]) -> Invocations {
    Invocations {
        within: medians
            .iter()
            .map(|&m| crate::model::Summary::around(m, m * 0.01))
            .collect(),
        runs: None,
        slower: Vec::new(),
    }
}

#[test]
fn processes_need_three_and_a_headline_of_one_tests_every_process_of_both() {
    assert_eq!(Processes::of(&processes(&[1.0, 1.1])), None);
    let mut three = processes(&[1.0, 1.02, 1.3]);
    three.slower = vec![2];
    let two_fast = Processes::of(&three).unwrap();
    assert_eq!(two_fast.fast, vec![1.0, 1.02]);
    let other = in_one_state(&[1.01, 0.99, 1.0]);
    assert_eq!(
        tested_pair(&two_fast, &other),
        (vec![1.0, 1.02], vec![1.01, 0.99, 1.0])
    );
    // One process left in one side's headline: every process of both is tested, the
    // slower ones beside the slower ones.
    three.slower = vec![1, 2];
    let one_fast = Processes::of(&three).unwrap();
    let other = Processes {
        fast: vec![1.0, 1.01],
        slower: vec![1.3],
    };
    assert_eq!(
        tested_pair(&one_fast, &other),
        (vec![1.0, 1.02, 1.3], vec![1.0, 1.01, 1.3])
    );
}

/// Twelve processes a side, as `selftest noise.aa` runs: `fast` of them in the fast
/// state around `at` (±1%), the rest 35% slower.
fn twelve(at: f64, fast: usize) -> Processes {
    let spread = |k: usize, level: f64| -> Vec<f64> {
        (0..k)
            .map(|i| level * (1.0 + 0.002 * (i as f64 - k as f64 / 2.0)))
            .collect()
    };
    Processes {
        fast: spread(fast, at),
        slower: spread(12 - fast, at * 1.35),
    }
}

#[test]
fn a_run_that_missed_the_fast_state_is_compared_state_for_state() {
    let s = noisy(1.0, 30, 1);
    // The first run caught the fast state in four processes; the second in none: its
    // twelve are all where the first's eight slower ones were.
    let (before, after) = (twelve(100.0, 4), twelve(135.0, 12));
    let headlines = (median(&before.fast), median(&after.fast));
    let t = test((&s, Some(&before)), (&s, Some(&after)), headlines, None).unwrap();
    let states = t.states.expect("compared state for state");
    assert!(
        (t.ratio - 1.35).abs() < 0.01,
        "the headlines' ratio is kept: {t:?}"
    );
    assert!((states.ratio - 1.0).abs() < 0.01, "{states:?}");
    assert!(states.after_whole && states.whole == 12 && states.matched == 8);
    assert!(t.p_value > 0.05, "{t:?}");
    assert_eq!(verdict(&t, true, Better::Lower, 0.05), Verdict::NoChange);
    assert!(
        states.describe().contains("state for state ×1.000"),
        "{}",
        states.describe()
    );
    // The same the other way round: the first run was the one that missed it.
    let t = test(
        (&s, Some(&after)),
        (&s, Some(&before)),
        (headlines.1, headlines.0),
        None,
    )
    .unwrap();
    assert!(!t.states.expect("state for state").after_whole);
    assert_eq!(verdict(&t, true, Better::Lower, 0.05), Verdict::NoChange);
}

#[test]
fn a_change_of_every_process_is_still_found() {
    let s = noisy(1.0, 30, 1);
    // 10% slower in both states: the second run has slower processes of its own, so
    // its headline is of its fast state, and nothing is matched.
    let before = twelve(100.0, 4);
    let after = before.scaled(1.10);
    let h = (median(&before.fast), median(&after.fast));
    let t = test((&s, Some(&before)), (&s, Some(&after)), h, None).unwrap();
    assert_eq!(t.states, None);
    assert_eq!(verdict(&t, true, Better::Lower, 0.05), Verdict::Slower);
    // 35% slower, every process of the second run in one state, and the first run had
    // no slower processes to match it with: a change.
    let before = twelve(100.0, 12);
    let after = twelve(135.0, 12);
    let h = (median(&before.fast), median(&after.fast));
    let t = test((&s, Some(&before)), (&s, Some(&after)), h, None).unwrap();
    assert_eq!(t.states, None);
    assert_eq!(verdict(&t, true, Better::Lower, 0.05), Verdict::Slower);
    // One slower process of the first run in the second's state is not enough to
    // test with.
    let before = twelve(100.0, 11);
    let h = (median(&before.fast), median(&after.fast));
    let t = test((&s, Some(&before)), (&s, Some(&after)), h, None).unwrap();
    assert_eq!(t.states, None);
    assert_eq!(verdict(&t, true, Better::Lower, 0.05), Verdict::Slower);
    // 10% slower in a run that also missed the fast state: found state for state.
    let before = twelve(100.0, 4);
    let after = twelve(135.0 * 1.10, 12);
    let h = (median(&before.fast), median(&after.fast));
    let t = test((&s, Some(&before)), (&s, Some(&after)), h, None).unwrap();
    assert!((t.states.expect("state for state").ratio - 1.10).abs() < 0.01);
    assert_eq!(verdict(&t, true, Better::Lower, 0.05), Verdict::Slower);
    // Slower still than the first run's slower state (×1.6, not ×1.35): no process of
    // the first run was there, and the change is called.
    let after = twelve(160.0, 12);
    let h = (median(&before.fast), median(&after.fast));
    let t = test((&s, Some(&before)), (&s, Some(&after)), h, None).unwrap();
    assert_eq!(t.states, None);
    assert_eq!(verdict(&t, true, Better::Lower, 0.05), Verdict::Slower);
}

#[test]
fn the_slower_state_beside_the_headline_finds_a_change_of_every_process() {
    // Two processes a side in the fast state, ten in the slower one (±1%), as this
    // VM often gives: every process of the second run 10% slower.
    let before = twelve(100.0, 2);
    let after = before.scaled(1.10);
    let alone = welch_log_p(&before.fast, &after.fast);
    let beside = states_p(&before, &after);
    assert!(beside < alone / 10.0, "{beside} against {alone}");
    assert!(beside < 1e-5, "{beside}");
    // An unchanged program whose runs caught the fast state in 2 and in 6 processes:
    // each state against itself, nothing to find.
    let p = states_p(&twelve(100.0, 2), &twelve(100.0, 6));
    assert!(p > 0.05, "{p}");
    // A straggler among the slower processes (a busy machine) is not of the state.
    assert_eq!(
        one_state(&[135.0, 136.0, 134.0, 400.0]),
        vec![135.0, 136.0, 134.0]
    );
    assert!(one_state(&[]).is_empty());
    // With one process in the slower state on a side there is no second stratum.
    let (a, b) = (twelve(100.0, 11), twelve(110.0, 2));
    assert_eq!(states_p(&a, &b), welch_log_p(&a.fast, &b.fast));
}

fn level(sd_log: f64, df: usize) -> RunLevel {
    RunLevel {
        earlier_runs: 3,
        sd_log,
        df,
        low: 0.0,
        high: 0.0,
        process_low: 0.0,
        process_high: 0.0,
    }
}

#[test]
fn the_wider_learned_spread_bounds_the_test() {
    assert_eq!(learned_spread(None, None), None);
    let (a, b) = (level(0.02, 100), level(0.05, 40));
    assert_eq!(learned_spread(Some(&a), None), Some((0.02, 100)));
    assert_eq!(learned_spread(Some(&a), Some(&b)), Some((0.05, 40)));
    assert_eq!(learned_spread(Some(&b), Some(&a)), Some((0.05, 40)));
    // t(0.995, ∞) ≈ 2.576: two runs 2% apart each (sd of ln) differ by more than
    // 2.576 · √2 · 2% = 7.3% one time in a hundred.
    let bound = run_bound((0.02, 100_000));
    assert!((bound - 2.576 * 2f64.sqrt() * 0.02).abs() < 1e-3, "{bound}");
}

#[test]
fn a_difference_within_the_machine_s_run_to_run_spread_is_no_change() {
    // Three tight processes a side, 7% apart: the process level alone calls it.
    let a = in_one_state(&[1.0, 1.005, 0.995]);
    let b = a.scaled(1.07);
    let s = noisy(1.0, 30, 1);
    let t = test((&s, Some(&a)), (&s, Some(&b)), (1.0, 1.07), None).unwrap();
    assert!(t.p_value < 1e-3, "{t:?}");
    assert_eq!(verdict(&t, true, Better::Lower, 0.05), Verdict::Slower);
    // Runs of this machine differ by 3% (sd of ln): 7% is within what two runs do.
    let t = test(
        (&s, Some(&a)),
        (&s, Some(&b)),
        (1.0, 1.07),
        Some((0.03, 200)),
    )
    .unwrap();
    assert!(!t.beyond_runs());
    assert_eq!(verdict(&t, true, Better::Lower, 0.05), Verdict::NoChange);
    // 15% is not.
    let c = a.scaled(1.15);
    let t = test(
        (&s, Some(&a)),
        (&s, Some(&c)),
        (1.0, 1.15),
        Some((0.03, 200)),
    )
    .unwrap();
    assert_eq!(verdict(&t, true, Better::Lower, 0.05), Verdict::Slower);
    // Faster by as much: the bound is on the size of the ratio, either way.
    let t = test(
        (&s, Some(&c)),
        (&s, Some(&a)),
        (1.0, 1.0 / 1.15),
        Some((0.03, 200)),
    )
    .unwrap();
    assert_eq!(verdict(&t, true, Better::Lower, 0.05), Verdict::Faster);
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
