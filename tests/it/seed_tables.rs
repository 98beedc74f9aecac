//! The seeds' tables as a reader sees them: every key of a fixed run fits the default
//! width of 100 columns, and `--wide` adds the paper's other columns.

use std::path::Path;

use crate::common::{stdout_of, store_with, timeshare, FIXTURE};

/// `timeshare table ARGS` of the fixture's run 1, 100 columns wide, which must succeed.
fn table(db: &Path, args: &[&str]) -> String {
    stdout_of(
        timeshare()
            .env("COLUMNS", "100")
            .arg("table")
            .args(args)
            .args(["--run", "1", "--db"])
            .arg(db.join("runs.db")),
        &args,
    )
}

#[test]
fn every_table_fits_100_columns_by_default() {
    let db = store_with(Path::new(FIXTURE));
    let mut too_wide = Vec::new();
    for t in timeshare::report::seed_table::TABLES {
        let text = table(db.path(), &[t.key]);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        if widest > timeshare::report::seed_table::DEFAULT_WIDTH {
            too_wide.push(format!("{}: {widest} columns", t.key));
        }
    }
    assert!(too_wide.is_empty(), "{too_wide:#?}");
}

#[test]
fn wide_adds_user_and_system_to_table_2_of_seed_001() {
    let db = store_with(Path::new(FIXTURE));
    let narrow = table(db.path(), &["001-2"]);
    let wide = table(db.path(), &["001-2", "--wide"]);
    // By default the elapsed time only — one line per row — and where the rest is.
    let after = |text: &str| {
        let lines: Vec<&str> = text.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains("syscall.getpid"))
            .unwrap_or_else(|| panic!("no getpid row: {text}"));
        (
            lines[at].to_string(),
            lines[at + 1].to_string(),
            lines[at + 2].to_string(),
        )
    };
    let (_, next, _) = after(&narrow);
    assert!(next.contains("signal.pingpong"), "{narrow}");
    assert!(
        narrow.contains("`timeshare table 001-2 --wide`"),
        "{narrow}"
    );
    // With --wide each row has its three statistics, one line each, named.
    let (first, second, third) = after(&wide);
    assert!(first.contains("elapsed"), "{wide}");
    assert!(second.trim_start().starts_with("user"), "{wide}");
    assert!(third.trim_start().starts_with("system"), "{wide}");
    // Two statistics in a row, named in today's header: the median of the samples, the
    // window's mean CPU time (signal.pingpong's sys beside its elapsed, issue 45).
    let header: Vec<&str> = wide
        .lines()
        .take_while(|l| !l.contains("syscall.getpid"))
        .collect();
    let header = header.join("\n");
    for word in ["elapsed:", "median;", "cpu:", "mean"] {
        assert!(header.contains(word), "{word} in the header: {wide}");
    }
    assert!(
        wide.contains("two statistics, so a row's system time"),
        "{wide}"
    );
    assert!(
        !narrow.contains("median;"),
        "one statistic, no names: {narrow}"
    );
    assert!(!wide.contains("--wide`"), "{wide}");
}

/// The fixture's per-command accounting of `id`: (command, average real seconds).
fn accounting(fixture: &serde_json::Value, id: &str) -> Vec<(String, f64)> {
    let row = fixture["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no {id} in the fixture"));
    row["details"]["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["command"].as_str().unwrap().to_string(),
                c["avg_real_s"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// The first line after `after` that starts with ` COMMAND ` (a command's No. Cmds line).
fn count_line<'a>(text: &'a str, command: &str, after: usize) -> &'a str {
    text.lines()
        .skip(after)
        .find(|l| l.starts_with(&format!(" {command} ")))
        .unwrap_or_else(|| panic!("no line of {command}: {text}"))
}

/// The command's avg real line: two after its No. Cmds line (count % between).
fn avg_real_line<'a>(text: &'a str, command: &str, after: usize) -> &'a str {
    let lines: Vec<&str> = text.lines().skip(after).collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(&format!(" {command} ")))
        .unwrap_or_else(|| panic!("no line of {command}: {text}"));
    assert!(lines[at].contains("No. Cmds"), "{}", lines[at]);
    assert!(lines[at + 1].contains("count %"), "{}", lines[at + 1]);
    assert!(lines[at + 2].contains("avg real"), "{}", lines[at + 2]);
    lines[at + 2]
}

