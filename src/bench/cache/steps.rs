//! Finding the cache levels in a latency sweep: a pure function over (size, ns) points.
//!
//! Points whose latency stays within `FLAT` of the lowest latency of the current run of
//! points belong to one plateau; a point above that starts a new run. Runs of one point are
//! the slope between two levels, not a level. Each step between two plateaus is named by
//! the caches (as sysfs reports them) whose size lies between half the last size of the
//! lower plateau and twice the first size of the upper one: a random chase over exactly the
//! cache's size already misses often, so the step shows at or just before that size.

use crate::model::details::cache::{Plateau, Step};
use crate::model::unit::human;
use crate::model::{median, Cache};

/// How far above a plateau's floor a point may lie and still belong to it.
pub const FLAT: f64 = 1.3;

/// The data and unified caches, smallest level first, named "L1d 48K".
pub fn data_caches(caches: &[Cache]) -> Vec<(String, u64)> {
    caches
        .iter()
        .filter(|c| c.kind != "Instruction")
        .map(|c| {
            let tag = if c.kind == "Data" { "d" } else { "" };
            (
                format!("L{}{tag} {}", c.level, human(c.size_bytes)),
                c.size_bytes,
            )
        })
        .collect()
}

/// The plateaus and the steps between them. `points` must be sorted by size.
pub fn find(points: &[(u64, f64)], caches: &[(String, u64)]) -> (Vec<Plateau>, Vec<Step>) {
    let mut runs: Vec<Vec<(u64, f64)>> = Vec::new();
    for &p in points {
        match runs.last_mut() {
            Some(run) if p.1 <= FLAT * floor(run) => run.push(p),
            _ => runs.push(vec![p]),
        }
    }
    let kept: Vec<&Vec<(u64, f64)>> = runs.iter().filter(|r| r.len() >= 2).collect();
    let mut plateaus: Vec<Plateau> = kept
        .iter()
        .map(|r| Plateau {
            first_bytes: r[0].0,
            last_bytes: r[r.len() - 1].0,
            ns: median(&r.iter().map(|p| p.1).collect::<Vec<_>>()),
            level: String::new(),
        })
        .collect();
    let mut named = vec![false; caches.len()];
    let steps: Vec<Step> = plateaus
        .windows(2)
        .map(|w| {
            let (lo, hi) = (&w[0], &w[1]);
            let caches = caches
                .iter()
                .zip(named.iter_mut())
                .filter(|((_, size), used)| {
                    !**used && *size >= lo.last_bytes / 2 && *size <= hi.first_bytes * 2
                })
                .map(|((name, _), used)| {
                    *used = true;
                    name.clone()
                })
                .collect();
            Step {
                from_bytes: lo.last_bytes,
                to_bytes: hi.first_bytes,
                from_ns: lo.ns,
                to_ns: hi.ns,
                caches,
            }
        })
        .collect();
    for p in plateaus.iter_mut() {
        p.level = caches
            .iter()
            .find(|c| c.1 >= p.last_bytes)
            .map_or_else(|| "memory".to_string(), |c| c.0.clone());
    }
    (plateaus, steps)
}

fn floor(run: &[(u64, f64)]) -> f64 {
    run.iter().map(|p| p.1).fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: u64 = 1024;

    fn caches() -> Vec<(String, u64)> {
        vec![
            ("L1d 48K".into(), 48 * K),
            ("L2 2M".into(), 2048 * K),
            ("L3 260M".into(), 260 * K * K),
        ]
    }

    #[test]
    fn finds_three_levels_and_names_them() {
        let ns = [
            1.2, 1.2, 1.3, 1.2, 4.0, 4.1, 4.2, 4.3, 4.5, 5.0, 12.0, 30.0, 31.0, 33.0, 35.0, 60.0,
            110.0, 120.0, 125.0,
        ];
        let points: Vec<(u64, f64)> = ns
            .iter()
            .enumerate()
            .map(|(i, &n)| ((4 * K) << i, n))
            .collect();
        let (plateaus, steps) = find(&points, &caches());
        assert_eq!(plateaus.len(), 4, "{plateaus:#?}");
        assert_eq!(steps[0].caches, vec!["L1d 48K"]);
        assert_eq!((steps[0].from_bytes, steps[0].to_bytes), (32 * K, 64 * K));
        assert_eq!(steps[1].caches, vec!["L2 2M"]);
        assert_eq!(steps[2].caches, vec!["L3 260M"]);
        assert_eq!(plateaus[0].level, "L1d 48K");
        assert_eq!(plateaus[1].level, "L2 2M");
        assert_eq!(plateaus[2].level, "L3 260M");
        assert_eq!(plateaus[3].level, "memory");
    }

    #[test]
    fn a_flat_sweep_is_one_plateau() {
        let points: Vec<(u64, f64)> = (0..8).map(|i| ((4 * K) << i, 2.0)).collect();
        let (plateaus, steps) = find(&points, &caches());
        assert_eq!(plateaus.len(), 1);
        assert!(steps.is_empty());
    }

    #[test]
    fn sizes_read_as_humans_write_them() {
        assert_eq!(human(48 * K), "48K");
        assert_eq!(human(2048 * K), "2M");
        assert_eq!(human(1 << 30), "1G");
    }
}
