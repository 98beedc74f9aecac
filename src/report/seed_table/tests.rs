use super::*;
use crate::model::OpTimes;

/// A measured row of `unit` whose sampled operation took 1 s, 0.25 s of it in user
/// mode and `system_s` in the kernel.
fn timed(unit: Unit, system_s: f64) -> BenchResult {
    let better = match unit {
        Unit::BytesPerSecond => Better::Higher,
        _ => Better::Lower,
    };
    BenchResult {
        status: Status::Ok,
        summary: Some(crate::model::Summary::around(5e6, 1e4)),
        times: Some(OpTimes {
            ops: 10,
            elapsed_s: 1.0,
            user_s: 0.25,
            system_s,
        }),
        ..BenchResult::new(
            "pipe.bw.self",
            "pipe",
            "fixture",
            unit,
            better,
            Some(Basis::per("byte")),
        )
    }
}

/// A measured time row of `id`: `seconds` per operation of `basis`.
fn ok_result(id: &str, seconds: f64, basis: Basis) -> BenchResult {
    BenchResult {
        status: Status::Ok,
        summary: Some(crate::model::Summary::around(seconds, seconds / 100.0)),
        ..BenchResult::new(
            id,
            "syscall",
            "fixture",
            Unit::SecondsPerOp,
            Better::Lower,
            Some(basis),
        )
    }
}

#[test]
fn a_rate_row_s_cpu_time_is_a_share_of_its_real_time_never_seconds_per_byte() {
    let r = timed(Unit::BytesPerSecond, 0.5);
    let user = today(Some(&r), Quantity::User, None).unwrap();
    assert_eq!(user.unit(), Unit::Ratio);
    assert!((user.value() - 0.25).abs() < 1e-12, "{user:?}");
    assert_eq!(today_text(Some(&r), Quantity::System, None), "50.0%");
    // A time row keeps seconds per operation.
    let t = timed(Unit::SecondsPerOp, 0.5);
    assert_eq!(
        today(Some(&t), Quantity::User, None).unwrap().unit(),
        Unit::SecondsPerOp
    );
    assert_eq!(
        column_kind(Quantity::Cpu, Unit::BytesPerSecond, &Basis::per("byte")).0,
        Unit::Ratio
    );
}

#[test]
fn a_share_no_tick_saw_is_printed_as_zero_and_no_real_time_gives_none() {
    let r = timed(Unit::BytesPerSecond, 0.0);
    assert_eq!(today_text(Some(&r), Quantity::System, None), "0");
    let mut none = timed(Unit::BytesPerSecond, 0.5);
    none.times.as_mut().unwrap().elapsed_s = 0.0;
    assert!(today(Some(&none), Quantity::User, None).is_none());
}

/// A run of `cpu.cache` whose counted pass read `counters` (none: not counted).
fn cache_run(counters: Option<Vec<(&'static str, crate::model::observe::Reading)>>) -> Run {
    use crate::model::observe::{Counted, Observation, PerfCounters};
    let observe = counters.map(|cs| Observation {
        counters: Some(PerfCounters {
            ops: 1000,
            counters: cs
                .into_iter()
                .map(|(name, reading)| Counted {
                    name: name.to_string(),
                    hardware: true,
                    reading,
                })
                .collect(),
        }),
        ..Observation::default()
    });
    Run::of(vec![BenchResult {
        status: Status::Ok,
        summary: Some(crate::model::Summary::around(2e-9, 1e-11)),
        observe,
        ..BenchResult::new(
            "cpu.cache",
            "cache",
            "fixture",
            Unit::SecondsPerOp,
            Better::Lower,
            None,
        )
    }])
}

#[test]
fn table_4_s_hit_rate_is_today_s_counted_one_or_says_why_not() {
    use crate::model::observe::Reading;
    let table = find("000-4").unwrap();
    let counted = |total| Reading::Counted {
        total,
        per_op: total as f64 / 1000.0,
        running: 1.0,
    };
    let text = render(
        table,
        &cache_run(Some(vec![
            ("cache-references", counted(1000)),
            ("cache-misses", counted(27)),
        ])),
        "run 1",
        false,
    );
    assert!(
        text.contains("cache hit rate today: 97.3% (1 − cache-misses"),
        "{text}"
    );
    let pmu = "no hardware PMU: the kernel exposes no CPU performance counters here";
    let none = |name: &'static str| {
        (
            name,
            Reading::Unavailable {
                reason: pmu.to_string(),
            },
        )
    };
    let text = render(
        table,
        &cache_run(Some(vec![none("cache-references"), none("cache-misses")])),
        "run 1",
        false,
    );
    assert!(
        text.contains(&format!("cache hit rate today: unavailable ({pmu})")),
        "{text}"
    );
    let text = render(table, &cache_run(None), "run 1", false);
    assert!(
        text.contains("cache hit rate today: not counted in this run"),
        "{text}"
    );
    // More misses than references is not a rate, and is not printed as one.
    let text = render(
        table,
        &cache_run(Some(vec![
            ("cache-references", counted(10)),
            ("cache-misses", counted(27)),
        ])),
        "run 1",
        false,
    );
    let line = text
        .lines()
        .find(|l| l.starts_with("cache hit rate today"))
        .unwrap();
    assert!(line.contains("not a rate") && !line.contains('%'), "{line}");
}