#[test]
fn attachment_c_sets_today_s_command_counts_beside_the_paper_s_no_cmds_without_a_ratio() {
    let db = store_with(Path::new(FIXTURE));
    let text = table(db.path(), &["000-C"]);
    let fixture: serde_json::Value =
        serde_json::from_slice(&std::fs::read(FIXTURE).unwrap()).unwrap();
    let start = text
        .lines()
        .position(|l| l.starts_with("9 scripts (load.script.9)"))
        .unwrap_or_else(|| panic!("no 9-script table: {text}"));
    // Today's count of cc, summed over the row's samples, from the stored accounting.
    let row = fixture["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "load.script.9")
        .unwrap();
    let cc = row["details"]["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["command"] == "cc")
        .unwrap()["count"]
        .as_u64()
        .unwrap();
    // Attachment C, 9 scripts: cc ran 69 times on the 11/45 (C2, 2 runs), 70 on the 11/70 (C7).
    let line = count_line(&text, "cc", start);
    assert_eq!(
        cells_of(line),
        vec!["cc", "No. Cmds", &cc.to_string(), "69", "70"],
        "{line}"
    );
}

#[test]
fn attachment_c_sets_today_s_commands_beside_the_paper_s_of_the_same_name() {
    use timeshare::model::unit::format_value;
    use timeshare::model::Unit;
    use timeshare::report::compare::figures3;
    let db = store_with(Path::new(FIXTURE));
    let text = table(db.path(), &["000-C"]);
    let fixture: serde_json::Value =
        serde_json::from_slice(&std::fs::read(FIXTURE).unwrap()).unwrap();
    // One table per number of scripts, each from its own row.
    let starts: Vec<usize> = [
        "1 script (load.script.1)",
        "5 scripts (load.script.5)",
        "9 scripts (load.script.9)",
    ]
    .iter()
    .map(|h| {
        text.lines()
            .position(|l| l.starts_with(h))
            .unwrap_or_else(|| panic!("no table {h}: {text}"))
    })
    .collect();
    assert!(starts.windows(2).all(|w| w[0] < w[1]), "{starts:?}");
    // ed with one script: today's average per command from the details, the paper's 9.04 s
    // and 4.67 s, and the 11/70's over today's.
    let today = accounting(&fixture, "load.script.1");
    let ed = today.iter().find(|(c, _)| c == "ed").unwrap().1;
    let line = avg_real_line(&text, "ed", starts[0]);
    let cells = cells_of(line);
    assert_eq!(
        cells,
        vec![
            "avg real",
            &format_value(ed, Unit::SecondsPerOp),
            "9.04 s",
            "4.67 s",
            &format!("≈{}×", figures3(4.67 / ed)),
        ],
        "{line}"
    );
    // With nine scripts, the 11/70's 36.91 s over today's ed of load.script.9.
    let ed9 = accounting(&fixture, "load.script.9")
        .into_iter()
        .find(|(c, _)| c == "ed")
        .unwrap()
        .1;
    let line = avg_real_line(&text, "ed", starts[2]);
    assert!(
        line.ends_with(&format!("≈{}×", figures3(36.91 / ed9))),
        "{line}"
    );
    // sh counted its nested commands in the paper and not today: no ratio; nor the Total.
    let sh = avg_real_line(&text, "sh", starts[0]);
    assert!(sh.contains("26.53 s") && !sh.contains('×'), "{sh}");
    let total = text
        .lines()
        .skip(starts[0])
        .skip_while(|l| !l.starts_with(" Total "))
        // The Total's No. Cmds line, then its avg real.
        .nth(1)
        .unwrap();
    assert!(total.contains("8.23 s") && !total.contains('×'), "{total}");
    // The commands with no counterpart, both ways, and the 11/70's 0.00 s as a bound.
    assert!(text.contains("\nno line today: **gok, colv\n"), "{text}");
    assert!(
        text.contains("\nno line in the paper: nroff | col\n"),
        "{text}"
    );
    let colv = avg_real_line(&text, "colv", starts[0]);
    assert!(colv.contains("no line") && colv.contains("< 1 s"), "{colv}");
}

#[test]
fn attachment_c_sets_the_11_70_s_c8_beside_its_c7_with_5_scripts_each_with_its_ratio() {
    use timeshare::model::unit::format_value;
    use timeshare::model::Unit;
    use timeshare::report::compare::figures3;
    let db = store_with(Path::new(FIXTURE));
    let text = table(db.path(), &["000-C"]);
    let fixture: serde_json::Value =
        serde_json::from_slice(&std::fs::read(FIXTURE).unwrap()).unwrap();
    let five = text
        .lines()
        .position(|l| l.starts_with("5 scripts (load.script.5)"))
        .unwrap_or_else(|| panic!("{text}"));
    let heading: String = text
        .lines()
        .skip(five)
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        heading.contains("11/70 C8 103 a script (514 in 1 run), 1 of them on no printed line"),
        "{heading}"
    );
    // ed: the 11/45's 40.73 s, C7's 22.08 s and C8's 25.39 s, and today against each 11/70.
    let ed = accounting(&fixture, "load.script.5")
        .into_iter()
        .find(|(c, _)| c == "ed")
        .unwrap()
        .1;
    let line = avg_real_line(&text, "ed", five);
    let cells = cells_of(line);
    assert_eq!(
        cells,
        vec![
            "avg real",
            &format_value(ed, Unit::SecondsPerOp),
            "40.73 s",
            "22.08 s",
            "25.39 s",
            &format!("≈{}×", figures3(22.08 / ed)),
            &format!("≈{}×", figures3(25.39 / ed)),
        ],
        "{line}"
    );
    // C8's Total, and its colv's Real/CPU printed 0.0 as a bound.
    let total = text
        .lines()
        .skip(five)
        .skip_while(|l| !l.starts_with(" Total "))
        // The Total's No. Cmds line, then its avg real.
        .nth(1)
        .unwrap();
    assert!(
        total.contains("14.43 s") && total.contains("14.45 s"),
        "{total}"
    );
    // One ratio column where the 11/70 has one configuration (1 and 9 scripts).
    let vs = |block: &str| {
        text.lines()
            .skip_while(|l| !l.starts_with(block))
            .find(|l| l.contains("today vs"))
            .map_or(0, |l| l.matches("today vs").count())
    };
    assert_eq!(vs("1 script "), 1, "{text}");
    assert_eq!(vs("5 scripts "), 2, "{text}");
    assert_eq!(vs("9 scripts "), 1, "{text}");
}

#[test]
fn attachment_c_without_a_load_script_row_says_so_and_prints_no_figure_for_it() {
    let mut fixture: serde_json::Value =
        serde_json::from_slice(&std::fs::read(FIXTURE).unwrap()).unwrap();
    fixture["results"]
        .as_array_mut()
        .unwrap()
        .retain(|r| r["id"] != "load.script.5");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.json");
    std::fs::write(&file, serde_json::to_vec(&fixture).unwrap()).unwrap();
    let db = store_with(&file);
    let text = table(db.path(), &["000-C"]);
    let five = text
        .lines()
        .position(|l| l.starts_with("5 scripts (load.script.5): commands accounted: today not run"))
        .unwrap_or_else(|| panic!("{text}"));
    let nine = text
        .lines()
        .position(|l| l.starts_with("9 scripts"))
        .unwrap();
    let ed = avg_real_line(&text, "ed", five);
    assert!(ed.contains("not run") && ed.contains("40.73 s"), "{ed}");
    // No speed-up made up from another row's figures.
    let block: Vec<&str> = text.lines().skip(five).take(nine - five).collect();
    assert!(block.iter().all(|l| !l.contains('×')), "{block:#?}");
}

#[test]
fn attachment_c_takes_each_number_of_scripts_from_the_newest_run_that_has_it() {
    let db = store_with(Path::new(FIXTURE));
    // Run 2: the fixture again a day later, without its 5-script row.
    let mut newer: serde_json::Value =
        serde_json::from_slice(&std::fs::read(FIXTURE).unwrap()).unwrap();
    newer["started_at"] = "2026-11-24T08:42:01Z".into();
    newer["finished_at"] = "2026-11-24T08:42:53Z".into();
    newer["results"]
        .as_array_mut()
        .unwrap()
        .retain(|r| r["id"] != "load.script.5");
    let file = db.path().join("newer.json");
    std::fs::write(&file, serde_json::to_vec(&newer).unwrap()).unwrap();
    timeshare()
        .arg("import")
        .arg(&file)
        .arg("--db")
        .arg(db.path().join("runs.db"))
        .assert()
        .success();
    let text = stdout_of(
        timeshare()
            .args(["table", "000-C", "--db"])
            .arg(db.path().join("runs.db")),
        &"table 000-C",
    );
    // Each table's today column names its run: 2 for 1 and 9 scripts, 1 for 5.
    let runs: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("run ") && l.contains("C2"))
        .map(|l| l.split_whitespace().take(2).last().unwrap())
        .collect();
    assert_eq!(runs, vec!["2", "1", "2"], "{text}");
    assert!(
        text.contains("run 2 (vm,") && text.contains("run 1 (vm,"),
        "{text}"
    );
}

