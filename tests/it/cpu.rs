//! The cpu family end to end: every id reported, the chess game as the exerciser sees it.

use crate::common::{json, result, timeshare};

fn chess_game(args: &[&str]) -> Vec<u8> {
    let out = timeshare().arg("chess-game").args(args).assert().success();
    out.get_output().stdout.clone()
}

#[test]
fn the_chess_game_prints_the_same_130_moves_every_time() {
    let first = chess_game(&[]);
    let second = chess_game(&[]);
    assert_eq!(first, second);
    let text = String::from_utf8(first).unwrap();
    let moves: Vec<&str> = text.lines().collect();
    assert_eq!(moves.len(), 130);
    assert!(moves
        .iter()
        .all(|m| (4..=5).contains(&m.len()) && m.is_ascii()));
    assert_eq!(
        timeshare::bench::cpu::chess::fnv1a(text.as_bytes()),
        timeshare::bench::cpu::chess::EXPECTED_HASH
    );
    // A shorter game is the same game, cut.
    let short = String::from_utf8(chess_game(&["--plies", "12"])).unwrap();
    assert_eq!(short.lines().collect::<Vec<_>>(), moves[..12]);
}

#[test]
fn chess_game_rejects_a_bad_depth_with_exit_2() {
    timeshare()
        .args(["chess-game", "--depth", "0"])
        .assert()
        .code(2);
}

#[test]
fn the_chess_game_is_hidden_from_help() {
    let out = timeshare().arg("--help").assert().success();
    let help = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(!help.contains("chess-game"), "{help}");
}

#[test]
fn cpu_quick_reports_every_id_with_its_checks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.json");
    let t0 = std::time::Instant::now();
    timeshare()
        .args(["run", "cpu", "--quick", "--json"])
        .arg(&path)
        .assert()
        .success();
    eprintln!("run cpu --quick took {:?}", t0.elapsed());
    let run = json(&std::fs::read(&path).unwrap());
    let listed = timeshare().args(["list", "cpu"]).assert().success();
    let listing = String::from_utf8_lossy(&listed.get_output().stdout).to_string();
    let ids: Vec<&str> = listing
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.starts_with("cpu.") && w.len() > 4)
        .collect();
    assert!(ids.len() >= 93, "{ids:?}");
    for id in ids {
        let r = result(&run, id);
        assert_eq!(r["status"]["state"], "ok", "{id}: {}", r["status"]);
        assert!(r["summary"]["median"].as_f64().unwrap() > 0.0, "{id}");
    }
    let chess = result(&run, "cpu.chess");
    assert_eq!(chess["details"]["plies"], 130);
    assert!(chess["details"]["nodes_per_second"].as_f64().unwrap() > 0.0);
    let div = result(&run, "cpu.stmt.i64.div");
    assert!(div["details"]["statement"].is_string());
}
