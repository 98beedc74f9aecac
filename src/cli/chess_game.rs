//! `timeshare chess-game` (hidden): play the `cpu.chess` game and print its move list,
//! one move per line in UCI notation. The game is deterministic, so the output is the
//! same on every machine: the exerciser runs it as a job and compares the output byte for
//! byte with the trusted one.

use anyhow::Result;
use clap::Args;

use super::{output, Exit};
use crate::bench::cpu::chess;

#[derive(Debug, Args)]
pub struct ChessGameArgs {
    /// Plies to play (the game stops earlier at mate or stalemate)
    #[arg(long, default_value_t = chess::PLIES as u32, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub plies: u32,
    /// Search depth in plies for every move
    #[arg(long, default_value_t = chess::DEPTH, value_parser = clap::value_parser!(u32).range(1..=6))]
    pub depth: u32,
}

pub fn execute(args: ChessGameArgs) -> Result<Exit> {
    let game = chess::play_game(args.plies as usize, args.depth);
    output::print(game.text())?;
    Ok(Exit::Success)
}
