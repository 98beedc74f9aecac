//! Finding the cache levels in a latency sweep: a pure function over (size, ns) points.
//!
//! Points whose latency stays within `FLAT` of the lowest latency of the current run of
//! points belong to one plateau; a point above that starts a new run. Runs of one point are
//! the slope between two levels, not a level. Each step between two plateaus is named by
//! the caches (as sysfs reports them) whose size lies between half the last size of the
//! lower plateau and twice the first size of the upper one: a random chase over exactly the
//! cache's size already misses often, so the step shows at or just before that size.
//!
//! A plateau is named from the curve: by the step that ends it (the caches that step
//! marks, or "up to N" when no reported cache ends there), and the last one is "memory"
//! only when the steps before it have passed every reported cache; otherwise the curve
//! has not shown those caches' ends and the last plateau says so.

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
    let last = plateaus.len().saturating_sub(1);
    for (i, p) in plateaus.iter_mut().enumerate() {
        p.level = match steps.get(i) {
            Some(s) if !s.caches.is_empty() => s.caches.join(" + "),
            Some(s) => format!(
                "up to {} (no reported cache ends there)",
                human(s.from_bytes)
            ),
            None if i == last && named.iter().all(|&n| n) => "memory".to_string(),
            None => {
                let unseen: Vec<&str> = caches
                    .iter()
                    .zip(&named)
                    .filter(|(_, n)| !**n)
                    .map(|((name, _), _)| name.as_str())
                    .collect();
                format!("{} or memory (no step seen for it)", unseen.join(" + "))
            }
        };
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

    /// A sweep's points: sizes doubling from 4 KiB, with these ns per read.
    fn doubling_from_4k(ns: &[f64]) -> Vec<(u64, f64)> {
        ns.iter()
            .enumerate()
            .map(|(i, &n)| ((4 * K) << i, n))
            .collect()
    }

    #[test]
    fn finds_three_levels_and_names_them() {
        let ns = [
            1.2, 1.2, 1.3, 1.2, 4.0, 4.1, 4.2, 4.3, 4.5, 5.0, 12.0, 30.0, 31.0, 33.0, 35.0, 60.0,
            110.0, 120.0, 125.0,
        ];
        let points = doubling_from_4k(&ns);
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
        let points = doubling_from_4k(&[2.0; 8]);
        let (plateaus, steps) = find(&points, &caches());
        assert_eq!(plateaus.len(), 1);
        assert!(steps.is_empty());
        assert_eq!(
            plateaus[0].level,
            "L1d 48K + L2 2M + L3 260M or memory (no step seen for it)"
        );
    }

    /// A sweep to 8 × a 32 MiB L3 whose last step is seen at 64 MiB: the plateau past it is
    /// memory, named by the curve; a sweep stopped at 16 MiB has not seen L3's end, and its
    /// last plateau does not claim to be memory.
    #[test]
    fn memory_is_named_only_past_the_last_cache_s_step() {
        let caches = vec![
            ("L1d 64K".to_string(), 64 * K),
            ("L2 1M".to_string(), 1024 * K),
            ("L3 32M".to_string(), 32 * K * K),
        ];
        // 4K … 256M: L1 to 64K, L2 to 512K, L3 to 16M, then memory from 64M.
        let ns = [
            1.6, 1.6, 1.7, 1.6, 1.7, 5.0, 5.1, 5.3, 12.0, 13.0, 14.0, 14.5, 15.0, 30.0, 95.0,
            100.0, 104.0,
        ];
        let points = doubling_from_4k(&ns);
        let (plateaus, steps) = find(&points, &caches);
        let levels: Vec<&str> = plateaus.iter().map(|p| p.level.as_str()).collect();
        assert_eq!(
            levels,
            ["L1d 64K", "L2 1M", "L3 32M", "memory"],
            "{steps:#?}"
        );
        assert_eq!(plateaus[3].first_bytes, 64 * K * K);
        let (short, _) = find(&points[..13], &caches);
        assert_eq!(
            short.last().unwrap().level,
            "L3 32M or memory (no step seen for it)"
        );
    }

    #[test]
    fn a_step_no_cache_explains_is_named_by_its_size() {
        let caches = vec![("L1d 64K".to_string(), 64 * K)];
        // Steps at 8K→16K (nothing there) and 128K→256K (L1).
        let ns = [1.0, 1.0, 2.0, 2.0, 2.1, 2.1, 6.0, 6.0];
        let points = doubling_from_4k(&ns);
        let (plateaus, _) = find(&points, &caches);
        let levels: Vec<&str> = plateaus.iter().map(|p| p.level.as_str()).collect();
        assert_eq!(
            levels,
            [
                "up to 8K (no reported cache ends there)",
                "L1d 64K",
                "memory"
            ]
        );
    }

    #[test]
    fn sizes_read_as_humans_write_them() {
        assert_eq!(human(48 * K), "48K");
        assert_eq!(human(2048 * K), "2M");
        assert_eq!(human(1 << 30), "1G");
    }
}