/// A run whose `load.script.N` rows took `real_s` per script, CPU a quarter of it.
fn scripts_run(rows: &[(usize, f64)]) -> Run {
    use crate::model::details::load::PER_SCRIPT;
    let results = rows
        .iter()
        .map(|&(n, real_s)| BenchResult {
            status: Status::Ok,
            summary: Some(crate::model::Summary::around(real_s, real_s / 100.0)),
            times: Some(OpTimes {
                ops: 1,
                elapsed_s: real_s,
                user_s: real_s / 8.0,
                system_s: real_s / 8.0,
            }),
            ..BenchResult::new(
                format!("load.script.{n}"),
                "load",
                "fixture",
                Unit::Seconds,
                Better::Lower,
                Some(Basis::per(PER_SCRIPT)),
            )
        })
        .collect();
    Run::of(results)
}

#[test]
fn table_10_of_seed_000_sets_c8_beside_c7_each_with_its_own_ratio() {
    let table = find("000-10").unwrap();
    let text = render(
        table,
        &scripts_run(&[(1, 0.5), (5, 1.0), (9, 2.0)]),
        "run 1",
        false,
    );
    let header: String = text.lines().take(6).collect::<Vec<_>>().join("\n");
    assert!(header.contains("pdp11-70 (C7), pdp11-70 (C8)"), "{text}");
    let cells = |prefix: &str| -> Vec<String> {
        let line = text
            .lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix}: {text}"));
        line.split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect()
    };
    // 1 script: C7's 4:18.7 and C8's 4:07.0, each over today's 0.5 s.
    assert_eq!(
        cells(" # Scripts 1"),
        [
            "# Scripts 1",
            "load.script.1",
            "elapsed",
            "500 ms",
            "560 s",
            "259 s",
            "247 s",
            &format!("≈{}×", figures3(258.7 / 0.5)),
            &format!("≈{}×", figures3(247.0 / 0.5)),
        ],
        "{text}"
    );
    // 5 scripts: C8's 16:25.4 over today's 1 s.
    let five = cells(" # Scripts 5");
    assert_eq!(
        five.last().unwrap(),
        &format!("≈{}×", figures3(985.4)),
        "{text}"
    );
    // 9 scripts: C8 ran none, so no C8 figure and no ratio against it; C7's is there.
    let nine = cells(" # Scripts 9");
    assert_eq!(nine.len(), 7, "{nine:?}\n{text}");
    assert_eq!(nine[5], "1767 s", "{text}");
    assert_eq!(nine[6], format!("≈{}×", figures3(1767.4 / 2.0)), "{text}");
}

#[test]
fn table_9_prints_the_paper_s_words_today_s_failure_point_and_no_speed_up() {
    use crate::model::details::load::CpuCopies;
    use crate::model::Details;
    let copies = CpuCopies {
        copies: 15,
        footprint_bytes: 0,
        rounds: 0,
        per_copy_real_user_sys_s: Vec::new(),
        limit_hit: Some("fork: no more processes (RLIMIT_NPROC)".into()),
        driver: None,
        summary: None,
    };
    let mut run = scripts_run(&[]);
    run.results.push(BenchResult {
        status: Status::Ok,
        summary: Some(crate::model::Summary::around(2.0, 0.01)),
        details: Some(Details::of(&copies)),
        ..BenchResult::new(
            "load.cpu.15",
            "load",
            "fixture",
            Unit::Seconds,
            Better::Lower,
            Some(Basis::per(crate::model::details::load::PER_COPY)),
        )
    });
    let text = render(find("000-9").unwrap(), &run, "run 1", false);
    let row = text.lines().find(|l| l.contains(" load.cpu.15 ")).unwrap();
    assert!(row.contains("Ran Out Of"), "{text}");
    assert!(!row.contains('×'), "a copy's length is calibrated: {text}");
    assert!(
        text.contains(
            "failure point: load.cpu.15 stopped coping: fork: no more processes (RLIMIT_NPROC)"
        ),
        "{text}"
    );
    assert!(
        text.contains("not comparable: load.cpu.15: today's copy"),
        "{text}"
    );
}

