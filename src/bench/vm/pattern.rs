//! The access patterns of seed 001's Appendix A programs, exactly: `seqpage` (every page in
//! order, `passes` times), `randpage` (`random() % npages`, `touches` times) and
//! `gausspage` (a walk whose steps are Gaussian with standard deviation S pages).
//!
//! The seed's `gauss(sd, mean)` is Box–Muller with the angle drawn from [0, π) instead of
//! [0, 2π): `sqrt(-2 ln u1) · cos(π u2) · sd + mean`. cos of a uniform angle on [0, π) has
//! the same distribution as on [0, 2π), so it is still N(mean, sd²). The step is that value
//! truncated to an int (C's float→int conversion), and a step that would leave the array is
//! drawn again (`while (pn + delta < 0 || pn + delta > npages)`). The seed's bound admits
//! pn == npages, one page past its array, which its valloc slack happened to cover; ours
//! redraws at `>= npages` so every touch is inside the mapping.
//!
//! Like the seed's `rnd()` (a `static int seed = 1`), the generator starts from the same
//! seed on every run, so every job touches the same pages in the same order.

use crate::model::seeded::Seeded;

/// Which program, with its iteration count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pattern {
    /// seqpage: `passes` sequential sweeps over all pages.
    Seq { passes: u32 },
    /// randpage: `touches` uniformly random pages.
    Rand { touches: u32 },
    /// gausspage: `steps` Gaussian steps of standard deviation `sd` pages from page 0.
    Gauss { sd: f64, steps: u32 },
}

/// The seed's `rnd()`: the run's generator, seeded identically every job, and drawing the
/// same pages on every build (model::seeded says why that takes our own transforms).
pub fn generator() -> Seeded {
    Seeded::new(1)
}

/// The seed's `gauss(sd, mean)`. `1 − u` keeps the logarithm's argument in (0, 1].
pub fn gauss(rng: &mut Seeded, sd: f64, mean: f64) -> f64 {
    let qa = (-2.0 * (1.0 - rng.unit()).ln()).sqrt();
    let qb = std::f64::consts::PI * rng.unit();
    qa * qb.cos() * sd + mean
}

/// One gausspage step from page `pn`: redrawn until it lands inside `0..npages`.
pub fn gauss_step(rng: &mut Seeded, sd: f64, pn: i64, npages: i64) -> i64 {
    loop {
        let delta = gauss(rng, sd, 0.0) as i64; // C truncation toward zero
        let next = pn + delta;
        if (0..npages).contains(&next) {
            return next;
        }
    }
}

impl Pattern {
    /// The page touches one job makes over `npages` pages: what its figure is per.
    pub fn touches(self, npages: u64) -> u64 {
        match self {
            Pattern::Seq { passes } => npages * passes as u64,
            Pattern::Rand { touches } => touches as u64,
            Pattern::Gauss { steps, .. } => steps as u64,
        }
    }
}

/// Feeds the page numbers of `pattern` over `npages` pages to `touch`, in order, and
/// returns how many touches were made. `after_first_pass` is called once, after seqpage's
/// first sweep (the only one that faults on fresh memory), and for the others never.
pub fn walk(
    pattern: Pattern,
    npages: u64,
    mut touch: impl FnMut(u64),
    mut after_first_pass: impl FnMut(),
) -> u64 {
    let mut rng = generator();
    match pattern {
        Pattern::Seq { passes } => {
            for pass in 0..passes {
                (0..npages).for_each(&mut touch);
                if pass == 0 {
                    after_first_pass();
                }
            }
            npages * passes as u64
        }
        Pattern::Rand { touches } => {
            for _ in 0..touches {
                touch(rng.below(npages));
            }
            touches as u64
        }
        Pattern::Gauss { sd, steps } => {
            let mut pn = 0i64;
            for _ in 0..steps {
                pn = gauss_step(&mut rng, sd, pn, npages as i64);
                touch(pn as u64);
            }
            steps as u64
        }
    }
}

