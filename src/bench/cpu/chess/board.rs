//! The board: a 0x88 mailbox (a square is `rank * 16 + file`; `sq & 0x88 != 0` is off the
//! board), pseudo-legal move generation with castling, en passant and promotion, make /
//! unmake, and legality by "does the mover's king stand attacked after the move".
//!
//! Everything is integer and iterates in a fixed order, so a search over it is
//! deterministic on every machine.

use anyhow::{bail, Context, Result};

pub const WHITE: u8 = 0;
pub const BLACK: u8 = 1;

pub const PAWN: u8 = 1;
pub const KNIGHT: u8 = 2;
pub const BISHOP: u8 = 3;
pub const ROOK: u8 = 4;
pub const QUEEN: u8 = 5;
pub const KING: u8 = 6;

/// No en passant square.
const NO_SQ: u8 = 0x88;

const KNIGHT_STEPS: [i16; 8] = [33, 31, 18, 14, -33, -31, -18, -14];
const KING_STEPS: [i16; 8] = [1, -1, 16, -16, 15, 17, -15, -17];
const DIAGONALS: [i16; 4] = [15, 17, -15, -17];
const ORTHOGONALS: [i16; 4] = [1, -1, 16, -16];

/// Castling-right bits.
const WK: u8 = 1;
const WQ: u8 = 2;
const BK: u8 = 4;
const BQ: u8 = 8;