#[test]
fn a_table_with_one_configuration_a_machine_keeps_one_column_and_one_ratio() {
    // Table 9: the 11/70 in C7 only.
    let table = find("000-9").unwrap();
    let figures = table.figures();
    let columns: Vec<String> = table.columns(&figures).iter().map(|c| c.name()).collect();
    assert_eq!(columns, ["pdp11-45", "pdp11-70"]);
    let columns: Vec<String> = find("000-10")
        .unwrap()
        .columns(&find("000-10").unwrap().figures())
        .iter()
        .map(|c| c.name())
        .collect();
    assert_eq!(columns, ["pdp11-45", "pdp11-70 (C7)", "pdp11-70 (C8)"]);
}

#[test]
fn kashtan_shows_today_s_user_and_system_and_table_2_keeps_them_for_wide() {
    let kashtan = find("003-kashtan").unwrap();
    assert_eq!(
        kashtan.shown(false),
        vec![Quantity::Headline, Quantity::User, Quantity::System]
    );
    // The note's User and Sys of the one-process programs, none of the two-process.
    let figures = kashtan.figures();
    let has = |id: &str, q: Quantity| figures.iter().any(|f| f.id == id && f.quantity == q);
    assert!(has("pipe.bw.self", Quantity::System) && has("io.randwrite", Quantity::User));
    assert!(!has("pipe.bw.one", Quantity::System) && !has("signal.self", Quantity::User));
    assert_eq!(
        find("001-2").unwrap().shown(false),
        vec![Quantity::Headline]
    );
}

/// The figures after `id` on its line in `text`, in the order printed (a wrapped label
/// leaves the figures on the id's line; the label's own numbers come before the id).
fn figures_on(text: &str, id: &str) -> Vec<f64> {
    let line = text
        .lines()
        .find(|l| l.split_whitespace().any(|w| w == id))
        .unwrap_or_else(|| panic!("no {id}: {text}"));
    line.split_whitespace()
        .skip_while(|w| *w != id)
        .filter_map(|w| w.parse::<f64>().ok())
        .collect()
}

#[test]
fn the_perq_notes_stat_and_open_close_are_rows_with_ratios() {
    // Columns perq-accent, perq-mcunix, perq-pnx, pdp11-70-ral: 208, 24, 19, 8 ms
    // and > 1 sec, 26, 19, 7 ms, as printed.
    let run = Run::of(vec![
        ok_result("syscall.stat", 2e-6, Basis::per("stat of a file")),
        ok_result(
            "syscall.open_close",
            4e-6,
            Basis::per("open and close of a file"),
        ),
    ]);
    let c32 = render(find("003-c32").unwrap(), &run, "run 1", false);
    assert_eq!(
        figures_on(&c32, "syscall.stat"),
        [2.0, 208.0, 24.0, 19.0, 8.0]
    );
    // Accent's cell is the words "> 1 sec", whose 1 the line's numbers include.
    assert_eq!(
        figures_on(&c32, "syscall.open_close"),
        [4.0, 1.0, 26.0, 19.0, 7.0]
    );
    let line = |id: &str| c32.lines().find(|l| l.contains(id)).unwrap().to_string();
    // Today over the 11/70: 8 ms / 2 µs and 7 ms / 4 µs.
    assert!(
        line("syscall.stat").contains(&format!("{}×", figures3(4000.0))),
        "{c32}"
    );
    assert!(
        line("syscall.open_close").contains(&format!("{}×", figures3(1750.0))),
        "{c32}"
    );
    assert!(
        line("syscall.open_close").contains("> 1"),
        "Accent's words: {c32}"
    );
    assert!(
        !c32.contains("stat / open and close"),
        "no longer a paper: line: {c32}"
    );
}

#[test]
fn no_heading_says_no_historical_figures_above_a_paper_line() {
    let empty = Run::of(vec![]);
    let mut with_lines = 0;
    for table in TABLES.iter().filter(|t| t.key != "000-B") {
        let text = render(table, &empty, "run 1", false);
        if text.lines().any(|l| l.starts_with("paper: ")) {
            with_lines += 1;
            assert!(
                !text.contains("no historical figures"),
                "{}: {text}",
                table.key
            );
        }
    }
    assert!(with_lines >= 5, "{with_lines} tables with paper: lines");
}

