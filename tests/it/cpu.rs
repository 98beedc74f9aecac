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
    let _alone = heavy::one_at_a_time();
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

// The CPU-heavy checks live here rather than among the unit tests, one at a time. That
// twice the operations of every kernel take about twice the time is a timing claim,
// checked by `timeshare selftest cpu.doubling` (and once by the selftest test).

mod heavy {
    use std::sync::{Mutex, MutexGuard};

    /// One heavy test at a time: on two cores, two of them at once (or one beside
    /// `run cpu`) would disturb each other's timings.
    static HEAVY: Mutex<()> = Mutex::new(());

    pub fn one_at_a_time() -> MutexGuard<'static, ()> {
        HEAVY
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
    use timeshare::bench::cpu::chess::board::{perft, Position, START_FEN};
    use timeshare::bench::cpu::chess::{play_game, DEPTH, EXPECTED_HASH, EXPECTED_NODES, PLIES};

    fn perft_fen(fen: &str, depth: u32) -> u64 {
        perft(&mut Position::from_fen(fen).unwrap(), depth)
    }

    /// The published counts (chessprogramming.org, "Perft Results").
    #[test]
    fn perft_from_the_initial_position_matches_to_depth_5() {
        let _alone = one_at_a_time();
        let counts = [1, 20, 400, 8_902, 197_281, 4_865_609];
        for (depth, &want) in counts.iter().enumerate() {
            assert_eq!(perft_fen(START_FEN, depth as u32), want, "depth {depth}");
        }
    }

    /// "Kiwipete": castling, en passant, promotion, pins and checks.
    #[test]
    fn perft_kiwipete_matches_to_depth_3() {
        let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        assert_eq!(perft_fen(kiwipete, 1), 48);
        assert_eq!(perft_fen(kiwipete, 2), 2_039);
        assert_eq!(perft_fen(kiwipete, 3), 97_862);
    }

    /// Position 3 (en passant discovering check along the rank) and position 4
    /// (promotions, castling through attacks).
    #[test]
    fn perft_positions_3_and_4_match() {
        let position_3 = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
        assert_eq!(perft_fen(position_3, 4), 43_238);
        assert_eq!(perft_fen(position_3, 5), 674_624);
        let position_4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
        assert_eq!(perft_fen(position_4, 3), 9_467);
    }

    #[test]
    fn the_library_game_is_the_stored_one() {
        let _alone = one_at_a_time();
        let game = play_game(PLIES, DEPTH);
        assert_eq!(game.moves.len(), 130);
        assert_eq!((game.hash(), game.nodes), (EXPECTED_HASH, EXPECTED_NODES));
    }
}