pub fn color_of(p: u8) -> u8 {
    p >> 3
}
pub fn kind_of(p: u8) -> u8 {
    p & 7
}
fn piece(color: u8, kind: u8) -> u8 {
    kind | (color << 3)
}
fn on_board(sq: i16) -> bool {
    (0..128).contains(&sq) && sq & 0x88 == 0
}
pub fn rank_of(sq: u8) -> u8 {
    sq >> 4
}
pub fn file_of(sq: u8) -> u8 {
    sq & 7
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flag {
    Normal,
    DoublePush,
    EnPassant,
    Castle,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Move {
    pub from: u8,
    pub to: u8,
    /// The kind promoted to, or 0.
    pub promo: u8,
    pub flag: Flag,
}

impl Move {
    /// Long algebraic notation as UCI writes it: `e2e4`, `e7e8q`, `e1g1`.
    pub fn uci(&self) -> String {
        let mut s = format!("{}{}", square_name(self.from), square_name(self.to));
        if self.promo != 0 {
            s.push(b" pnbrqk"[self.promo as usize] as char);
        }
        s
    }
}

pub fn square_name(sq: u8) -> String {
    format!("{}{}", (b'a' + file_of(sq)) as char, rank_of(sq) + 1)
}

/// What `make` must remember so that `unmake` restores the position exactly.
#[derive(Debug, Clone, Copy)]
pub struct Undo {
    captured: u8,
    score: i32,
    castling: u8,
    ep: u8,
    halfmove: u16,
}

#[derive(Clone)]
pub struct Position {
    pub board: [u8; 128],
    pub side: u8,
    castling: u8,
    ep: u8,
    halfmove: u16,
    kings: [u8; 2],
    /// The evaluation (material and placement), white minus black, kept up to date by
    /// `make` so that the search evaluates in constant time.
    score: i32,
}

pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

impl Position {
    pub fn start() -> Position {
        Position::from_fen(START_FEN).expect("the start position parses")
    }

    /// A position from the first four fields of a FEN string.
    pub fn from_fen(fen: &str) -> Result<Position> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.len() < 4 {
            bail!("FEN needs at least 4 fields: {fen:?}");
        }
        let mut pos = Position {
            board: [0; 128],
            side: WHITE,
            castling: 0,
            ep: NO_SQ,
            halfmove: 0,
            kings: [NO_SQ; 2],
            score: 0,
        };
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 8 {
            bail!("FEN board needs 8 ranks: {fen:?}");
        }
        for (i, row) in ranks.iter().enumerate() {
            let rank = 7 - i as u8;
            let mut file = 0u8;
            for c in row.chars() {
                if let Some(d) = c.to_digit(10) {
                    file += d as u8;
                    continue;
                }
                let color = if c.is_ascii_uppercase() { WHITE } else { BLACK };
                let kind = match c.to_ascii_lowercase() {
                    'p' => PAWN,
                    'n' => KNIGHT,
                    'b' => BISHOP,
                    'r' => ROOK,
                    'q' => QUEEN,
                    'k' => KING,
                    _ => bail!("bad FEN piece {c:?}"),
                };
                if file > 7 {
                    bail!("FEN rank too long: {row:?}");
                }
                let sq = rank * 16 + file;
                pos.board[sq as usize] = piece(color, kind);
                if kind == KING {
                    pos.kings[color as usize] = sq;
                }
                file += 1;
            }
        }
        pos.score = (0..128u8)
            .filter(|sq| sq & 0x88 == 0)
            .map(|sq| term(pos.board[sq as usize], sq))
            .sum();
        if pos.kings.contains(&NO_SQ) {
            bail!("FEN needs both kings: {fen:?}");
        }
        pos.side = match fields[1] {
            "w" => WHITE,
            "b" => BLACK,
            s => bail!("bad FEN side {s:?}"),
        };
        for c in fields[2].chars() {
            pos.castling |= match c {
                'K' => WK,
                'Q' => WQ,
                'k' => BK,
                'q' => BQ,
                '-' => 0,
                _ => bail!("bad FEN castling {c:?}"),
            };
        }
        if fields[3] != "-" {
            let b = fields[3].as_bytes();
            if b.len() != 2 {
                bail!("bad FEN en passant square {:?}", fields[3]);
            }
            pos.ep = (b[1] - b'1') * 16 + (b[0] - b'a');
        }
        if let Some(h) = fields.get(4) {
            pos.halfmove = h.parse().context("bad FEN halfmove clock")?;
        }
        Ok(pos)
    }

    /// Is `sq` attacked by a piece of colour `by`?
    pub fn attacked(&self, sq: u8, by: u8) -> bool {
        let s = sq as i16;
        let pawn_from: [i16; 2] = if by == WHITE { [-15, -17] } else { [15, 17] };
        for d in pawn_from {
            if self.is(s + d, piece(by, PAWN)) {
                return true;
            }
        }
        if KNIGHT_STEPS
            .iter()
            .any(|&d| self.is(s + d, piece(by, KNIGHT)))
        {
            return true;
        }
        if KING_STEPS.iter().any(|&d| self.is(s + d, piece(by, KING))) {
            return true;
        }
        self.slider_attacks(s, &DIAGONALS, by, BISHOP)
            || self.slider_attacks(s, &ORTHOGONALS, by, ROOK)
    }

    fn is(&self, sq: i16, p: u8) -> bool {
        on_board(sq) && self.board[sq as usize] == p
    }

    fn slider_attacks(&self, s: i16, dirs: &[i16], by: u8, kind: u8) -> bool {
        for &d in dirs {
            let mut t = s + d;
            while on_board(t) {
                let p = self.board[t as usize];
                if p != 0 {
                    if color_of(p) == by && (kind_of(p) == kind || kind_of(p) == QUEEN) {
                        return true;
                    }
                    break;
                }
                t += d;
            }
        }
        false
    }

    pub fn in_check(&self) -> bool {
        self.attacked(self.kings[self.side as usize], self.side ^ 1)
    }

    /// Every pseudo-legal move (the mover's king may be left in check), in board order.
    pub fn pseudo_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        for sq in 0..128u8 {
            let p = self.board[sq as usize];
            if sq & 0x88 != 0 || p == 0 || color_of(p) != self.side {
                continue;
            }
            match kind_of(p) {
                PAWN => self.pawn_moves(sq, out),
                KNIGHT => self.step_moves(sq, &KNIGHT_STEPS, out),
                BISHOP => self.slide_moves(sq, &DIAGONALS, out),
                ROOK => self.slide_moves(sq, &ORTHOGONALS, out),
                QUEEN => {
                    self.slide_moves(sq, &DIAGONALS, out);
                    self.slide_moves(sq, &ORTHOGONALS, out);
                }
                _ => {
                    self.step_moves(sq, &KING_STEPS, out);
                    self.castle_moves(sq, out);
                }
            }
        }
    }

    fn push(out: &mut Vec<Move>, from: u8, to: i16, flag: Flag) {
        out.push(Move {
            from,
            to: to as u8,
            promo: 0,
            flag,
        });
    }

    fn pawn_moves(&self, sq: u8, out: &mut Vec<Move>) {
        let (dir, start_rank, last_rank) = if self.side == WHITE {
            (16i16, 1, 7)
        } else {
            (-16i16, 6, 0)
        };
        let s = sq as i16;
        let push_pawn = |out: &mut Vec<Move>, to: i16| {
            if rank_of(to as u8) == last_rank {
                for promo in [QUEEN, ROOK, BISHOP, KNIGHT] {
                    out.push(Move {
                        from: sq,
                        to: to as u8,
                        promo,
                        flag: Flag::Normal,
                    });
                }
            } else {
                Self::push(out, sq, to, Flag::Normal);
            }
        };
        let one = s + dir;
        if on_board(one) && self.board[one as usize] == 0 {
            push_pawn(out, one);
            let two = one + dir;
            if rank_of(sq) == start_rank && self.board[two as usize] == 0 {
                Self::push(out, sq, two, Flag::DoublePush);
            }
        }
        for side_step in [-1, 1] {
            let t = s + dir + side_step;
            if !on_board(t) {
                continue;
            }
            let target = self.board[t as usize];
            if target != 0 && color_of(target) != self.side {
                push_pawn(out, t);
            } else if t as u8 == self.ep {
                Self::push(out, sq, t, Flag::EnPassant);
            }
        }
    }

    fn step_moves(&self, sq: u8, steps: &[i16], out: &mut Vec<Move>) {
        for &d in steps {
            let t = sq as i16 + d;
            if on_board(t) {
                let target = self.board[t as usize];
                if target == 0 || color_of(target) != self.side {
                    Self::push(out, sq, t, Flag::Normal);
                }
            }
        }
    }

    fn slide_moves(&self, sq: u8, dirs: &[i16], out: &mut Vec<Move>) {
        for &d in dirs {
            let mut t = sq as i16 + d;
            while on_board(t) {
                let target = self.board[t as usize];
                if target == 0 {
                    Self::push(out, sq, t, Flag::Normal);
                } else {
                    if color_of(target) != self.side {
                        Self::push(out, sq, t, Flag::Normal);
                    }
                    break;
                }
                t += d;
            }
        }
    }

    /// Castling: the right is still held, the squares between are empty, and the king
    /// neither stands in, passes through nor lands on an attacked square.
    fn castle_moves(&self, sq: u8, out: &mut Vec<Move>) {
        let (king_side, queen_side, home) = if self.side == WHITE {
            (WK, WQ, 4u8)
        } else {
            (BK, BQ, 116u8)
        };
        if sq != home {
            return;
        }
        let enemy = self.side ^ 1;
        let empty = |squares: &[u8]| squares.iter().all(|&s| self.board[s as usize] == 0);
        let safe = |squares: &[u8]| squares.iter().all(|&s| !self.attacked(s, enemy));
        if self.castling & king_side != 0
            && empty(&[home + 1, home + 2])
            && safe(&[home, home + 1, home + 2])
        {
            Self::push(out, sq, (home + 2) as i16, Flag::Castle);
        }
        if self.castling & queen_side != 0
            && empty(&[home - 1, home - 2, home - 3])
            && safe(&[home, home - 1, home - 2])
        {
            Self::push(out, sq, (home - 2) as i16, Flag::Castle);
        }
    }

    /// Play `m`; returns what `unmake` needs. The move may leave the mover in check: see
    /// [`Position::left_in_check`].
    pub fn make(&mut self, m: Move) -> Undo {
        let p = self.board[m.from as usize];
        let mut captured = self.board[m.to as usize];
        let undo_template = Undo {
            captured: 0,
            score: self.score,
            castling: self.castling,
            ep: self.ep,
            halfmove: self.halfmove,
        };
        if m.flag == Flag::EnPassant {
            let victim = self.ep_victim(m.to);
            captured = self.board[victim];
            self.board[victim] = 0;
            self.score -= term(captured, victim as u8);
        } else {
            self.score -= term(captured, m.to);
        }
        let placed = if m.promo != 0 {
            piece(self.side, m.promo)
        } else {
            p
        };
        self.score += term(placed, m.to) - term(p, m.from);
        self.board[m.to as usize] = placed;
        self.board[m.from as usize] = 0;
        if kind_of(p) == KING {
            self.kings[self.side as usize] = m.to;
            if m.flag == Flag::Castle {
                let (rook_from, rook_to) = rook_castle_squares(m.to);
                let rook = self.board[rook_from];
                self.score += term(rook, rook_to as u8) - term(rook, rook_from as u8);
                self.board[rook_to] = rook;
                self.board[rook_from] = 0;
            }
        }
        self.castling &= castle_mask(m.from) & castle_mask(m.to);
        self.ep = if m.flag == Flag::DoublePush {
            (m.from + m.to) / 2
        } else {
            NO_SQ
        };
        self.halfmove = if kind_of(p) == PAWN || captured != 0 {
            0
        } else {
            self.halfmove + 1
        };
        self.side ^= 1;
        Undo {
            captured,
            ..undo_template
        }
    }

    pub fn unmake(&mut self, m: Move, u: Undo) {
        self.side ^= 1;
        let moved = self.board[m.to as usize];
        let p = if m.promo != 0 {
            piece(self.side, PAWN)
        } else {
            moved
        };
        self.board[m.from as usize] = p;
        self.board[m.to as usize] = 0;
        if m.flag == Flag::EnPassant {
            let victim = self.ep_victim(m.to);
            self.board[victim] = u.captured;
        } else {
            self.board[m.to as usize] = u.captured;
        }
        if kind_of(p) == KING {
            self.kings[self.side as usize] = m.from;
            if m.flag == Flag::Castle {
                let (rook_from, rook_to) = rook_castle_squares(m.to);
                self.board[rook_from] = self.board[rook_to];
                self.board[rook_to] = 0;
            }
        }
        self.castling = u.castling;
        self.ep = u.ep;
        self.halfmove = u.halfmove;
        self.score = u.score;
    }

    /// The incremental evaluation, white minus black.
    pub fn score(&self) -> i32 {
        self.score
    }

    /// The square of the pawn taken en passant by the side to move landing on `to`.
    fn ep_victim(&self, to: u8) -> usize {
        if self.side == WHITE {
            to as usize - 16
        } else {
            to as usize + 16
        }
    }

    /// After `make`: did the move leave its own king attacked (an illegal move)?
    pub fn left_in_check(&self) -> bool {
        let mover = self.side ^ 1;
        self.attacked(self.kings[mover as usize], self.side)
    }

    /// The legal moves, in generation order.
    pub fn legal_moves(&mut self) -> Vec<Move> {
        let mut pseudo = Vec::with_capacity(64);
        self.pseudo_moves(&mut pseudo);
        pseudo
            .into_iter()
            .filter(|&m| {
                let u = self.make(m);
                let ok = !self.left_in_check();
                self.unmake(m, u);
                ok
            })
            .collect()
    }
}

