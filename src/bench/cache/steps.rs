//! Naming the levels of a latency sweep by the caches the machine reports: a pure function
//! over (size, ns) points and sysfs's cache sizes.
//!
//! Each size is given the level sysfs says an array of that size lives in: the smallest
//! reported data (or unified) cache at least as large, or "memory" past every cache. The
//! names therefore depend on the machine alone, not on where a noisy curve happens to
//! bend, and are the same in every run (finding the levels from the curve's plateaus put
//! "L3 32M" on the 2–4 MiB plateau in one run and on 8–32 MiB in the next).
//!
//! A level's figure is the median over its *settled* sizes: at most half the cache (a
//! random chase over exactly the cache's size already misses often) and more than twice
//! the cache below it (whose lines still hold part of the chain); memory's from four times
//! the last cache on. A level without such a size takes all of its sizes. Between two
//! levels a step gives the rise from one figure to the next.

use crate::model::details::cache::{Plateau, Step};
use crate::model::unit::human;
use crate::model::{median, Cache};

/// The name of the level past every reported cache.
pub const MEMORY: &str = "memory";

/// The data and unified caches, smallest level first, named "L1d 48K".
pub fn data_caches(caches: &[Cache]) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = caches
        .iter()
        .filter(|c| c.kind != "Instruction")
        .map(|c| {
            let tag = if c.kind == "Data" { "d" } else { "" };
            (
                format!("L{}{tag} {}", c.level, human(c.size_bytes)),
                c.size_bytes,
            )
        })
        .collect();
    out.sort_by_key(|c| c.1);
    out
}

/// Which level an array of `bytes` lives in: the index of the smallest cache holding it,
/// or `caches.len()` (memory).
pub fn level_of(bytes: u64, caches: &[(String, u64)]) -> usize {
    caches
        .iter()
        .position(|(_, size)| bytes <= *size)
        .unwrap_or(caches.len())
}

/// The levels (one plateau per level the sweep reached, named by sysfs) and the steps
/// between them. `points` must be sorted by size; `caches` smallest first.
pub fn find(points: &[(u64, f64)], caches: &[(String, u64)]) -> (Vec<Plateau>, Vec<Step>) {
    let mut groups: Vec<(usize, Vec<(u64, f64)>)> = Vec::new();
    for &p in points {
        let level = level_of(p.0, caches);
        match groups.last_mut() {
            Some((l, g)) if *l == level => g.push(p),
            _ => groups.push((level, vec![p])),
        }
    }
    let plateaus: Vec<Plateau> = groups
        .iter()
        .map(|(level, g)| {
            let (low, high) = settled_range(*level, caches);
            let settled: Vec<f64> = g
                .iter()
                .filter(|p| p.0 > low && p.0 <= high)
                .map(|p| p.1)
                .collect();
            let all: Vec<f64> = g.iter().map(|p| p.1).collect();
            Plateau {
                first_bytes: g[0].0,
                last_bytes: g[g.len() - 1].0,
                ns: median(if settled.is_empty() { &all } else { &settled }),
                level: caches
                    .get(*level)
                    .map_or(MEMORY.to_string(), |c| c.0.clone()),
            }
        })
        .collect();
    let steps = plateaus
        .windows(2)
        .zip(&groups)
        .map(|(w, (level, _))| Step {
            from_bytes: w[0].last_bytes,
            to_bytes: w[1].first_bytes,
            from_ns: w[0].ns,
            to_ns: w[1].ns,
            caches: caches
                .get(*level)
                .map(|c| c.0.clone())
                .into_iter()
                .collect(),
        })
        .collect();
    (plateaus, steps)
}

