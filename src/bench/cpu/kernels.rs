//! The Zilog programs of seed 003 §5: the sieve and the procedure-call loop.
//!
//! `cpu.sieve` — "20 iterations of sieve on 0 - 8191". The sieve is the classic one of
//! BYTE (Gilbreath, September 1981), which the Zilog set follows: 8,191 flags (indices
//! 0..=8190), flag i standing for the odd number 2i + 3, so the flags cover the odd
//! numbers 3..=16,383; every pass clears the flags and counts 1,899 primes (π(16,383) = 1,900
//! primes up to 16,383, less the even prime 2, which is not represented).
//! # Timing model
//! One operation is the whole program: 20 passes. The count is checked after every pass.
//!
//! `cpu.proc_call` — "1,000,000 function calls to dummy(a, b, c) where dummy returns
//! (a + b + c)". One operation is the whole program: a million calls of a function the
//! compiler may not inline, each call's `a` being the previous call's result (so calls
//! cannot overlap and none can be skipped); the final value is checked.

use std::hint::black_box;

use anyhow::{bail, Result};

use super::{calibrated_whole, perq};
use crate::harness::contract::{Benchmark, Workload};
use crate::model::details::cpu;
use crate::model::Details;

/// The BYTE sieve's SIZE: flags 0..=SIZE.
pub const SIEVE_SIZE: usize = 8190;
/// Primes its flags represent.
pub const SIEVE_PRIMES: u32 = 1899;
const SIEVE_PASSES: u32 = 20;
const CALLS: u32 = 1_000_000;

pub fn rows() -> Vec<Benchmark> {
    vec![
        Benchmark::new(
            "cpu.sieve",
            "20 passes of the BYTE sieve of Eratosthenes on 8,191 flags (1,899 primes)",
            perq("§5 Zilog programs: sieve, 20 iterations on 0 - 8191"),
            |_| {
                Ok(Box::new(Sieve {
                    flags: vec![0u8; SIEVE_SIZE + 1],
                }) as Box<dyn Workload>)
            },
        )
        .with_plan(calibrated_whole)
        .per_job(SIEVE_PASSES as u64, "sieve pass over 8,191 flags"),
        Benchmark::new(
            "cpu.proc_call",
            "1,000,000 calls of dummy(a, b, c) returning a + b + c",
            perq("§5 Zilog programs: proc_call, 1,000,000 calls of dummy(a,b,c)"),
            |_| Ok(Box::new(ProcCalls) as Box<dyn Workload>),
        )
        .with_plan(calibrated_whole)
        .per_job(CALLS as u64, "call of dummy(a, b, c)"),
    ]
}

/// One pass of the BYTE sieve over `flags` (length SIZE + 1); returns the prime count.
pub fn sieve_pass(flags: &mut [u8]) -> u32 {
    flags.fill(1);
    let size = flags.len() - 1;
    let mut count = 0;
    for i in 0..=size {
        if flags[i] != 0 {
            let prime = i + i + 3;
            let mut k = i + prime;
            while k <= size {
                flags[k] = 0;
                k += prime;
            }
            count += 1;
        }
    }
    count
}

struct Sieve {
    flags: Vec<u8>,
}

impl Workload for Sieve {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            for _ in 0..SIEVE_PASSES {
                let count = black_box(sieve_pass(black_box(&mut self.flags)));
                if count != SIEVE_PRIMES {
                    bail!("the sieve counted {count} primes instead of {SIEVE_PRIMES}");
                }
            }
        }
        Ok(())
    }

    fn details(&mut self) -> Option<Details> {
        Some(Details::of(&cpu::Sieve {
            passes_per_op: SIEVE_PASSES,
            flags: SIEVE_SIZE + 1,
            primes_per_pass: SIEVE_PRIMES,
            checked: "the prime count of every pass".into(),
        }))
    }
}

#[inline(never)]
fn dummy(a: i32, b: i32, c: i32) -> i32 {
    a.wrapping_add(b).wrapping_add(c)
}

/// A million chained calls from `start`: returns the last result.
fn million_calls(start: i32, b: i32, c: i32) -> i32 {
    let mut a = start;
    for _ in 0..CALLS {
        a = dummy(a, b, c);
    }
    a
}

struct ProcCalls;

impl Workload for ProcCalls {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            let (start, b, c) = black_box((5, 1, 2));
            let got = million_calls(start, b, c);
            let want = 5 + 3 * CALLS as i32;
            if got != want {
                bail!("dummy(a, b, c) chain ended at {got} instead of {want}");
            }
        }
        Ok(())
    }

    fn details(&mut self) -> Option<Details> {
        Some(Details::of(&cpu::ProcCall {
            calls_per_op: CALLS,
            checked: "the value at the end of the chain of calls".into(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_prime(n: usize) -> bool {
        n >= 2
            && (2..)
                .take_while(|d| d * d <= n)
                .all(|d| !n.is_multiple_of(d))
    }

    #[test]
    fn the_byte_sieve_counts_the_odd_primes_up_to_16383() {
        let mut flags = vec![0u8; SIEVE_SIZE + 1];
        let count = sieve_pass(&mut flags);
        let odd_primes = (3..=2 * SIEVE_SIZE + 3).filter(|&n| is_prime(n)).count();
        assert_eq!(2 * SIEVE_SIZE + 3, 16_383);
        assert_eq!(count as usize, odd_primes);
        assert_eq!(count, 1899);
        // And the flags that stay set are exactly the primes.
        for (i, &f) in flags.iter().enumerate() {
            assert_eq!(f != 0, is_prime(2 * i + 3), "flag {i}");
        }
    }

    #[test]
    fn a_wrong_prime_count_fails_the_row() {
        let mut short = Sieve {
            flags: vec![0u8; 100],
        };
        let e = short.run(1).unwrap_err().to_string();
        assert!(e.contains("instead of 1899"), "{e}");
    }

    #[test]
    fn the_call_chain_adds_up() {
        assert_eq!(million_calls(5, 1, 2), 3_000_005);
    }
}