#[test]
fn table_10_of_seed_001_sets_today_s_cache_states_side_by_side_and_the_paper_s_in_a_line() {
    let db = store_with(Path::new(FIXTURE));
    let text = table(db.path(), &["001-10"]);
    let rows: Vec<&str> = text.lines().filter(|l| l.contains("fs.namei.")).collect();
    for state in ["fs.namei.4 ", "fs.namei.neg.4 ", "fs.namei.cold.4 "] {
        assert!(
            rows.iter().any(|r| r.contains(state)),
            "no {state}row: {text}"
        );
    }
    // The fixture predates the negative and cold rows: they say so, with no figure.
    let cold = rows.iter().find(|r| r.contains("fs.namei.cold.1")).unwrap();
    assert!(cold.contains("not run"), "{cold}");
    // The paper's figures are of another call: printed as a line, never divided.
    assert!(text.contains("paper: Table 10 ("), "{text}");
    assert!(text.contains("total 8.6 ms/call"), "{text}");
    assert!(!text.contains("today vs"), "a ratio was formed: {text}");
    assert!(text.contains("cannot be counted here"), "{text}");
}

#[test]
fn kashtan_sets_the_note_s_user_and_system_beside_today_s_for_one_process_programs() {
    let db = store_with(Path::new(FIXTURE));
    let text = table(db.path(), &["003-kashtan"]);
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("pipe.bw.self"))
        .unwrap_or_else(|| panic!("no kt9 row: {text}"));
    let (user, system) = (lines[at + 1], lines[at + 2]);
    assert!(user.trim_start().starts_with("user"), "{text}");
    assert!(system.trim_start().starts_with("system"), "{text}");
    // A rate's CPU time is a share of its real time, today's and the note's alike.
    assert_eq!(system.matches('%').count(), 4, "{system}");
    assert!(
        system.contains("79.5%"),
        "the 11/70's 47.7 s of 1:00: {system}"
    );
    // kt10 runs two processes: the note's times are not set beside today's one.
    let kt10 = lines
        .iter()
        .position(|l| l.contains("pipe.bw.one"))
        .unwrap();
    assert_eq!(lines[kt10 + 2].matches('—').count(), 3, "{text}");
    assert!(!text.contains("--wide`"), "{text}");
}

