//! The vm family and cpu.cache end to end: every id in under 60 s, first-touch faults as
//! many as pages, Table 7's shape for the Gaussian rows, at least two latency plateaus,
//! bad sizes refused before anything runs, and the memory-limit mode (or why not).

use std::time::{Duration, Instant};

use crate::common::{json, result, timeshare};

const VM_IDS: &[&str] = &[
    "vm.seqpage",
    "vm.seqpage.advise",
    "vm.randpage",
    "vm.randpage.advise",
    "vm.gausspage.1",
    "vm.gausspage.10",
    "vm.gausspage.30",
    "vm.gausspage.40",
    "vm.gausspage.50",
    "vm.gausspage.60",
    "vm.gausspage.80",
    "vm.gausspage.10000",
    "vm.pagefault",
];

fn detail(run: &serde_json::Value, id: &str, field: &str) -> f64 {
    result(run, id)["details"][field]
        .as_f64()
        .unwrap_or_else(|| panic!("{id}: no {field}"))
}

#[test]
fn vm_and_cache_quick_report_every_id_with_the_seeds_shape() {
    let started = Instant::now();
    let out = timeshare()
        .args([
            "run",
            "vm",
            "cpu.cache",
            "--quick",
            "--verbose",
            "--json",
            "-",
        ])
        .assert()
        .success();
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(60), "took {elapsed:?}");
    let run = json(&out.get_output().stdout);
    for id in VM_IDS.iter().chain(&["cpu.cache"]) {
        let r = result(&run, id);
        assert_eq!(r["status"]["state"], "ok", "{id}: {}", r["status"]);
    }
    // Fresh memory: seqpage's first pass faults once per page of the 7,500.
    let first = detail(&run, "vm.seqpage", "first_pass_minor_faults");
    assert!((7_400.0..7_700.0).contains(&first), "{first}");
    assert!(detail(&run, "vm.seqpage", "fault_service_s") > 0.0);
    // Table 7's shape: the narrower the walk, the fewer the faults.
    let faults: Vec<f64> = ["1", "10", "30", "50", "80", "10000"]
        .iter()
        .map(|s| detail(&run, &format!("vm.gausspage.{s}"), "minor_faults"))
        .collect();
    assert!(faults.windows(2).all(|w| w[0] < w[1]), "{faults:?}");
    assert!(faults[0] * 20.0 < faults[5], "{faults:?}");
    // The fault on a cached file page was counted once per read.
    let per_touch = detail(&run, "vm.pagefault", "faults_per_touch");
    assert!((0.9..1.2).contains(&per_touch), "{per_touch}");
    // At least two distinct latency plateaus (L1 vs anything beyond it differ by > 2×).
    let cache = &result(&run, "cpu.cache")["details"];
    let plateaus: Vec<f64> = cache["plateaus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["ns"].as_f64().unwrap())
        .collect();
    assert!(plateaus.len() >= 2, "{cache}");
    let (lo, hi) = plateaus
        .iter()
        .fold((f64::MAX, 0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    assert!(hi > 2.0 * lo, "{plateaus:?}");
    let tables = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        tables.contains("Paging (seed 001 Tables 7 and 8)"),
        "{tables}"
    );
    assert!(tables.contains("Memory hierarchy (cpu.cache"), "{tables}");
}

#[test]
fn pages_are_configurable_and_faults_follow_them() {
    let out = timeshare()
        .args(["run", "vm.seqpage", "--pages", "3000", "--json", "-"])
        .assert()
        .success();
    let run = json(&out.get_output().stdout);
    assert_eq!(run["options"]["pages"], 3000);
    let first = detail(&run, "vm.seqpage", "first_pass_minor_faults");
    assert!((2_950.0..3_150.0).contains(&first), "{first}");
    assert_eq!(detail(&run, "vm.seqpage", "touches"), 30_000.0);
}

#[test]
fn an_allocation_larger_than_the_machine_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    let out = timeshare()
        .args(["run", "vm", "--pages", "1099511627776", "--json"])
        .arg(&path)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("more than this machine's"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!path.exists(), "nothing may run");
    for bad in [
        vec!["--memory-limit", "lots"],
        vec!["--memory-limit", "1G"],
        vec!["--pages", "0"],
    ] {
        timeshare()
            .args(["run", "vm.seqpage"])
            .args(&bad)
            .assert()
            .code(2);
    }
}

#[test]
fn memory_limit_mode_pages_for_real_or_says_why_not() {
    let out = timeshare()
        .args([
            "run",
            "vm.randpage",
            "--pages",
            "3000",
            "--memory-limit",
            "4M",
            "--json",
            "-",
        ])
        .assert()
        .success();
    let run = json(&out.get_output().stdout);
    let d = &result(&run, "vm.randpage")["details"];
    let limit = &d["memory_limit"];
    if limit["applied"] == true {
        // 30,000 touches of 3,000 pages (11.7 MiB) under 4 MiB: most pages are read back.
        let major = d["major_faults"].as_f64().unwrap();
        assert!(major > 1_000.0, "{d}");
        let dir = limit["dir"].as_str().unwrap();
        assert!(!std::path::Path::new(dir).exists(), "{dir} left behind");
    } else {
        assert!(
            limit["why"].as_str().unwrap().contains("cannot set"),
            "{limit}"
        );
        assert_eq!(d["major_faults"], 0.0);
    }
}
