//! `cpu.intfloat.1` … `.4`: seed 000 Table 3, four compute-bound programs "taken from
//! tests conducted to compare execution times on an IBM 370/168 and a DEC 11/45": "a
//! very small amount of actual arithmetic is done in each program, and there are no
//! explicit subroutine calls. Programs 1 and 3 performed all computations using integer
//! variables, and programs 2 and 4 (respectively) performed the same computations using
//! floating point variables." The seed does not print the programs; ours are:
//!
//! - 1 (integer) and 2 (float): two nested loops of 1,000 × 1,000 iterations summing
//!   i·j — loop control and one multiply-add per iteration. The sum, (500,500)² =
//!   250,500,250,000, is exact in a double.
//! - 3 (integer) and 4 (float): the greatest common divisor of every pair (a, b) in
//!   1..=100 by Euclid's subtraction algorithm, summed — compares and subtracts only.
//!
//! In the float programs every variable is a double, loop counters included, as a
//! Fortran or C programmer of 1975 converting the program would have done. The running
//! sum passes an empty asm barrier each iteration, so the compiler can neither find the
//! closed form nor vectorise.
//!
//! # Timing model
//! One operation is one whole program run; its result is checked against the closed
//! form (1, 2) or against a sum of gcds computed by the remainder algorithm (3, 4).

use std::hint::black_box;

use anyhow::{bail, Result};

use super::calibrated_whole;
use super::stmt::Num;
use crate::harness::contract::{Benchmark, Workload};
use crate::model::details::cpu;
use crate::model::Details;
use crate::model::Source;

const N: i64 = 1000;
const M: i64 = 100;

pub fn rows() -> Vec<Benchmark> {
    vec![
        Benchmark::new(
            "cpu.intfloat.1",
            "program 1: nested loops summing i*j, integer variables",
            Source::seed("000", "Table 3: program 1 (integer)"),
            |_| {
                Ok(Program::boxed(
                    1,
                    || sum_products_int(black_box(N)) as f64,
                    products_expected(),
                ))
            },
        )
        .with_plan(calibrated_whole)
        .per("program run"),
        Benchmark::new(
            "cpu.intfloat.2",
            "program 2: program 1 with floating point variables",
            Source::seed("000", "Table 3: program 2 (floating point version of 1)"),
            |_| {
                Ok(Program::boxed(
                    2,
                    || sum_products_float(black_box(N as f64)),
                    products_expected(),
                ))
            },
        )
        .with_plan(calibrated_whole)
        .per("program run"),
        Benchmark::new(
            "cpu.intfloat.3",
            "program 3: Euclid's subtraction gcd of every pair in 1..100, integer variables",
            Source::seed("000", "Table 3: program 3 (integer)"),
            |_| {
                Ok(Program::boxed(
                    3,
                    || gcd_sum_int(black_box(M)) as f64,
                    gcd_expected(),
                ))
            },
        )
        .with_plan(calibrated_whole)
        .per("program run"),
        Benchmark::new(
            "cpu.intfloat.4",
            "program 4: program 3 with floating point variables",
            Source::seed("000", "Table 3: program 4 (floating point version of 3)"),
            |_| {
                Ok(Program::boxed(
                    4,
                    || gcd_sum_float(black_box(M as f64)),
                    gcd_expected(),
                ))
            },
        )
        .with_plan(calibrated_whole)
        .per("program run"),
    ]
}

fn products_expected() -> f64 {
    let t = N * (N + 1) / 2;
    (t * t) as f64
}

/// Σ gcd(a, b) over 1 ≤ a, b ≤ M by the remainder algorithm: the independent reference.
fn gcd_expected() -> f64 {
    fn gcd(mut a: i64, mut b: i64) -> i64 {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    }
    (1..=M)
        .flat_map(|a| (1..=M).map(move |b| gcd(a, b)))
        .sum::<i64>() as f64
}

fn sum_products_int(n: i64) -> i64 {
    let mut s: i64 = 0;
    let mut i = 1;
    while i <= n {
        let mut j = 1;
        while j <= n {
            s = (s + i * j).opaque();
            j += 1;
        }
        i += 1;
    }
    s
}

fn sum_products_float(n: f64) -> f64 {
    let mut s: f64 = 0.0;
    let mut i = 1.0;
    while i <= n {
        let mut j = 1.0;
        while j <= n {
            s = (s + i * j).opaque();
            j += 1.0;
        }
        i += 1.0;
    }
    s
}

fn gcd_sum_int(m: i64) -> i64 {
    let mut s: i64 = 0;
    let mut a0 = 1;
    while a0 <= m {
        let mut b0 = 1;
        while b0 <= m {
            let (mut a, mut b) = (a0, b0);
            while a != b {
                if a > b {
                    a -= b;
                } else {
                    b -= a;
                }
            }
            s = (s + a).opaque();
            b0 += 1;
        }
        a0 += 1;
    }
    s
}

fn gcd_sum_float(m: f64) -> f64 {
    let mut s: f64 = 0.0;
    let mut a0 = 1.0;
    while a0 <= m {
        let mut b0 = 1.0;
        while b0 <= m {
            let (mut a, mut b) = (a0, b0);
            while a != b {
                if a > b {
                    a -= b;
                } else {
                    b -= a;
                }
            }
            s = (s + a).opaque();
            b0 += 1.0;
        }
        a0 += 1.0;
    }
    s
}

struct Program<F: FnMut() -> f64> {
    number: u32,
    program: F,
    expected: f64,
}

impl<F: FnMut() -> f64 + 'static> Program<F> {
    fn boxed(number: u32, program: F, expected: f64) -> Box<dyn Workload> {
        Box::new(Program {
            number,
            program,
            expected,
        })
    }
}

impl<F: FnMut() -> f64> Workload for Program<F> {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            let got = (self.program)();
            if got != self.expected {
                bail!(
                    "program {} computed {got} instead of {}",
                    self.number,
                    self.expected
                );
            }
        }
        Ok(())
    }

    fn details(&mut self) -> Option<Details> {
        Some(Details::of(&cpu::IntFloat {
            program: self.number,
            variables: if self.number % 2 == 1 {
                "integer"
            } else {
                "floating point (f64)"
            }
            .into(),
            result: self.expected,
            checked: "the result of every run".into(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_result_fails_the_row() {
        let mut wrong = Program::boxed(2, || 1.0, products_expected());
        assert!(wrong.run(1).is_err());
    }

    #[test]
    fn integer_and_float_programs_agree_with_the_references() {
        assert_eq!(sum_products_int(N) as f64, products_expected());
        assert_eq!(sum_products_float(N as f64), products_expected());
        assert_eq!(products_expected(), 250_500_250_000.0);
        assert_eq!(gcd_sum_int(M) as f64, gcd_expected());
        assert_eq!(gcd_sum_float(M as f64), gcd_expected());
    }
}