#[test]
fn the_zilog_disk_test_is_printed_as_a_line_and_set_beside_no_machine() {
    let db = store_with(Path::new(FIXTURE));
    let text = table(db.path(), &["003-zilog"]);
    assert!(
        text.contains("a) 1000 sequential writes: 32.2 s, 42.8 s, 44.4 s"),
        "{text}"
    );
    let row = text
        .lines()
        .find(|l| l.contains("io.disk.seqwrite"))
        .unwrap_or_else(|| panic!("no disk row: {text}"));
    // Today's figure and nothing else: no machine's cell, no ratio.
    assert!(!row.contains('×') && !row.contains("32.2"), "{row}");
    assert!(text.contains("likeliest"), "{text}");
}

/// Seed 004's graphs are today's curve only: the points (`exercise.batch.N`, by N) of the
/// newest stored run that has any — not of a newer run without them — or of `--run`; a
/// run without points says how to make them; the line says why there is no historical
/// column.
#[test]
fn the_004_graphs_are_today_s_curve_from_the_newest_run_that_has_one() {
    let sweep = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/exercise-sweep.json"
    );
    let db = store_with(Path::new(FIXTURE));
    for run in [sweep, FIXTURE] {
        timeshare()
            .arg("import")
            .arg(run)
            .arg("--db")
            .arg(db.path().join("runs.db"))
            .assert()
            .success();
    }
    let text = stdout_of(
        timeshare()
            .env("COLUMNS", "100")
            .args(["table", "004-graphs", "--db"])
            .arg(db.path().join("runs.db")),
        &"table 004-graphs",
    );
    assert!(text.contains("today = run 2 "), "{text}");
    let order: Vec<usize> = [
        "exercise.batch.1 ",
        "exercise.batch.5 ",
        "exercise.batch.10 ",
    ]
    .iter()
    .map(|id| text.find(id).unwrap_or_else(|| panic!("no {id}: {text}")))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "by N: {text}");
    let ten = text
        .lines()
        .find(|l| l.contains("exercise.batch.10 "))
        .unwrap();
    // 2.12 s over 10 processes; user 431 ms over 10.
    assert!(
        ten.contains("2.12 s") && ten.contains("212 ms") && ten.contains("43.1 ms"),
        "{ten}"
    );
    assert!(text.contains("drawn, not tabulated"), "{text}");
    let none = table(db.path(), &["004-graphs"]);
    assert!(none.contains("no exercise.batch.N rows in run 1"), "{none}");
}