#[test]
fn tables_9_and_10_have_the_paper_s_ratio_real_in_c7_and_c8() {
    let ratio_real = |key: &str, config: &str| -> Vec<f64> {
        find(key)
            .unwrap()
            .figures()
            .iter()
            .filter(|f| f.quantity == Quantity::RatioReal && f.config() == Some(config))
            .map(|f| f.value)
            .collect()
    };
    assert_eq!(ratio_real("000-9", "C7"), [2.6, 3.5, 3.7, 4.2]);
    assert_eq!(ratio_real("000-10", "C7"), [2.2, 2.7, 3.0]);
    assert_eq!(ratio_real("000-10", "C8"), [2.3, 2.7]);
    let text = render(find("000-9").unwrap(), &Run::of(vec![]), "run 1", false);
    assert!(text.contains("ratio real"), "{text}");
    // The 10-copy row's 11/70 cell holds its real, CPU, Inc and Ratio Real.
    let start = text.find("load.cpu.10").unwrap();
    let row: String = text[start..].lines().take(4).collect::<Vec<_>>().join("\n");
    assert!(row.contains("4.2"), "{row}");
}

#[test]
fn the_perq_notes_nested_calls_are_rows_in_their_columns() {
    // Columns perq-accent, perq-mcunix, perq-pnx, pdp11-70-ral, as printed.
    let empty = Run::of(vec![]);
    let c16 = render(find("003-c16").unwrap(), &empty, "run 1", false);
    let c32 = render(find("003-c32").unwrap(), &empty, "run 1", false);
    assert_eq!(
        figures_on(&c16, "call.nested5.noargs"),
        [484.0, 78.0, 78.0, 110.0]
    );
    assert_eq!(
        figures_on(&c16, "call.nested5"),
        [590.0, 120.0, 126.0, 117.0]
    );
    assert_eq!(
        figures_on(&c16, "call.nested5.byref"),
        [522.0, 99.0, 102.0, 114.0]
    );
    assert_eq!(
        figures_on(&c32, "call.nested5.noargs"),
        [484.0, 78.0, 78.0, 110.0]
    );
    assert_eq!(
        figures_on(&c32, "call.nested5"),
        [537.0, 103.0, 104.0, 130.0]
    );
    assert_eq!(
        figures_on(&c32, "call.nested5.byref"),
        [504.0, 102.0, 102.0, 132.0]
    );
    for text in [&c16, &c32] {
        assert!(!text.contains("no row today"), "{text}");
    }
}

#[test]
fn seed_004s_spread_is_set_beside_the_80_process_trials() {
    use crate::model::exercise::sweep_fixture;
    let run = sweep_fixture(&[(8, &[10.0, 12.0, 14.0]), (80, &[100.0, 110.0])], None);
    let text = render(find("004-graphs").unwrap(), &run, "run 1", false);
    assert!(
        text.contains("today's 2 trials at 80 (exercise.batch.80)"),
        "{text}"
    );
    let row = |what: &str| -> Vec<String> {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{what} ")))
            .unwrap_or_else(|| panic!("no {what}: {text}"));
        line.split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(String::from)
            .collect()
    };
    // The paper's 15:43 ± 3.3 s (0.35%); today's 105 s ± 7.07 s (6.73%); user 60% of
    // it per instance, 80 instances.
    assert_eq!(
        row("real"),
        ["real", "943 s", "3.30 s", "0.35%", "105 s", "7.07 s", "6.73%"]
    );
    assert_eq!(row("user")[1..4], ["673 s", "800 ms", "0.12%"]);
    assert_eq!(row("user")[4..], ["5040 s", "339 s", "6.73%"]);
    assert_eq!(row("sys")[3], "1.21%");
    // Without a size of several trials, no spread and how to make one.
    let once = sweep_fixture(&[(8, &[10.0]), (16, &[20.0])], None);
    let text = render(find("004-graphs").unwrap(), &once, "run 1", false);
    assert!(text.contains("--sweep 16 --trials 7"), "{text}");
}

#[test]
fn seed_004s_failure_point_is_the_first_size_that_failed() {
    use crate::model::exercise::sweep_fixture;
    let run = sweep_fixture(&[(4, &[1.0]), (8, &[2.0]), (16, &[4.0])], Some(8));
    let text = render(find("004-graphs").unwrap(), &run, "run 1", false);
    assert!(
        text.contains("failure point: 8 processes, the first number of the sweep that failed"),
        "{text}"
    );
    assert!(
        text.contains("failed: exercise.batch.8 (8 processes): 1 of 8"),
        "{text}"
    );
}

