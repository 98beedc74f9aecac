//! Properties of the tests that hold for any samples, checked on generated ones.

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
