//! `cpu.gibson`: seed 000 Table 2, programs "written adhering to the principles of the
//! Gibson Mix [J. C. Gibson, IBM TR 00.2043, 1970]", each "a loop consisting of the
//! particular mix of operations", timed per execution of the loop.
//!
//! The Gibson Mix gives the share of each instruction class in a typical scientific
//! workload of its day (per cent):
//!
//! | class                          | %    | here, per 1,000 operations            |
//! |--------------------------------|------|---------------------------------------|
//! | load and store                 | 31.2 | 312: 78 integer loads, 78 integer stores, 78 float loads, 78 float stores |
//! | indexing                       | 18.0 | 180: advance an index register        |
//! | branches                       | 16.6 | 166: a conditional branch on the last compare |
//! | floating add and subtract      |  6.9 | 69: 35 adds, 34 subtracts (f64)       |
//! | fixed-point add and subtract   |  6.1 | 61: 31 adds, 30 subtracts (i64)       |
//! | instructions not using registers |  5.3 | 53: memory-to-memory moves        |
//! | shifting                       |  4.4 | 44: rotates                           |
//! | compares                       |  3.8 | 38                                    |
//! | floating multiply              |  3.8 | 38                                    |
//! | logical (and, or)              |  1.6 | 16                                    |
//! | floating divide                |  1.5 | 15                                    |
//! | fixed-point multiply           |  0.6 | 6                                     |
//! | fixed-point divide             |  0.2 | 2                                     |
//!
//! The 1,000 operations are interleaved evenly (each class spread over the sequence by
//! largest remainder), and the loop executes them in that fixed order from a fixed state.
//! Operations are source-level, as in the seed's C and Fortran programs; each is executed
//! through a `match` (a jump table), whose dispatch is part of the cost, as the seed's
//! loop control was part of its figure.
//!
//! # Timing model
//! One operation is one execution of the 1,000-operation loop, from the same initial state;
//! its checksum (integer registers and float bits) is compared with the stored one after
//! every execution: a different result fails the row.

use std::hint::black_box;

use anyhow::{bail, Result};

use super::calibrated_whole;
use crate::harness::contract::{Benchmark, Workload};
use crate::model::details::cpu;
use crate::model::Details;
use crate::model::Source;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    LoadInt,
    StoreInt,
    LoadFloat,
    StoreFloat,
    Index,
    Branch,
    FloatAdd,
    FloatSub,
    FixAdd,
    FixSub,
    MemMove,
    Shift,
    Compare,
    FloatMul,
    Logical,
    FloatDiv,
    FixMul,
    FixDiv,
}

/// Operations per 1,000, by the Gibson Mix (see the module table).
const MIX: [(Op, u32); 18] = [
    (Op::LoadInt, 78),
    (Op::StoreInt, 78),
    (Op::LoadFloat, 78),
    (Op::StoreFloat, 78),
    (Op::Index, 180),
    (Op::Branch, 166),
    (Op::FloatAdd, 35),
    (Op::FloatSub, 34),
    (Op::FixAdd, 31),
    (Op::FixSub, 30),
    (Op::MemMove, 53),
    (Op::Shift, 44),
    (Op::Compare, 38),
    (Op::FloatMul, 38),
    (Op::Logical, 16),
    (Op::FloatDiv, 15),
    (Op::FixMul, 6),
    (Op::FixDiv, 2),
];
const OPS: u32 = 1000;

/// The checksum of one execution from the initial state.
pub const EXPECTED_CHECKSUM: u64 = 0xef23_89b3_562d_fc6a;

/// The 1,000 operations, each class spread evenly: at every step the class furthest
/// behind its share goes next (ties to the earlier class).
fn sequence() -> Vec<Op> {
    let mut emitted = [0u32; MIX.len()];
    (0..OPS)
        .map(|t| {
            let k = (0..MIX.len())
                .max_by_key(|&k| {
                    let deficit = (MIX[k].1 * (t + 1)) as i64 - (OPS * emitted[k]) as i64;
                    (deficit, std::cmp::Reverse(k))
                })
                .expect("the mix is not empty");
            emitted[k] += 1;
            MIX[k].0
        })
        .collect()
}

struct State {
    i: [i64; 4],
    f: [f64; 4],
    mem: [i64; 16],
    fmem: [f64; 16],
    x: usize,
    flag: bool,
}

impl State {
    fn initial() -> State {
        State {
            i: black_box([7, 3, 12_345, 1]),
            f: black_box([0.5, 1.5, 0.25, 1.25]),
            mem: black_box(std::array::from_fn(|k| k as i64 * 37 + 11)),
            fmem: black_box(std::array::from_fn(|k| k as f64 * 0.125 + 0.5)),
            x: 0,
            flag: false,
        }
    }

