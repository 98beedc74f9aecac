//! `cpu.chess`: seed 000 Table 1, "a shell procedure written to play both sides of a
//! sixty-five move game (130 moves total)" with /usr/games/chess, chosen because it "does
//! no floating point arithmetic".
//!
//! Our engine is small and self-contained: a 0x88 board with full legal move generation
//! (castling, en passant, promotion; checked by perft against published counts), and a
//! fixed-depth alpha-beta search (depth 3 plus a capture search) with an integer
//! evaluation. It plays both sides from the
//! initial position for 130 plies or until the game ends by mate or stalemate (it does
//! not claim draws by repetition or the fifty-move rule: a fixed number of plies is the
//! workload). Everything is deterministic, so the move list is the same on every machine;
//! the exerciser uses it (`timeshare chess-game`) as a job whose output is checked byte
//! for byte.
//!
//! # Timing model
//! One operation is one whole game (130 plies at depth [`DEPTH`]); each sample times one
//! game, as Table 1 timed the whole procedure. Details record the nodes searched and
//! nodes per second. The move list is checked against a stored hash after every game: a
//! different game fails the row.

use anyhow::{bail, Result};

use crate::harness::clock::now_ns;
use crate::model::{Metric, Source};

pub mod board;
pub mod search;

use crate::harness::contract::{Benchmark, Plan, Workload};
use crate::model::details::cpu;
use crate::model::Details;
use board::Position;
use search::Searcher;

/// Plies played: both sides of a 65-move game.
pub const PLIES: usize = 130;
/// Search depth in plies for every move.
pub const DEPTH: u32 = 3;
/// FNV-1a of the expected move list (one UCI move per line, each ending in '\n') of the
/// game of [`PLIES`] plies at [`DEPTH`].
pub const EXPECTED_HASH: u64 = 0x5ebe_fbc3_f00a_cafe;
/// Nodes the expected game searches.
pub const EXPECTED_NODES: u64 = 1_285_174;

/// A played game: its moves in UCI notation and the nodes searched to find them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    pub moves: Vec<String>,
    pub nodes: u64,
}

impl Game {
    /// The move list as `timeshare chess-game` prints it: one move per line.
    pub fn text(&self) -> String {
        self.moves.iter().map(|m| format!("{m}\n")).collect()
    }

    pub fn hash(&self) -> u64 {
        fnv1a(self.text().as_bytes())
    }
}

/// Play both sides from the initial position for `plies` plies (fewer if the game ends),
/// searching `depth` plies for each move.
pub fn play_game(plies: usize, depth: u32) -> Game {
    let mut pos = Position::start();
    let mut searcher = Searcher::new();
    let mut moves = Vec::with_capacity(plies);
    for _ in 0..plies {
        match searcher.best_move(&mut pos, depth.max(1)) {
            Some(m) => {
                moves.push(m.uci());
                pos.make(m);
            }
            None => break,
        }
    }
    Game {
        moves,
        nodes: searcher.nodes,
    }
}

pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

pub fn rows() -> Vec<Benchmark> {
    vec![Benchmark::new(
        "cpu.chess",
        "a chess engine plays both sides of a 130-ply game at fixed depth, integer only",
        Source::seed("000", "Table 1: chess, both sides of a 65-move game"),
        |_| Ok(Box::new(ChessGames::default()) as Box<dyn Workload>),
    )
    .with_metric(Metric::job())
    .with_plan(Plan::job)
    .per("game of 130 plies")]
}

#[derive(Default)]
struct ChessGames {
    games: u64,
    nodes: u64,
    ns: u64,
    plies: usize,
}

impl Workload for ChessGames {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            let t0 = now_ns();
            let game = play_game(PLIES, DEPTH);
            self.ns += now_ns() - t0;
            if game.hash() != EXPECTED_HASH || game.nodes != EXPECTED_NODES {
                bail!(
                    "the game differs from the expected one (hash {:#x}, {} nodes; expected \
                     {EXPECTED_HASH:#x}, {EXPECTED_NODES} nodes): the engine misbehaved",
                    game.hash(),
                    game.nodes
                );
            }
            self.games += 1;
            self.nodes += game.nodes;
            self.plies = game.moves.len();
        }
        Ok(())
    }

    fn details(&mut self) -> Option<Details> {
        let seconds = self.ns as f64 * 1e-9;
        Some(Details::of(&cpu::Chess {
            plies: self.plies,
            depth: DEPTH,
            games: self.games,
            nodes_per_game: EXPECTED_NODES,
            nodes_per_second: if seconds > 0.0 {
                self.nodes as f64 / seconds
            } else {
                0.0
            },
            move_list_fnv1a: format!("{EXPECTED_HASH:#018x}"),
            checked: "every game's move list and node count against the stored ones".into(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_game_is_a_prefix_of_the_long_one() {
        let short = play_game(10, DEPTH);
        let long = play_game(20, DEPTH);
        assert_eq!(short.moves[..], long.moves[..10]);
    }

    #[test]
    fn the_engine_finds_a_mate_in_one() {
        // Scholar's mate position: Qxf7# is the only mating move.
        let mut pos = Position::from_fen(
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        )
        .unwrap();
        let m = Searcher::new().best_move(&mut pos, 2).unwrap();
        assert_eq!(m.uci(), "h5f7");
    }
}
