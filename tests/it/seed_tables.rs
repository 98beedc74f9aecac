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
    assert!(!wide.contains("--wide`"), "{wide}");
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