fn rook_castle_squares(king_to: u8) -> (usize, usize) {
    match king_to {
        6 => (7, 5),
        2 => (0, 3),
        118 => (119, 117),
        _ => (112, 115),
    }
}

/// The castling rights that survive a move from or to `sq` (a king or rook leaving its
/// square, or a rook being captured on it).
fn castle_mask(sq: u8) -> u8 {
    match sq {
        0 => !WQ,
        4 => !(WK | WQ),
        7 => !WK,
        112 => !BQ,
        116 => !(BK | BQ),
        119 => !BK,
        _ => 0xff,
    }
}

/// The number of leaf nodes of the legal move tree to `depth`: the standard check of a
/// move generator against published counts.
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = Vec::with_capacity(64);
    pos.pseudo_moves(&mut moves);
    let mut total = 0;
    for m in moves {
        let u = pos.make(m);
        if !pos.left_in_check() {
            total += if depth == 1 { 1 } else { perft(pos, depth - 1) };
        }
        pos.unmake(m, u);
    }
    total
}

/// Centipawn values by kind (index 0 is the empty square).
const VALUE: [i32; 7] = [0, 100, 320, 330, 500, 900, 0];

/// One piece's contribution to the evaluation on `sq`, positive for white (0 for an
/// empty square).
fn term(p: u8, sq: u8) -> i32 {
    if p == 0 {
        return 0;
    }
    let kind = kind_of(p);
    let white = color_of(p) == WHITE;
    let advance = if white { rank_of(sq) } else { 7 - rank_of(sq) } as i32;
    let centre = centrality(sq);
    let placement = match kind {
        PAWN => {
            5 * advance
                + if (3..=4).contains(&file_of(sq)) {
                    4 * centre
                } else {
                    0
                }
        }
        KNIGHT => 4 * centre,
        BISHOP => 2 * centre,
        QUEEN => centre,
        KING => -3 * centre,
        _ => 0,
    };
    let v = VALUE[kind as usize] + placement;
    if white {
        v
    } else {
        -v
    }
}

