//! Fixed-depth alpha-beta (negamax, fail-hard) over the board, followed at the horizon by
//! a capture-only search (so that a fixed depth does not stop in the middle of an
//! exchange, which made the engine blunder into an early mate), with an integer
//! evaluation kept incrementally by the board (material plus small placement bonuses)
//! and a deterministic move order: captures and
//! promotions first by most valuable victim / least valuable attacker, then generation
//! order, sorted stably. Ties keep the first move found, so the chosen move never depends
//! on the machine. No floating point anywhere (seed 000 chose its chess program because it
//! "does no floating point arithmetic").

use super::board::{kind_of, Move, Position, WHITE};

const MATE: i32 = 100_000;
const INFINITY: i32 = 1_000_000;

pub struct Searcher {
    /// Positions entered by the search (every legal move made), the benchmark's work count.
    pub nodes: u64,
}

impl Searcher {
    pub fn new() -> Searcher {
        Searcher { nodes: 0 }
    }

    /// The best legal move to `depth` plies, or `None` when there is none (mate or
    /// stalemate).
    pub fn best_move(&mut self, pos: &mut Position, depth: u32) -> Option<Move> {
        let mut best = None;
        let mut alpha = -INFINITY;
        let legal = pos.legal_moves();
        for m in ordered(pos, legal) {
            let u = pos.make(m);
            self.nodes += 1;
            let score = -self.negamax(pos, depth - 1, -INFINITY, -alpha, 1);
            pos.unmake(m, u);
            if best.is_none() || score > alpha {
                alpha = score;
                best = Some(m);
            }
        }
        best
    }

    fn negamax(
        &mut self,
        pos: &mut Position,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: i32,
    ) -> i32 {
        if depth == 0 {
            return self.quiesce(pos, alpha, beta);
        }
        let mut pseudo = Vec::with_capacity(64);
        pos.pseudo_moves(&mut pseudo);
        let mut any_legal = false;
        for m in ordered(pos, pseudo) {
            let u = pos.make(m);
            if pos.left_in_check() {
                pos.unmake(m, u);
                continue;
            }
            any_legal = true;
            self.nodes += 1;
            let score = -self.negamax(pos, depth - 1, -beta, -alpha, ply + 1);
            pos.unmake(m, u);
            if score >= beta {
                return beta;
            }
            if score > alpha {
                alpha = score;
            }
        }
        if !any_legal {
            // Mate (sooner is worse for the mated side) or stalemate.
            return if pos.in_check() { -MATE + ply } else { 0 };
        }
        alpha
    }
}

impl Searcher {
    /// Captures only, until the position is quiet, so that the fixed depth does not end
    /// in the middle of an exchange. The side to move may "stand pat" on the evaluation.
    fn quiesce(&mut self, pos: &mut Position, mut alpha: i32, beta: i32) -> i32 {
        let stand_pat = evaluate(pos);
        if stand_pat >= beta {
            return beta;
        }
        if stand_pat > alpha {
            alpha = stand_pat;
        }
        let mut pseudo = Vec::with_capacity(64);
        pos.pseudo_moves(&mut pseudo);
        pseudo.retain(|m| pos.board[m.to as usize] != 0 || m.promo != 0);
        for m in ordered(pos, pseudo) {
            let u = pos.make(m);
            if pos.left_in_check() {
                pos.unmake(m, u);
                continue;
            }
            self.nodes += 1;
            let score = -self.quiesce(pos, -beta, -alpha);
            pos.unmake(m, u);
            if score >= beta {
                return beta;
            }
            if score > alpha {
                alpha = score;
            }
        }
        alpha
    }
}

impl Default for Searcher {
    fn default() -> Self {
        Searcher::new()
    }
}

/// Captures and promotions first (most valuable victim, then least valuable attacker),
/// quiet moves after, each group in generation order.
fn ordered(pos: &Position, mut moves: Vec<Move>) -> Vec<Move> {
    moves.sort_by_key(|m| {
        let victim = kind_of(pos.board[m.to as usize]) as i32;
        let attacker = kind_of(pos.board[m.from as usize]) as i32;
        let promo = m.promo as i32;
        if victim != 0 || promo != 0 {
            -(100 + victim * 10 + promo * 10 - attacker)
        } else {
            0
        }
    });
    moves
}

/// Material plus placement, from the side to move's point of view.
pub fn evaluate(pos: &Position) -> i32 {
    if pos.side == WHITE {
        pos.score()
    } else {
        -pos.score()
    }
}