/// The sizes (exclusive, inclusive) whose figure is a level's own: above twice the cache
/// below and at most half of this one; memory from four times the last cache.
fn settled_range(level: usize, caches: &[(String, u64)]) -> (u64, u64) {
    let below = level
        .checked_sub(1)
        .and_then(|i| caches.get(i))
        .map_or(0, |c| c.1);
    match caches.get(level) {
        Some(c) => (below * 2, c.1 / 2),
        None => ((below * 4).saturating_sub(1), u64::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: u64 = 1024;

    fn caches() -> Vec<(String, u64)> {
        vec![
            ("L1d 32K".into(), 32 * K),
            ("L2 512K".into(), 512 * K),
            ("L3 32M".into(), 32 * K * K),
        ]
    }

    /// A sweep's points: sizes doubling from 4 KiB, with these ns per read.
    fn doubling_from_4k(ns: &[f64]) -> Vec<(u64, f64)> {
        ns.iter()
            .enumerate()
            .map(|(i, &n)| ((4 * K) << i, n))
            .collect()
    }

    /// 4K … 256M: 17 sizes.
    const CURVE: [f64; 17] = [
        1.1, 1.1, 1.1, 1.3, 3.5, 4.0, 4.1, 6.0, 12.0, 13.0, 14.0, 15.0, 20.0, 40.0, 90.0, 100.0,
        104.0,
    ];

    #[test]
    fn every_size_is_named_by_the_cache_that_holds_it() {
        let (plateaus, steps) = find(&doubling_from_4k(&CURVE), &caches());
        let levels: Vec<(&str, u64, u64)> = plateaus
            .iter()
            .map(|p| (p.level.as_str(), p.first_bytes, p.last_bytes))
            .collect();
        assert_eq!(
            levels,
            [
                ("L1d 32K", 4 * K, 32 * K),
                ("L2 512K", 64 * K, 512 * K),
                ("L3 32M", K * K, 32 * K * K),
                ("memory", 64 * K * K, 256 * K * K),
            ]
        );
        assert_eq!(steps.len(), 3);
        assert_eq!(steps[0].caches, vec!["L1d 32K"]);
        assert_eq!((steps[0].from_bytes, steps[0].to_bytes), (32 * K, 64 * K));
        assert_eq!(steps[2].caches, vec!["L3 32M"]);
    }

    #[test]
    fn a_level_s_figure_is_of_its_settled_sizes() {
        let (plateaus, _) = find(&doubling_from_4k(&CURVE), &caches());
        // L1: 4K, 8K, 16K (32K is the cache's own size); L2: 128K, 256K; L3: 2M … 16M;
        // memory: from 128M.
        let ns: Vec<f64> = plateaus.iter().map(|p| p.ns).collect();
        assert_eq!(ns, [1.1, 4.05, 14.5, 102.0]);
    }

    /// The names do not move with the curve: a noisy sweep whose bends fall elsewhere
    /// gets the same names at the same sizes.
    #[test]
    fn the_names_are_the_same_whatever_the_curve() {
        let mut noisy = CURVE;
        noisy[6] = 30.0; // a disturbed 256K
        noisy[11] = 80.0; // L3 looking like memory at 8M
        let names = |ns: &[f64]| -> Vec<(String, u64, u64)> {
            find(&doubling_from_4k(ns), &caches())
                .0
                .into_iter()
                .map(|p| (p.level, p.first_bytes, p.last_bytes))
                .collect()
        };
        assert_eq!(names(&CURVE), names(&noisy));
    }

    #[test]
    fn a_sweep_short_of_memory_or_without_caches_says_what_it_reached() {
        let (plateaus, steps) = find(&doubling_from_4k(&CURVE[..6]), &caches());
        let levels: Vec<&str> = plateaus.iter().map(|p| p.level.as_str()).collect();
        assert_eq!(levels, ["L1d 32K", "L2 512K"]);
        assert_eq!(steps.len(), 1);
        let (plateaus, steps) = find(&doubling_from_4k(&CURVE), &[]);
        assert_eq!(plateaus.len(), 1);
        assert_eq!(plateaus[0].level, "memory");
        assert!(steps.is_empty());
    }

    #[test]
    fn caches_are_listed_smallest_first_without_instruction_caches() {
        let c = |level: u32, kind: &str, size_bytes: u64| Cache {
            level,
            kind: kind.into(),
            size_bytes,
            line_bytes: Some(64),
            shared_by: 1,
        };
        let got = data_caches(&[
            c(2, "Unified", 512 * K),
            c(1, "Data", 32 * K),
            c(1, "Instruction", 32 * K),
        ]);
        assert_eq!(
            got,
            vec![("L1d 32K".into(), 32 * K), ("L2 512K".into(), 512 * K)]
        );
    }

    #[test]
    fn sizes_read_as_humans_write_them() {
        assert_eq!(human(48 * K), "48K");
        assert_eq!(human(2048 * K), "2M");
        assert_eq!(human(1 << 30), "1G");
    }
}