/// 0 in a corner … 6 in the four centre squares.
fn centrality(sq: u8) -> i32 {
    let f = (2 * file_of(sq) as i32 - 7).abs();
    let r = (2 * rank_of(sq) as i32 - 7).abs();
    7 - (f + r) / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    // Perft counts against the published ones are checked in tests/it/cpu.rs, apart
    // from these quick unit tests.
    const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

    #[test]
    fn make_unmake_restores_the_position() {
        let mut pos = Position::from_fen(KIWIPETE).unwrap();
        let before = pos.board;
        let score = pos.score();
        for m in pos.legal_moves() {
            let u = pos.make(m);
            pos.unmake(m, u);
            assert_eq!(pos.board, before, "{}", m.uci());
            assert_eq!(pos.score(), score, "{}", m.uci());
        }
    }

    /// The incremental score equals a full recount after every move of a short walk.
    #[test]
    fn the_incremental_score_matches_a_recount() {
        let mut pos = Position::from_fen(KIWIPETE).unwrap();
        for _ in 0..40 {
            let moves = pos.legal_moves();
            let Some(&m) = moves
                .iter()
                .find(|m| m.flag != Flag::Normal)
                .or(moves.last())
            else {
                break;
            };
            pos.make(m);
            let recount: i32 = (0..128u8)
                .filter(|sq| sq & 0x88 == 0)
                .map(|sq| term(pos.board[sq as usize], sq))
                .sum();
            assert_eq!(pos.score(), recount, "after {}", m.uci());
        }
    }

    #[test]
    fn bad_fen_is_an_error() {
        assert!(Position::from_fen("8/8/8 w - -").is_err());
        assert!(Position::from_fen("8/8/8/8/8/8/8/8 w - -").is_err());
    }
}