/// A rendered table line's cells: the text between runs of two or more spaces.
fn cells_of(line: &str) -> Vec<&str> {
    line.split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}

#[test]
fn the_paper_s_words_and_bounds_are_printed_where_it_prints_no_figure() {
    let db = store_with(Path::new(FIXTURE));
    // Table 9's 11/45 at 15 copies, in its cell.
    let nine = table(db.path(), &["000-9"]);
    let row = nine
        .lines()
        .find(|l| l.contains(" load.cpu.15 "))
        .unwrap_or_else(|| panic!("{nine}"));
    assert!(row.contains("Ran Out Of"), "{nine}");
    // Inc, the tables' own statistic, has a line of its own beside the paper's.
    assert!(
        nine.lines().any(|l| l.trim_start().starts_with("inc ")),
        "{nine}"
    );
    // Attachment C: the 11/70's colv with one script printed a real/CPU of 0.0.
    let c = table(db.path(), &["000-C"]);
    let colv = c
        .lines()
        .skip_while(|l| !l.starts_with(" colv "))
        .find(|l| l.contains("real/CPU"))
        .unwrap_or_else(|| panic!("{c}"));
    assert!(colv.contains("< 0.05"), "{colv}");
    // Table 8's unit is said, and its figures are milliseconds, not tenths of them.
    let eight = table(db.path(), &["001-8"]);
    assert!(
        eight.contains("note: the paper's caption says microseconds"),
        "{eight}"
    );
    let randpage = eight.lines().find(|l| l.contains(" vm.randpage ")).unwrap();
    assert!(
        randpage.contains("7.91 ms") && randpage.contains("7.89 ms"),
        "{randpage}"
    );
    // `reference` keeps a fraction of a fault per page touch.
    let vax = stdout_of(
        timeshare()
            .env("COLUMNS", "200")
            .args(["reference", "vax750-4.1bsd"]),
        &"reference",
    );
    let faults = vax
        .lines()
        .find(|l| l.contains("vm.seqpage ") && l.contains("faults"))
        .unwrap_or_else(|| panic!("{vax}"));
    assert!(faults.contains("0.228"), "{faults}");
}

#[test]
fn reference_names_c8_apart_from_c7_and_tables_9_and_10_print_ratio_real() {
    let text = stdout_of(
        timeshare()
            .env("COLUMNS", "200")
            .args(["reference", "pdp11-70"]),
        &"reference",
    );
    // Each Table 10 figure's source names its configuration: C8's 4:07.0 is not C7's 4:18.7.
    let line = |printed: &str| {
        text.lines()
            .find(|l| l.contains(printed))
            .unwrap_or_else(|| panic!("no {printed}: {text}"))
            .to_string()
    };
    assert!(
        line("printed 4:07.0").contains("Table 10, Config C8"),
        "{text}"
    );
    assert!(
        line("printed 4:18.7").contains("Table 10, Config C7"),
        "{text}"
    );
    // Table 1 holds the 11/70 in one configuration: no label.
    assert!(
        line("printed 13:16")
            .trim_end()
            .ends_with("seed 000, Table 1"),
        "{text}"
    );
    let db = store_with(Path::new(FIXTURE));
    let t9 = table(db.path(), &["000-9"]);
    let ratios: Vec<&str> = t9
        .lines()
        .filter(|l| l.contains("ratio real"))
        .filter_map(|l| l.split_whitespace().last())
        .collect();
    // The 11/70's column is the last on these lines (15 copies: "-", as printed).
    assert_eq!(ratios, ["2.60", "3.50", "3.70", "4.20", "—"], "{t9}");
    let t10 = table(db.path(), &["000-10"]);
    let c7_c8: Vec<(&str, &str)> = t10
        .lines()
        .filter(|l| l.contains("ratio real"))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[4], w.get(5).copied().unwrap_or(""))
        })
        .collect();
    assert_eq!(
        c7_c8,
        [("2.20", "2.30"), ("2.70", "2.70"), ("3.00", "")],
        "{t10}"
    );
}