#[test]
fn figure_2_s_sys_column_is_a_row_beside_the_kernel_s_clock_read() {
    // Figure 2: sys 220, 150, 150 (fpp), 77, 77 (fpp) µs; user 1340, 870, 1040, 420, 560.
    let clock = Basis::per("clock read");
    let run = Run::of(vec![
        ok_result("timer.clock.kernel", 77e-9, clock.clone()),
        ok_result("timer.clock", 20e-9, clock),
    ]);
    let text = render(find("002-2").unwrap(), &run, "run 1", false);
    assert_eq!(
        figures_on(&text, "timer.clock.kernel"),
        [77.0, 220.0, 150.0, 150.0, 77.0, 77.0],
        "{text}"
    );
    assert_eq!(
        figures_on(&text, "timer.clock")[1..],
        [1.34, 870.0, 1.04, 420.0, 560.0],
        "{text}"
    );
    // 77 µs over 77 ns, marked: a difference of two calls stands in for the event routine.
    let sys = text
        .lines()
        .find(|l| l.contains("timer.clock.kernel"))
        .unwrap();
    assert!(sys.contains(&format!("≈{}×", figures3(1000.0))), "{text}");
    assert!(text.contains("≈ timer.clock.kernel:"), "{text}");
}

#[test]
fn figure_3_s_mean_and_sd_are_beside_today_s_single_calls_with_wide_only() {
    use crate::model::SingleCalls;
    let call = Basis::per("system call");
    let mut direct = ok_result("syscall.args.0", 100e-9, call.clone());
    direct.single_calls = Some(SingleCalls {
        n: 2001,
        subtracted_s: 20e-9,
        median_s: 100e-9,
        mean_s: 130e-9,
        sd_s: 7e-9,
    });
    let run = Run::of(vec![direct, ok_result("syscall.indirect.1", 140e-9, call)]);
    let table = find("002-3").unwrap();
    let narrow = render(table, &run, "run 1", false);
    let stat_lines = |t: &str| t.lines().filter(|l| l.contains("mean (1 call)  ")).count();
    assert_eq!(stat_lines(&narrow), 0, "{narrow}");
    assert!(
        narrow.contains("`timeshare table 002-3 --wide`"),
        "{narrow}"
    );
    // The table's own lines (the lines under it are folded by the terminal's width).
    let widest = |t: &str| {
        t.lines()
            .filter(|l| l.starts_with([' ', '─']))
            .map(|l| l.chars().count())
            .max()
            .unwrap()
    };
    assert!(widest(&narrow) <= DEFAULT_WIDTH, "{narrow}");
    // 11/40, 11/45 fpp, 11/45 (445), 11/70 fpp, 11/70 (220): medians as printed.
    assert_eq!(
        figures_on(&narrow, "syscall.args.0")[..6],
        [100.0, 520.0, 615.0, 445.0, 360.0, 220.0]
    );
    let wide = render(table, &run, "run 1", true);
    assert!(stat_lines(&wide) >= 10, "{wide}");
    assert!(widest(&wide) <= DEFAULT_WIDTH, "printed in parts: {wide}");
    // The first part's lines: today's mean and SD of single calls beside the paper's
    // Mean 549, 616 and SD 153, 5 (11/40, 11/45 fpp); the 11/70 fpp's 367 and 43 in a
    // later part; the columns without fpp have none ("—").
    let lines: Vec<&str> = wide.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("syscall.args.0"))
        .unwrap();
    let numbers = |l: &str| -> Vec<f64> {
        l.split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect()
    };
    assert!(lines[at + 1].contains("mean (1 call)"), "{wide}");
    assert_eq!(numbers(lines[at + 1])[..3], [130.0, 549.0, 616.0], "{wide}");
    assert_eq!(numbers(lines[at + 2])[..3], [7.0, 153.0, 5.0], "{wide}");
    let later = lines[at + 3..]
        .iter()
        .position(|l| l.contains("syscall.args.0"))
        .map(|k| at + 3 + k)
        .unwrap();
    assert_eq!(numbers(lines[later + 1]), [367.0], "{wide}");
    assert!(lines[later + 1].contains('—'), "{wide}");
    assert_eq!(numbers(lines[later + 2]), [43.0], "{wide}");
}