/// How many distinct pages `pattern` touches: the first-touch faults fresh memory must take.
pub fn distinct_pages(pattern: Pattern, npages: u64) -> u64 {
    let mut seen = vec![false; npages as usize];
    let mut distinct = 0;
    walk(
        pattern,
        npages,
        |p| {
            if !std::mem::replace(&mut seen[p as usize], true) {
                distinct += 1;
            }
        },
        || {},
    );
    distinct
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moments(xs: &[f64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, var.sqrt())
    }

    #[test]
    fn the_generator_has_mean_zero_and_sd_s() {
        let mut rng = generator();
        for sd in [1.0, 10.0, 80.0, 10_000.0] {
            let xs: Vec<f64> = (0..200_000).map(|_| gauss(&mut rng, sd, 0.0)).collect();
            let (mean, s) = moments(&xs);
            // Standard error of the mean is sd/447; allow about 4 of them.
            assert!(mean.abs() < 0.01 * sd, "sd {sd}: mean {mean}");
            assert!((s / sd - 1.0).abs() < 0.01, "sd {sd}: measured {s}");
        }
    }

    #[test]
    fn the_generator_is_gaussian_not_just_right_in_two_moments() {
        // About 68.3% within one SD and 95.4% within two.
        let mut rng = generator();
        let xs: Vec<f64> = (0..200_000).map(|_| gauss(&mut rng, 1.0, 0.0)).collect();
        let within = |k: f64| xs.iter().filter(|x| x.abs() < k).count() as f64 / 2e5;
        assert!((within(1.0) - 0.683).abs() < 0.01, "{}", within(1.0));
        assert!((within(2.0) - 0.954).abs() < 0.01, "{}", within(2.0));
    }

    #[test]
    fn a_job_makes_the_touches_its_basis_declares() {
        for pattern in [
            Pattern::Seq { passes: 3 },
            Pattern::Rand { touches: 500 },
            Pattern::Gauss {
                sd: 5.0,
                steps: 700,
            },
        ] {
            let made = walk(pattern, 200, |_| {}, || {});
            assert_eq!(made, pattern.touches(200), "{pattern:?}");
        }
    }

    #[test]
    fn truncated_steps_stay_inside_and_average_zero_far_from_the_edges() {
        let mut rng = generator();
        let steps: Vec<f64> = (0..100_000)
            .map(|_| (gauss_step(&mut rng, 30.0, 50_000, 100_000) - 50_000) as f64)
            .collect();
        let (mean, s) = moments(&steps);
        assert!(mean.abs() < 0.5, "mean step {mean}");
        // Truncation toward zero shrinks the SD a little (by about 0.3 page).
        assert!((28.5..30.5).contains(&s), "SD {s}");
        let mut pn = 0;
        for _ in 0..10_000 {
            pn = gauss_step(&mut rng, 10_000.0, pn, 7_500);
            assert!((0..7_500).contains(&pn));
        }
    }

    #[test]
    fn patterns_touch_what_the_seed_touched() {
        let seq = Pattern::Seq { passes: 10 };
        let mut touches = Vec::new();
        assert_eq!(walk(seq, 5, |p| touches.push(p), || {}), 50);
        assert_eq!(&touches[..6], &[0, 1, 2, 3, 4, 0]);
        assert_eq!(distinct_pages(seq, 7_500), 7_500);
        let rand = Pattern::Rand { touches: 30_000 };
        let d = distinct_pages(rand, 7_500);
        // 7500 · (1 − e^(−4)) ≈ 7363 expected distinct pages.
        assert!((7_250..7_450).contains(&d), "{d}");
    }

    #[test]
    fn narrower_walks_touch_fewer_pages() {
        let d: Vec<u64> = [1.0, 10.0, 30.0, 80.0, 10_000.0]
            .iter()
            .map(|&sd| distinct_pages(Pattern::Gauss { sd, steps: 30_000 }, 7_500))
            .collect();
        assert!(d.windows(2).all(|w| w[0] < w[1]), "{d:?}");
        assert!(d[0] < 300, "{d:?}");
    }
}
