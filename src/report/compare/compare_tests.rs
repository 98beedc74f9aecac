use super::*;
use crate::model::change;
use crate::model::invocations::Invocations;
use crate::model::levels::merge;
use crate::model::seeded::Seeded;
use crate::model::{Basis, Sample, Summary};
use crate::model::{BenchResult, Better, Unit};

/// A standard normal variate (Box–Muller).
fn normal(rng: &mut Seeded) -> f64 {
    let (u, v): (f64, f64) = (rng.unit().max(1e-300), rng.unit());
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// One id measured in `k` invocations of 21 samples, with the noise seen on this
/// kind of machine: each process lands 1.5% (sd) away from the true figure (1.0–1.6%
/// measured here for syscall.read and syscall.getpid.libc), samples
/// within it spread 3%, and one sample in ten hit by an interrupt (+30%).
fn id_result(id: &str, truth: f64, k: usize, rng: &mut Seeded) -> BenchResult {
    id_in_states(id, truth, (k, k), rng)
}

/// [`id_result`] of `processes.1` processes, of which the first `processes.0` in the
/// fast state and the rest in a state 35% slower (as a VM's host puts them).
fn id_in_states(id: &str, truth: f64, processes: (usize, usize), rng: &mut Seeded) -> BenchResult {
    let (fast, k) = processes;
    let parts: Vec<BenchResult> = (0..k)
        .map(|i| {
            let state = if i < fast { 1.0 } else { 1.35 };
            let centre = truth * state * (0.015 * normal(rng)).exp();
            let values: Vec<f64> = (0..21)
                .map(|_| {
                    let hit = if rng.unit() < 0.1 { 1.3 } else { 1.0 };
                    centre * (0.03 * normal(rng)).exp() * hit
                })
                .collect();
            BenchResult {
                summary: Summary::from_values(&values).ok(),
                samples: values
                    .iter()
                    .map(|&value| Sample::unperturbed(value))
                    .collect(),
                ..BenchResult::new(
                    id,
                    "syscall",
                    "test",
                    Unit::Seconds,
                    Better::Lower,
                    Some(Basis::per("call")),
                )
            }
        })
        .collect();
    merge(&parts)
}

fn fixture(seed: u64, k: usize, slow: Option<(usize, f64)>) -> Column {
    let mut rng = Seeded::new(seed);
    let results = (0..40)
        .map(|i| {
            let factor = match slow {
                Some((j, f)) if j == i => f,
                _ => 1.0,
            };
            let truth = 1e-7 * (1.0 + i as f64) * factor;
            id_result(&format!("syscall.fixture{i}"), truth, k, &mut rng)
        })
        .collect();
    Column::Run {
        name: format!("run {seed}"),
        about: "fixture".into(),
        run: Box::new(Run::of(results)),
    }
}

/// The text with its folded lines joined again: a note or a footnote on one line.
fn unfolded(text: &str) -> String {
    text.replace("\n    ", " ").replace("\n  ", " ")
}

/// The table's rows whose verdict is "faster" or "slower".
fn changed(table: &str) -> Vec<String> {
    table
        .lines()
        .filter(|l| {
            l.starts_with(" syscall.")
                && l.split_whitespace().any(|w| w == "faster" || w == "slower")
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn an_a_a_comparison_stays_quiet_and_a_ten_percent_slowdown_is_found() {
    let mut false_calls = 0;
    let mut tested = 0;
    let mut found = 0;
    let pairs = 40;
    for seed in 0..pairs {
        let (a, b) = (fixture(2 * seed, 5, None), fixture(2 * seed + 1, 5, None));
        let t = compare_table(&[a, b], change::DEFAULT_MIN_EFFECT).unwrap();
        assert!(
            t.contains("40 ids tested (all at the process level)"),
            "{t}"
        );
        false_calls += changed(&t).len();
        tested += 40;

        let (a, b) = (
            fixture(2 * seed, 5, None),
            fixture(2 * seed + 1, 5, Some((7, 1.10))),
        );
        let t = compare_table(&[a, b], change::DEFAULT_MIN_EFFECT).unwrap();
        let calls = changed(&t);
        if calls
            .iter()
            .any(|l| l.contains("syscall.fixture7 ") && l.contains("slower"))
        {
            found += 1;
        }
        // Nothing else is called changed for it.
        assert!(calls.len() <= 2, "seed {seed}:\n{t}");
    }
    // Power, not certainty: with five processes a side and 1.5% between them, the
    // slowdown is found in nearly every pair (about 80% at 2% between processes).
    assert!(
        found * 100 >= 85 * pairs,
        "the 10% slowdown was found in only {found} of {pairs} pairs"
    );
    assert!(
        false_calls * 20 <= tested,
        "{false_calls} of {tested} A/A tests called changed"
    );
}

/// `c` with every figure of every id × `factor`, and each id's learned run-to-run
/// spread `sd_log` when given.
fn shifted(c: Column, factor: f64, sd_log: Option<f64>) -> Column {
    let Column::Run { name, about, run } = c else {
        unreachable!("a fixture is a run")
    };
    let mut results = run.results.clone();
    for id in run.results.iter().map(|r| r.id.clone()) {
        results = crate::model::agreement::inject_results(&results, &id, factor);
    }
    for r in &mut results {
        r.invocations.as_mut().unwrap().runs =
            sd_log.map(|sd_log| crate::model::invocations::RunLevel {
                earlier_runs: 3,
                sd_log,
                df: 80,
                low: 0.0,
                high: 0.0,
                process_low: 0.0,
                process_high: 0.0,
            });
    }
    Column::Run {
        name,
        about,
        run: Box::new(Run::of(results)),
    }
}

#[test]
fn a_whole_run_a_few_percent_off_is_the_machine_when_its_runs_differ_that_much() {
    // Every id of the second run 7% slower, its processes as tight as the first's
    // (1.5% apart): what a machine whose runs differ does to a run as a whole. The
    // processes alone call most of the 40 ids slower, and the footnote says nothing
    // was learned about the runs.
    let t = compare_table(
        &[
            fixture(1, 5, None),
            shifted(fixture(2, 5, None), 1.07, None),
        ],
        0.05,
    )
    .unwrap();
    assert!(changed(&t).len() >= 30, "{t}");
    assert!(
        unfolded(&t).contains("none against how far this machine's runs differ"),
        "{t}"
    );
    // The second run learned from earlier runs that this machine's runs differ by
    // 3% (sd of ln): 7% is within 2.64 · √2 · 3% = 11.2%, and nothing is called.
    let learned = shifted(fixture(2, 5, None), 1.07, Some(0.03));
    let t = compare_table(&[fixture(1, 5, None), learned], 0.05).unwrap();
    assert!(changed(&t).is_empty(), "{t}");
    assert!(
        unfolded(&t).contains(
            "40 of them also against how far this machine's earlier runs differed (a \
             change must exceed ×1.12)"
        ),
        "{t}"
    );
    // A 20% slowdown of one id stands out from both.
    let Column::Run { name, about, run } = shifted(fixture(2, 5, None), 1.0, Some(0.03)) else {
        unreachable!()
    };
    let slowed = crate::model::agreement::inject_results(&run.results, "syscall.fixture7", 1.2);
    let b = Column::Run {
        name,
        about,
        run: Box::new(Run::of(slowed)),
    };
    let t = compare_table(&[fixture(1, 5, None), b], 0.05).unwrap();
    let calls = changed(&t);
    assert_eq!(calls.len(), 1, "{t}");
    assert!(calls[0].contains("syscall.fixture7 "), "{t}");
}

#[test]
fn a_run_that_missed_the_fast_state_is_compared_state_for_state_and_says_so() {
    let column = |seed: u64, fast: usize, factor: f64| {
        let mut rng = Seeded::new(seed);
        let results = (0..5)
            .map(|i| {
                let truth = 1e-7 * (1.0 + i as f64) * factor;
                let fast = if i == 2 { fast } else { 12 };
                id_in_states(&format!("syscall.fixture{i}"), truth, (fast, 12), &mut rng)
            })
            .collect();
        Column::Run {
            name: format!("run {seed}"),
            about: "fixture".into(),
            run: Box::new(Run::of(results)),
        }
    };
    // fixture2: the first run caught the fast state in four processes of twelve, the
    // second in none. Its headline is 35% slower; state for state it is the same.
    let t = compare_table(&[column(1, 4, 1.0), column(2, 0, 1.0)], 0.05).unwrap();
    let row = t.lines().find(|l| l.contains("syscall.fixture2 ")).unwrap();
    assert!(row.contains("×1.3") && row.contains("no change (1)"), "{t}");
    assert!(
        unfolded(&t).contains(
            "(1) no significant change, state for state: all 12 processes of the second run \
             were in the state 8 of the first run's slower processes were in"
        ),
        "{t}"
    );
    assert!(unfolded(&t).contains("— syscall.fixture2"), "{t}");
    assert!(changed(&t).is_empty(), "{t}");
    // The same runs with the second 10% slower in every process: found, state for
    // state.
    let t = compare_table(&[column(1, 4, 1.0), column(2, 0, 1.1)], 0.05).unwrap();
    let calls = changed(&t);
    assert!(
        calls
            .iter()
            .any(|l| l.contains("syscall.fixture2 ") && l.contains("slower (")),
        "{t}"
    );
    assert!(
        unfolded(&t).contains(", state for state: all 12 processes"),
        "{t}"
    );
}

#[test]
fn runs_of_one_process_fall_back_to_samples_and_say_so() {
    let t = compare_table(&[fixture(1, 1, None), fixture(2, 1, None)], 0.05).unwrap();
    assert!(t.contains("all on samples"), "{t}");
    let merged = id_result("x", 1.0, 3, &mut Seeded::new(3));
    assert_eq!(merged.invocations.as_ref().map(Invocations::count), Some(3));
    assert_eq!(merged.samples.len(), 63);
}

/// A run column of `figures` (id, figure in seconds), measured in five processes.
fn run_of(name: &str, figures: &[(String, f64)], seed: u64) -> Column {
    let mut rng = Seeded::new(seed);
    let results = figures
        .iter()
        .map(|(id, truth)| id_result(id, *truth, 5, &mut rng))
        .collect();
    Column::Run {
        name: name.into(),
        about: format!("a run with the label {}", "L".repeat(150)),
        run: Box::new(Run::of(results)),
    }
}

#[test]
fn every_line_fits_100_columns_whatever_the_ids_and_figures() {
    let unbroken = format!("syscall.{}", "x".repeat(300));
    let dotted = format!("syscall{}", ".a_long_part".repeat(12));
    let alone = format!("pipe.{}", "y".repeat(200));
    let first = [
        (unbroken.clone(), 1e300),
        (dotted.clone(), 1e-300),
        ("syscall.getpid".to_string(), 1e-7),
        (alone.clone(), 1.0),
    ];
    let second = [
        (unbroken.clone(), 1e-300),
        (dotted.clone(), 1e300),
        ("syscall.getpid".to_string(), 3e-7),
    ];
    let long_name = "a host of a campaign with a very long name (run 123456)";
    let columns = [run_of("run 1", &first, 1), run_of(long_name, &second, 2)];
    let t = compare_table(&columns, 0.05).unwrap();
    for line in t.lines() {
        assert!(
            line.chars().count() <= 100,
            "{} wide: {line}",
            line.chars().count()
        );
    }
    // One table: a header, and a row for each of the three common ids.
    assert_eq!(
        t.lines().filter(|l| l.starts_with(" benchmark ")).count(),
        1,
        "{t}"
    );
    let rows: Vec<&str> = t.lines().filter(|l| l.starts_with(" syscall")).collect();
    assert_eq!(rows.len(), 3, "{t}");
    // The extreme figures with an exponent, the long ids shortened and given whole below,
    // broken over lines only there.
    assert!(
        rows[0].contains("e300 s") && rows[0].contains("e-300 s"),
        "{t}"
    );
    assert!(rows[0].contains("… ("), "{t}");
    let whole: String = t.lines().map(str::trim_start).collect();
    assert!(whole.contains(&unbroken) && whole.contains(&dotted), "{t}");
    assert!(
        rows[2].contains("×3.0") && rows[2].contains("slower ("),
        "{t}"
    );
    // The id of one side only is counted, not given a row of dashes.
    assert!(t.contains("only in run 1: 1 id (pipe.yyy"), "{t}");
    let table_rows = t
        .lines()
        .filter(|l| l.starts_with(' ') && !l.starts_with("  "));
    assert!(
        table_rows.clone().count() == 4 && table_rows.clone().all(|l| !l.contains('—')),
        "a header and three rows, none of a missing figure: {t}"
    );
}

/// The rows of `table` (a line of one space, then an id), in its tables' order.
fn id_rows(table: &str) -> Vec<&str> {
    table
        .lines()
        .filter(|l| l.starts_with(' ') && !l.starts_with("  ") && !l.starts_with(" benchmark"))
        .collect()
}

#[test]
fn more_than_two_columns_print_one_table_per_comparison_within_100_columns() {
    let unbroken = format!("syscall.{}", "x".repeat(300));
    let dotted = format!("syscall{}", ".a_long_part".repeat(12));
    let first = [
        (unbroken.clone(), 1e300),
        (dotted.clone(), 1e-300),
        ("syscall.getpid".to_string(), 1e-7),
    ];
    let second = [
        (unbroken.clone(), 1e-300),
        (dotted.clone(), 1e300),
        ("syscall.getpid".to_string(), 3e-7),
    ];
    // The third has one id of the first only: its table has that row alone.
    let third = [("syscall.getpid".to_string(), 1e-7)];
    let long_name = "a host of a campaign with a very long name (run 123456)";
    let machine = crate::reference::machine("vax750-4.3bsd").unwrap();
    let figures = crate::reference::figures_of("vax750-4.3bsd")
        .into_iter()
        .filter(|f| f.quantity == crate::reference::Quantity::Headline)
        .collect();
    let columns = [
        run_of("run 1", &first, 1),
        run_of(long_name, &second, 2),
        run_of("run 3", &third, 3),
        Column::Machine { machine, figures },
    ];
    let t = compare_table(&columns, 0.05).unwrap();
    for line in t.lines() {
        assert!(
            line.chars().count() <= 100,
            "{} wide: {line}",
            line.chars().count()
        );
    }
    // One table per comparison, each under its heading, each with one figure, one ratio
    // and one verdict beside the first column's figure: never a comparison cut in parts.
    let headers: Vec<&str> = t.lines().filter(|l| l.starts_with(" benchmark ")).collect();
    assert_eq!(headers.len(), 3, "{t}");
    for h in &headers {
        let words: Vec<&str> = h.split_whitespace().collect();
        assert_eq!(words.iter().filter(|w| **w == "ratio").count(), 1, "{h}");
        assert_eq!(words.last(), Some(&"verdict"), "{h}");
    }
    let unfolded = unfolded(&t);
    assert!(
        unfolded.contains(
            "a host of a campaign with a very long name (run 123456) against run 1: 3 ids"
        ),
        "{t}"
    );
    assert!(
        unfolded.contains(
            "run 3 against run 1: 1 id (2 ids the other tables compare are not in run 3)"
        ),
        "{t}"
    );
    assert!(
        unfolded.contains("vax750-4.3bsd against run 1: 1 id"),
        "{t}"
    );
    // Three rows, then the one id run 3 has, then the one the machine has: no row of
    // dashes, the extreme figures with an exponent, the long ids shortened.
    let rows = id_rows(&t);
    assert_eq!(rows.len(), 5, "{t}");
    assert!(rows.iter().all(|r| !r.contains('—')), "{t}");
    assert!(
        rows[0].contains("e300 s") && rows[0].contains("e-300 s") && rows[0].contains("… ("),
        "{t}"
    );
    assert!(
        rows[3..].iter().all(|r| r.starts_with(" syscall.getpid ")),
        "{t}"
    );
    assert!(
        rows[2].contains("×3.0") && rows[2].contains("slower ("),
        "{t}"
    );
    let whole: String = t.lines().map(str::trim_start).collect();
    assert!(whole.contains(&unbroken) && whole.contains(&dotted), "{t}");
}