    #[inline(always)]
    fn exec(&mut self, op: Op) {
        let x = self.x & 15;
        match op {
            Op::LoadInt => self.i[0] = self.mem[x],
            Op::StoreInt => self.mem[x] = self.i[1],
            Op::LoadFloat => self.f[2] = self.fmem[x],
            Op::StoreFloat => self.fmem[x] = self.f[0],
            Op::Index => self.x = (self.x + 3) & 15,
            Op::Branch => {
                if self.flag {
                    self.i[3] = self.i[3].wrapping_add(1);
                } else {
                    self.i[3] = self.i[3].wrapping_sub(2);
                }
            }
            Op::FloatAdd => self.f[0] += self.f[1],
            Op::FloatSub => self.f[0] -= self.f[2],
            Op::FixAdd => self.i[0] = self.i[0].wrapping_add(self.i[1]),
            Op::FixSub => self.i[1] = self.i[1].wrapping_sub(self.i[0]),
            Op::MemMove => self.mem[(x + 1) & 15] = self.mem[x],
            Op::Shift => self.i[2] = self.i[2].rotate_left(5),
            Op::Compare => self.flag = self.i[0] < self.i[2],
            Op::FloatMul => self.f[1] *= self.f[3],
            Op::Logical => self.i[1] ^= self.i[3],
            Op::FloatDiv => self.f[1] /= self.f[3],
            Op::FixMul => self.i[1] = self.i[1].wrapping_mul(self.i[2]),
            Op::FixDiv => self.i[2] = self.i[0].wrapping_div(self.i[1] | 1),
        }
    }

    fn checksum(&self) -> u64 {
        let ints = self.i.iter().chain(&self.mem).map(|&v| v as u64);
        let floats = self.f.iter().chain(&self.fmem).map(|v| v.to_bits());
        ints.chain(floats).fold(0u64, |h, v| {
            h.rotate_left(7) ^ v.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        })
    }
}

/// One execution of the mix loop from the initial state: its checksum.
fn execute(ops: &[Op]) -> u64 {
    let mut s = State::initial();
    for &op in ops {
        s.exec(op);
    }
    s.checksum()
}

pub fn rows() -> Vec<Benchmark> {
    vec![Benchmark::new(
        "cpu.gibson",
        "a loop of 1,000 operations in the proportions of the Gibson Mix",
        Source::seed("000", "Table 2: Gibson-mix floating point programs"),
        |_| Ok(Box::new(Gibson { ops: sequence() }) as Box<dyn Workload>),
    )
    .with_plan(calibrated_whole)]
}

struct Gibson {
    ops: Vec<Op>,
}

impl Workload for Gibson {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            let sum = execute(black_box(&self.ops));
            if sum != EXPECTED_CHECKSUM {
                bail!("the mix ended with checksum {sum:#x}, not {EXPECTED_CHECKSUM:#x}");
            }
        }
        Ok(())
    }

    fn details(&mut self) -> Option<Details> {
        Some(Details::of(&cpu::Gibson {
            operations_per_loop: OPS,
            mix_per_1000: MIX.iter().map(|(op, n)| (format!("{op:?}"), *n)).collect(),
            checked: "the checksum of every execution".into(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mix_has_the_gibson_proportions() {
        assert_eq!(MIX.iter().map(|m| m.1).sum::<u32>(), OPS);
        let seq = sequence();
        assert_eq!(seq.len(), OPS as usize);
        for (op, n) in MIX {
            assert_eq!(
                seq.iter().filter(|&&o| o == op).count(),
                n as usize,
                "{op:?}"
            );
        }
        let class =
            |ops: &[Op]| -> u32 { MIX.iter().filter(|m| ops.contains(&m.0)).map(|m| m.1).sum() };
        use Op::*;
        assert_eq!(class(&[LoadInt, StoreInt, LoadFloat, StoreFloat]), 312);
        assert_eq!(class(&[FloatAdd, FloatSub]), 69);
        assert_eq!(class(&[FixAdd, FixSub]), 61);
    }

    #[test]
    fn the_mix_is_spread_not_grouped() {
        // The first 100 operations hold about 18% indexing, as the whole loop does.
        let seq = sequence();
        let indexing = seq[..100].iter().filter(|&&o| o == Op::Index).count();
        assert!((16..=20).contains(&indexing), "{indexing}");
    }

    #[test]
    fn the_checksum_is_the_stored_one() {
        let sum = execute(&sequence());
        assert_eq!(sum, EXPECTED_CHECKSUM, "{sum:#x}");
    }
}
