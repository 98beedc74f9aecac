//! Subroutine calls: 002 Figure 6 (the C save/restore sequence, timed "two ways" because
//! the 10 µs clock was as coarse as the call) and 003's 5 nested procedure calls without
//! parameters, with value and with reference parameters.
//!
//! `call.subroutine.single` times calls one by one, as 002's first way: each sample is
//! one call between two clock reads, so the clock's own cost (subtracted) dwarfs the call
//! and the row is often "below resolution" — which is the point 002 made. `call.subroutine`
//! times 100 consecutive calls together, 002's second way. Both subtract the loop's cost.

use std::hint::black_box;

use super::fig;
use crate::harness::contract::{Benchmark, LoopWorkload, Plan, Workload};
use crate::model::{Mode, Source};

const NESTED: Source = Source::seed("003", "§3 C instructions: 5 nested proc calls");

pub fn rows() -> Vec<Benchmark> {
    vec![
        Benchmark::new(
            "call.subroutine",
            "an empty non-inlined function call, 100 consecutive calls timed together",
            fig("Figure 6: subroutine overhead (100 calls per event pair)"),
            |_| Ok(empty_calls()),
        )
        .with_plan(|mode| Plan::fixed(100, samples(mode)))
        .per("subroutine call"),
        Benchmark::new(
            "call.subroutine.single",
            "an empty non-inlined function call, each call timed by itself",
            fig("Figure 6: subroutine overhead (one call per event pair)"),
            |_| Ok(empty_calls()),
        )
        .with_plan(|mode| Plan::fixed(1, 10 * samples(mode))),
        Benchmark::new(
            "call.nested5.noargs",
            "5 nested calls with no parameters",
            NESTED,
            |_| {
                Ok(Box::new(LoopWorkload::new(|| {
                    let f: fn() = black_box(no_args_1);
                    f();
                })) as Box<dyn Workload>)
            },
        )
        .per("nest of five calls"),
        Benchmark::new(
            "call.nested5",
            "5 nested calls passing three integers by value",
            NESTED,
            |_| {
                Ok(Box::new(LoopWorkload::new(|| {
                    black_box(by_value_1(black_box(1), black_box(2), black_box(3)));
                })) as Box<dyn Workload>)
            },
        )
        .per("nest of five calls"),
        Benchmark::new(
            "call.nested5.byref",
            "5 nested calls passing three integers by reference",
            NESTED,
            |_| {
                let (mut a, mut b, mut c) = (1i32, 2i32, 3i32);
                Ok(Box::new(LoopWorkload::new(move || {
                    by_ref_1(black_box(&mut a), black_box(&mut b), black_box(&mut c));
                })) as Box<dyn Workload>)
            },
        )
        .per("nest of five calls"),
    ]
}

/// 002 took 100 samples of each way; the quick mode takes a few hundred, the full mode
/// a few thousand (each sample is a fraction of a microsecond).
fn samples(mode: Mode) -> usize {
    match mode {
        Mode::Quick => 301,
        Mode::Full => 2001,
    }
}

#[inline(never)]
fn empty() {
    // An empty asm statement: the call cannot be proven pure and removed.
    black_box(());
}

fn empty_calls() -> Box<dyn Workload> {
    Box::new(LoopWorkload::new(|| {
        let f: fn() = black_box(empty);
        f();
    }))
}

macro_rules! nested_none {
    ($name:ident, $next:expr) => {
        #[inline(never)]
        fn $name() {
            $next();
            // Work after the call keeps it a call: a call in tail position would compile to
            // a jump, and the nest to one call.
            black_box(());
        }
    };
}
nested_none!(no_args_1, no_args_2);
nested_none!(no_args_2, no_args_3);
nested_none!(no_args_3, no_args_4);
nested_none!(no_args_4, no_args_5);

/// The innermost call: an empty asm statement, so that the nest cannot be proven pure and
/// removed, nor folded into one call (each level is `inline(never)`).
#[inline(never)]
fn no_args_5() {
    black_box(());
}

// Each level of the nests below is an opaque call boundary: `inline(never)` keeps the
// function, `black_box` around the arguments makes each level load its three parameters
// into the argument registers afresh, and `black_box` around the result (or an empty asm
// statement after the call) leaves work after the call, so that it is not in tail
// position. Without these, the release build compiled levels 1-4 to a single `jmp` each:
// one call and four jumps, cheaper than the nest without parameters (seed 003 has it
// dearer). bench::machine_code_tests disassembles the nests and checks five calls.
macro_rules! nested {
    ($name:ident, $next:expr) => {
        #[inline(never)]
        fn $name(a: i32, b: i32, c: i32) -> i32 {
            black_box($next(black_box(a), black_box(b), black_box(c)))
        }
    };
}
nested!(by_value_1, by_value_2);
nested!(by_value_2, by_value_3);
nested!(by_value_3, by_value_4);
nested!(by_value_4, by_value_5);

/// The innermost level: its sum passes through `black_box`, so that it stays a function
/// of its own and is not folded with another of the same body.
#[inline(never)]
fn by_value_5(a: i32, b: i32, c: i32) -> i32 {
    black_box(a.wrapping_add(b).wrapping_add(c))
}

macro_rules! nested_ref {
    ($name:ident, $next:expr) => {
        #[inline(never)]
        fn $name(a: &mut i32, b: &mut i32, c: &mut i32) {
            $next(black_box(a), black_box(b), black_box(c));
            black_box(());
        }
    };
}
nested_ref!(by_ref_1, by_ref_2);
nested_ref!(by_ref_2, by_ref_3);
nested_ref!(by_ref_3, by_ref_4);
nested_ref!(by_ref_4, by_ref_5);

#[inline(never)]
fn by_ref_5(a: &mut i32, b: &mut i32, c: &mut i32) {
    *a = a.wrapping_add(*b).wrapping_sub(*c);
}

/// The levels of each nest, outermost first, for the machine-code test
/// (bench::machine_code_tests).
#[cfg(test)]
pub(crate) const NO_ARGS: [fn(); 5] = [no_args_1, no_args_2, no_args_3, no_args_4, no_args_5];
#[cfg(test)]
pub(crate) const BY_VALUE: [fn(i32, i32, i32) -> i32; 5] =
    [by_value_1, by_value_2, by_value_3, by_value_4, by_value_5];
#[cfg(test)]
pub(crate) const BY_REF: [fn(&mut i32, &mut i32, &mut i32); 5] =
    [by_ref_1, by_ref_2, by_ref_3, by_ref_4, by_ref_5];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_calls_compute_what_they_should() {
        assert_eq!(by_value_1(1, 2, 3), 6);
        let (mut a, mut b, mut c) = (5, 2, 3);
        by_ref_1(&mut a, &mut b, &mut c);
        assert_eq!(a, 4);
    }
}
