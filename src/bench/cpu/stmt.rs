//! `cpu.stmt.T.S`: seed 003 §3, "Times for various instructions in C", for the integer
//! types of the PERQ note (its "single precision (16 bits)" and "double precision (32
//! bits)" tables are 16- and 32-bit integers) plus i64, f32 and f64.
//!
//! # Our reading of the OCR-damaged table
//! The note's statement column reads: FOR loop, REPEAT loop, WHILE loop (each "10
//! iterations"), `x = 0`, `x = a`, `x = a/2*3+4-5`, `x = a/a*a+a-a`, `ar[j] = ar[j-1]`,
//! `IF (x<50) ;ELSE;`, `IF (x<1) ;ELSE;`, 5 nested procedure calls (value, reference:
//! measured by `call.nested5*` in §1), then `x = a + b`, `x = a + b`, `x = a - b`,
//! `x = a # b` three times, `x = a % b`, `x = m`, `*p++`. We read the repeated `+` as the
//! add row printed twice, and the three `#` rows as `*`, `/` and a duplicate (the 16-bit
//! PDP column has equal figures 10, 10 for two of them, as a multiply and a divide of
//! near-equal cost would not be, so the third is a duplicate line): the catalogue's rows
//! are therefore add, sub, mul, div, mod. `x = m` reads a global (external) variable,
//! `*p++` reads through a pointer and advances it.
//!
//! # Timing model
//! One operation is one statement. Each statement's result feeds the next one (a
//! dependent chain), and the value passes through an empty `asm!` barrier after every
//! statement: the compiler must compute it in a register, cannot fold a run of statements
//! into one (x + b + b … ≠ x + n·b to it), cannot vectorise, and the CPU cannot overlap
//! two statements. The figure is therefore the statement's *latency*. The loop around
//! the chain is unrolled eight times, so the loop's own cost is an eighth of an
//! iteration per statement and runs in parallel with the chain: the harness does not
//! subtract a per-statement loop cost (the `for10`/`while10`/`repeat10` rows are the
//! loop's cost, as in the seed). The chain's value is chosen so that it stays fixed
//! (x + 0, x · 1, x / 1, a/2*3+4-5 at a = 2, …) and is checked after every batch: a
//! wrong value fails the row.
//!
//! Two things a reader should know: a 64-bit division whose operands both fit in 32 bits
//! is turned by LLVM into a 32-bit one on x86-64 (it checks at run time), so the i64 rows
//! start from a value above 2³²; and floats have no `%` in C — Rust's `%` on floats is
//! C's `fmod()`, a library call, which is what `f32.mod`/`f64.mod` time.

use std::fmt::Debug;

use anyhow::{bail, Result};

use super::{calibrated_whole, clock, perq};
use crate::harness::anchor::{Anchor, Parse};
use crate::harness::contract::{Benchmark, Ctx, Workload};
use crate::model::details::cpu;
use crate::model::Details;

/// A number type the statements run on.
pub trait Num: Copy + PartialEq + PartialOrd + Debug + Send + 'static {
    /// The chain's starting value: above 2³² for i64 (see the module comment).
    const START: Self;
    /// The constant K of the mod chain `x = (x + K) % 3`, a multiple of 3 that keeps the
    /// dividend as wide as the type (so the remainder comes from a full-width division).
    const MOD_K: Self;
    fn lit(v: i32) -> Self;
    /// The value through an empty asm statement: unknown to the optimiser, costs nothing.
    fn opaque(self) -> Self;
    fn w_add(self, o: Self) -> Self;
    fn w_sub(self, o: Self) -> Self;
    fn w_mul(self, o: Self) -> Self;
    fn w_div(self, o: Self) -> Self;
    fn w_rem(self, o: Self) -> Self;
    /// Low bits of the value as an index (to make an address depend on it).
    fn index_bits(self) -> usize;
    /// A global variable holding START (`x = m`).
    fn global() -> &'static Self;
}

macro_rules! int_num {
    ($t:ty, $start:expr, $k:expr) => {
        impl Num for $t {
            const START: $t = $start;
            const MOD_K: $t = $k;
            #[inline(always)]
            fn lit(v: i32) -> $t {
                v as $t
            }
            #[inline(always)]
            fn opaque(self) -> $t {
                barrier_int!(self)
            }
            #[inline(always)]
            fn w_add(self, o: $t) -> $t {
                self.wrapping_add(o)
            }
            #[inline(always)]
            fn w_sub(self, o: $t) -> $t {
                self.wrapping_sub(o)
            }
            #[inline(always)]
            fn w_mul(self, o: $t) -> $t {
                self.wrapping_mul(o)
            }
            #[inline(always)]
            fn w_div(self, o: $t) -> $t {
                self.wrapping_div(o)
            }
            #[inline(always)]
            fn w_rem(self, o: $t) -> $t {
                self.wrapping_rem(o)
            }
            #[inline(always)]
            fn index_bits(self) -> usize {
                self as usize
            }
            fn global() -> &'static $t {
                static M: $t = <$t as Num>::START;
                &M
            }
        }
    };
}

macro_rules! float_num {
    ($t:ty, $k:expr) => {
        impl Num for $t {
            const START: $t = 1.5;
            const MOD_K: $t = $k;
            #[inline(always)]
            fn lit(v: i32) -> $t {
                v as $t
            }
            #[inline(always)]
            fn opaque(self) -> $t {
                barrier_float!(self)
            }
            #[inline(always)]
            fn w_add(self, o: $t) -> $t {
                self + o
            }
            #[inline(always)]
            fn w_sub(self, o: $t) -> $t {
                self - o
            }
            #[inline(always)]
            fn w_mul(self, o: $t) -> $t {
                self * o
            }
            #[inline(always)]
            fn w_div(self, o: $t) -> $t {
                self / o
            }
            #[inline(always)]
            fn w_rem(self, o: $t) -> $t {
                self % o
            }
            #[inline(always)]
            fn index_bits(self) -> usize {
                self.to_bits() as usize
            }
            fn global() -> &'static $t {
                static M: $t = <$t as Num>::START;
                &M
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
macro_rules! barrier_int {
    ($v:expr) => {{
        let mut v = $v;
        // SAFETY: an empty instruction sequence on a register.
        unsafe { std::arch::asm!("/* {0:r} */", inout(reg) v, options(nomem, nostack, preserves_flags)) };
        v
    }};
}
#[cfg(target_arch = "x86_64")]
macro_rules! barrier_float {
    ($v:expr) => {{
        let mut v = $v;
        // SAFETY: an empty instruction sequence on a register.
        unsafe { std::arch::asm!("/* {0} */", inout(xmm_reg) v, options(nomem, nostack, preserves_flags)) };
        v
    }};
}
#[cfg(not(target_arch = "x86_64"))]
macro_rules! barrier_int {
    ($v:expr) => {
        std::hint::black_box($v)
    };
}
#[cfg(not(target_arch = "x86_64"))]
macro_rules! barrier_float {
    ($v:expr) => {
        std::hint::black_box($v)
    };
}

int_num!(i16, 0x1234, 3 << 12);
int_num!(i32, 0x1234_5678, 3 << 28);
int_num!(i64, 0x1234_5678_9abc_def0, 3 << 60);
float_num!(f32, 3072.0);
float_num!(f64, 3_145_728.0);

/// Tell the compiler that memory reachable from `p` may have been read and written: it
/// must store before and reload after (no forwarding of array values in registers).
#[inline(always)]
fn clobber<T>(p: *const T) {
    // SAFETY: an empty instruction sequence.
    unsafe { std::arch::asm!("/* {0} */", in(reg) p, options(nostack, preserves_flags)) };
}

/// Run `f` n times, unrolled eight times.
#[inline(always)]
fn repeat(n: u64, mut f: impl FnMut()) {
    for _ in 0..n / 8 {
        f();
        f();
        f();
        f();
        f();
        f();
        f();
        f();
    }
    for _ in 0..n % 8 {
        f();
    }
}

/// A statement: how to run n of them in a chain, and what its chain must end with.
pub trait Stmt<T: Num>: 'static {
    /// The statement as the seed writes it, and our chain for it.
    const TEXT: &'static str;
    const CHAIN: &'static str;
    type State: Send;
    fn init() -> Self::State;
    fn run(s: &mut Self::State, n: u64);
    fn check(s: &Self::State) -> Result<()>;
}

/// The chain value and the statement's loop-invariant operand(s), hidden from the
/// optimiser once, at the start.
pub struct Chain<T> {
    x: T,
    b: T,
    done: u64,
}

fn chain<T: Num>(b: i32) -> Chain<T> {
    Chain {
        x: T::START.opaque(),
        b: T::lit(b).opaque(),
        done: 0,
    }
}

fn expect_start<T: Num>(c: &Chain<T>, text: &str) -> Result<()> {
    expect_value(c, T::START, text)
}

fn expect_value<T: Num>(c: &Chain<T>, want: T, text: &str) -> Result<()> {
    if c.x != want {
        bail!(
            "`{text}`: the chain ended at {:?} instead of {want:?}: wrong result",
            c.x
        );
    }
    Ok(())
}

/// Declares a statement whose state is a [`Chain`] starting at `START` with operand `b`,
/// whose body maps x to x, and which must end where it started.
macro_rules! chain_stmt {
    ($name:ident, $text:expr, $chain:expr, start = $start:expr, b = $b:expr, |$x:ident, $bb:ident| $body:expr) => {
        pub struct $name;
        impl<T: Num> Stmt<T> for $name {
            const TEXT: &'static str = $text;
            const CHAIN: &'static str = $chain;
            type State = Chain<T>;
            fn init() -> Chain<T> {
                Chain {
                    x: $start,
                    ..chain($b)
                }
            }
            fn run(s: &mut Chain<T>, n: u64) {
                let mut $x = s.x;
                let $bb = s.b;
                repeat(n, || {
                    $x = ($body).opaque();
                });
                s.x = $x;
                s.done += n;
            }
            fn check(s: &Chain<T>) -> Result<()> {
                expect_value(s, $start, $text)
            }
        }
    };
}

chain_stmt!(
    Add,
    "x = a + b",
    "x = x + b, b = 0",
    start = T::START,
    b = 0,
    |x, b| x.w_add(b)
);
chain_stmt!(
    Sub,
    "x = a - b",
    "x = x - b, b = 0",
    start = T::START,
    b = 0,
    |x, b| x.w_sub(b)
);
chain_stmt!(
    Mul,
    "x = a * b",
    "x = x * b, b = 1",
    start = T::START,
    b = 1,
    |x, b| x.w_mul(b)
);
chain_stmt!(
    Div,
    "x = a / b",
    "x = x / b, b = 1",
    start = T::START,
    b = 1,
    |x, b| x.w_div(b)
);
chain_stmt!(
    Mod,
    "x = a % b",
    "x = (x + K) % b from x = 1, b = 3, K a wide multiple of 3 (the figure includes the add); floats: fmod()",
    start = T::lit(1),
    b = 3,
    |x, b| x.w_add(T::MOD_K).w_rem(b)
);
chain_stmt!(
    Expr1,
    "x = a/2*3+4-5",
    "x = x/2*3+4-5 from x = 2, constants visible to the compiler",
    start = T::lit(2),
    b = 2,
    |x, _b| x
        .w_div(T::lit(2))
        .w_mul(T::lit(3))
        .w_add(T::lit(4))
        .w_sub(T::lit(5))
);
chain_stmt!(
    Expr2,
    "x = a/a*a+a-a",
    "x = x/b*x+b-x from x = START, b an opaque copy of x (so a/a is a real division)",
    start = T::START,
    b = 0,
    |x, _b| {
        let b = x.opaque();
        x.w_div(b).w_mul(x).w_add(b).w_sub(x)
    }
);

pub struct Zero;
impl<T: Num> Stmt<T> for Zero {
    const TEXT: &'static str = "x = 0";
    const CHAIN: &'static str = "x = 0 (reads nothing: a throughput figure, not a latency)";
    type State = Chain<T>;
    fn init() -> Chain<T> {
        chain(0)
    }
    fn run(s: &mut Chain<T>, n: u64) {
        let mut x = s.x;
        repeat(n, || x = T::lit(0).opaque());
        s.x = x;
        s.done += n;
    }
    fn check(s: &Chain<T>) -> Result<()> {
        if s.done > 0 && s.x != T::lit(0) {
            bail!("`x = 0` left {:?}", s.x);
        }
        Ok(())
    }
}

pub struct Assign;
impl<T: Num> Stmt<T> for Assign {
    const TEXT: &'static str = "x = a";
    const CHAIN: &'static str =
        "x = a; a = x (a register move: the compiler and renamer remove it)";
    type State = Chain<T>;
    fn init() -> Chain<T> {
        chain(0)
    }
    fn run(s: &mut Chain<T>, n: u64) {
        let mut a = s.x;
        repeat(n, || {
            let x = a;
            a = x.opaque();
        });
        s.x = a;
        s.done += n;
    }
    fn check(s: &Chain<T>) -> Result<()> {
        expect_start(s, "x = a")
    }
}

/// `IF (x<50) ;ELSE;` (taken) and `IF (x<1) ;ELSE;` (not taken): a compare and a
/// well-predicted conditional branch with x = 10; both arms hold a different empty asm
/// statement, so the compiler must keep the branch.
pub struct IfTrue;
pub struct IfFalse;
macro_rules! if_stmt {
    ($name:ident, $text:expr, $limit:expr, $expect_then:expr) => {
        impl<T: Num> Stmt<T> for $name {
            const TEXT: &'static str = $text;
            const CHAIN: &'static str = "if x < limit {} else {} with x = 10, both arms kept";
            type State = (T, u64, u64);
            fn init() -> (T, u64, u64) {
                (T::lit(10), 0, 0)
            }
            fn run(s: &mut (T, u64, u64), n: u64) {
                let mut x = s.0;
                let (mut then_arm, mut else_arm) = (0u64, 0u64);
                repeat(n, || {
                    x = x.opaque();
                    if x < T::lit($limit) {
                        then_arm = barrier_int!(then_arm);
                    } else {
                        // SAFETY: an empty instruction sequence.
                        unsafe { std::arch::asm!("/* else */", options(nomem, nostack)) };
                        else_arm = barrier_int!(else_arm);
                    }
                });
                s.0 = x;
                if $expect_then {
                    s.1 += n;
                } else {
                    s.2 += n;
                }
            }
            fn check(s: &(T, u64, u64)) -> Result<()> {
                let took_then = (s.0 < T::lit($limit));
                if took_then != $expect_then {
                    bail!("`{}` took the wrong arm", $text);
                }
                Ok(())
            }
        }
    };
}
if_stmt!(IfTrue, "IF (x<50) ;ELSE;", 50, true);
if_stmt!(IfFalse, "IF (x<1) ;ELSE;", 1, false);

/// `ar[j] = ar[j-1]`: each statement loads the element the previous one stored, so the
/// chain runs through the store-to-load forwarding of the core. j walks a 64-element
/// array.
pub struct Array;
const AR: usize = 64;
impl<T: Num> Stmt<T> for Array {
    const TEXT: &'static str = "ar[j] = ar[j-1]";
    const CHAIN: &'static str =
        "ar[j] = ar[j-1]; j++ over 64 elements, memory clobbered after each";
    type State = (Box<[T; AR]>, usize);
    fn init() -> Self::State {
        (Box::new([T::START; AR]), 1)
    }
    fn run(s: &mut Self::State, n: u64) {
        let (ar, j) = (&mut s.0, &mut s.1);
        let mut k = *j;
        repeat(n, || {
            ar[k & (AR - 1)] = ar[k.wrapping_sub(1) & (AR - 1)];
            k = k.wrapping_add(1);
            clobber(ar.as_ptr());
        });
        *j = k;
    }
    fn check(s: &Self::State) -> Result<()> {
        if s.0.iter().any(|&v| v != T::START) {
            bail!("`ar[j] = ar[j-1]` corrupted the array");
        }
        Ok(())
    }
}

/// `x = m`: a load of a global; its address depends on the previous value (`&m + (x &
/// 0)`, the 0 hidden from the compiler, the sum passed through the barrier so that the
/// compiler cannot reason the offset away), so loads cannot overlap: the figure is the
/// load-to-use latency plus an `and` and an `add` (and for floats a move of the bits to an
/// integer register).
pub struct Global;
impl<T: Num> Stmt<T> for Global {
    const TEXT: &'static str = "x = m";
    const CHAIN: &'static str =
        "x = *(&m + (bits(x) & 0)), a volatile load of a static whose address depends on x";
    type State = (Chain<T>, usize);
    fn init() -> Self::State {
        (chain(0), barrier_int!(0usize))
    }
    fn run(s: &mut Self::State, n: u64) {
        let mut x = s.0.x;
        let zero = s.1;
        let m = (T::global() as *const T).expose_provenance();
        repeat(n, || {
            let address = barrier_int!(m + (x.index_bits() & zero));
            // SAFETY: the address is always that of `m`: the offset is 0.
            x = unsafe { (std::ptr::with_exposed_provenance::<T>(address)).read_volatile() }
                .opaque();
        });
        s.0.x = x;
        s.0.done += n;
    }
    fn check(s: &Self::State) -> Result<()> {
        expect_start(&s.0, "x = m")
    }
}

/// `*p++`: read through a pointer and advance it (the value is discarded, as in the
/// seed's expression statement; we pass it through a barrier so the load stays). The
/// chain is the pointer; it walks a 64-element array.
pub struct Ptr;
impl<T: Num> Stmt<T> for Ptr {
    const TEXT: &'static str = "*p++";
    const CHAIN: &'static str = "v = *p; p++ (a volatile load; the pointer is the chain)";
    type State = (Box<[T; AR]>, usize, T);
    fn init() -> Self::State {
        (Box::new([T::START; AR]), 0, T::lit(0))
    }
    fn run(s: &mut Self::State, n: u64) {
        let base = s.0.as_ptr();
        let mut i = s.1;
        let mut v = s.2;
        repeat(n, || {
            // SAFETY: the index is masked into the array.
            v = unsafe { base.add(i & (AR - 1)).read_volatile() }.opaque();
            i = barrier_int!(i.wrapping_add(1));
        });
        s.1 = i;
        s.2 = v;
    }
    fn check(s: &Self::State) -> Result<()> {
        if s.1 > 0 && s.2 != T::START {
            bail!("`*p++` read {:?}", s.2);
        }
        Ok(())
    }
}

/// The 10-iteration loops (`for10`, `while10`, `repeat10`): one operation is a whole
/// loop of ten empty iterations with a counter of type T, the seed's "(1) 10 iterations
/// of each loop". The limit is hidden from the compiler and the counter passes the
/// barrier every iteration, so the loop is neither unrolled away nor computed.
pub struct For10;
pub struct While10;
pub struct Repeat10;
type LoopState<T> = (T, u64);

fn loop_check<T: Num>(s: &LoopState<T>, text: &str) -> Result<()> {
    if s.1 > 0 && s.0 != T::lit(10) {
        bail!("`{text}` ended at {:?} instead of 10", s.0);
    }
    Ok(())
}

impl<T: Num> Stmt<T> for For10 {
    const TEXT: &'static str = "for (i = 0; i < 10; i++) ;";
    const CHAIN: &'static str = "C for: test at the top";
    type State = LoopState<T>;
    fn init() -> Self::State {
        (T::lit(0), 0)
    }
    fn run(s: &mut Self::State, n: u64) {
        let limit = T::lit(10).opaque();
        let mut last = s.0;
        for _ in 0..n {
            let mut i = T::lit(0).opaque();
            loop {
                if i >= limit {
                    break;
                }
                i = i.w_add(T::lit(1)).opaque();
            }
            last = i;
        }
        *s = (last, s.1 + n);
    }
    fn check(s: &Self::State) -> Result<()> {
        loop_check(s, "for")
    }
}

impl<T: Num> Stmt<T> for While10 {
    const TEXT: &'static str = "while (i < 10) i++;";
    const CHAIN: &'static str = "C while: test at the top";
    type State = LoopState<T>;
    fn init() -> Self::State {
        (T::lit(0), 0)
    }
    fn run(s: &mut Self::State, n: u64) {
        let limit = T::lit(10).opaque();
        let mut last = s.0;
        for _ in 0..n {
            let mut i = T::lit(0).opaque();
            while i < limit {
                i = i.w_add(T::lit(1)).opaque();
            }
            last = i;
        }
        *s = (last, s.1 + n);
    }
    fn check(s: &Self::State) -> Result<()> {
        loop_check(s, "while")
    }
}

impl<T: Num> Stmt<T> for Repeat10 {
    const TEXT: &'static str = "do i++; while (i < 10);";
    const CHAIN: &'static str = "REPEAT … UNTIL: test at the bottom";
    type State = LoopState<T>;
    fn init() -> Self::State {
        (T::lit(0), 0)
    }
    fn run(s: &mut Self::State, n: u64) {
        let limit = T::lit(10).opaque();
        let mut last = s.0;
        for _ in 0..n {
            let mut i = T::lit(0).opaque();
            loop {
                i = i.w_add(T::lit(1)).opaque();
                if i >= limit {
                    break;
                }
            }
            last = i;
        }
        *s = (last, s.1 + n);
    }
    fn check(s: &Self::State) -> Result<()> {
        loop_check(s, "repeat")
    }
}

/// A prepared statement row.
pub struct StmtWorkload<T: Num, S: Stmt<T>> {
    state: S::State,
    /// Whether the details measure the CPU's cycle: in the first process of a run only
    /// (`Ctx::first_process`). A result merged across processes keeps the first's
    /// details, and the measurement (25 timed chains, ~8 ms) in each of the later
    /// processes of 85 rows was a second of a quick run for nothing.
    measures_cycle: bool,
}

impl<T: Num, S: Stmt<T>> Workload for StmtWorkload<T, S> {
    fn run(&mut self, n: u64) -> Result<()> {
        S::run(&mut self.state, n);
        S::check(&self.state)
    }

    fn details(&mut self) -> Option<Details> {
        let (cycle_ns, cycle_source) = if self.measures_cycle {
            let cycle_ns = clock::measured_cycle_ns();
            let source = cycle_ns.map(|_| {
                "measured: a chain of dependent 1-cycle adds, right after sampling".to_string()
            });
            (cycle_ns, source)
        } else {
            (None, Some(NOT_MEASURED_LATER.to_string()))
        };
        Some(Details::of(&cpu::Statement {
            statement: S::TEXT.to_string(),
            chain: S::CHAIN.to_string(),
            type_name: std::any::type_name::<T>().to_string(),
            cycle_ns,
            cycle_source,
            measured_mhz: cycle_ns.map(|c| 1e3 / c),
            nominal_mhz: clock::nominal_mhz(),
        }))
    }
}

/// What a later process's details say of the cycle it did not measure.
const NOT_MEASURED_LATER: &str =
    "not measured: a later process of the run (the merged result keeps the first's)";

pub fn prepare<T: Num, S: Stmt<T>>(ctx: &Ctx) -> Result<Box<dyn Workload>> {
    let mut w = StmtWorkload::<T, S> {
        state: S::init(),
        measures_cycle: ctx.first_process,
    };
    // A first statement checks the chain before any timing.
    w.run(8)?;
    Ok(Box::new(w))
}

/// The statements of the table in the seed's order: (id suffix, statement type).
macro_rules! rows_for {
    ($t:ident) => {
        vec![
            row!($t, for10, For10, "10 iterations of an empty C for loop"),
            row!(
                $t,
                while10,
                While10,
                "10 iterations of an empty C while loop"
            ),
            row!(
                $t,
                repeat10,
                Repeat10,
                "10 iterations of an empty do-while (REPEAT) loop"
            ),
            row!($t, zero, Zero, "x = 0"),
            row!($t, assign, Assign, "x = a"),
            row!($t, expr1, Expr1, "x = a/2*3+4-5"),
            row!($t, expr2, Expr2, "x = a/a*a+a-a"),
            row!($t, array, Array, "ar[j] = ar[j-1]"),
            row!($t, if_true, IfTrue, "IF (x<50) ;ELSE; with x = 10 (taken)"),
            row!(
                $t,
                if_false,
                IfFalse,
                "IF (x<1) ;ELSE; with x = 10 (not taken)"
            ),
            row!($t, add, Add, "x = a + b in a dependent chain"),
            row!($t, sub, Sub, "x = a - b in a dependent chain"),
            row!($t, mul, Mul, "x = a * b in a dependent chain"),
            row!($t, div, Div, "x = a / b in a dependent chain"),
            row!(
                $t,
                mod,
                Mod,
                "x = a % b in a dependent chain (floats: fmod)"
            ),
            row!($t, global, Global, "x = m, a global variable"),
            row!($t, ptr, Ptr, "*p++, read through a pointer and advance it"),
        ]
    };
}

macro_rules! row {
    ($t:ident, $s:ident, $S:ident, $about:expr) => {
        Benchmark::new(
            concat!("cpu.stmt.", stringify!($t), ".", stringify!($s)),
            concat!(stringify!($t), ": ", $about),
            perq("§3 C instructions (16- and 32-bit tables)"),
            prepare::<$t, $S>,
        )
        .with_plan(calibrated_whole)
        .per("statement")
    };
}

pub fn rows() -> Vec<Benchmark> {
    let mut all = Vec::new();
    all.extend(rows_for!(i16));
    all.extend(rows_for!(i32));
    all.extend(rows_for!(i64));
    all.extend(rows_for!(f32));
    all.extend(rows_for!(f64));
    all.into_iter().map(with_anchor).collect()
}

/// lmbench's `lat_ops` times the same dependent chains (one operation's latency) for the
/// rows it has: multiply and divide of each type, and the floating-point adds. (Integer add
/// and the bit operations are one cycle or less there: below what either can resolve.)
fn with_anchor(b: Benchmark) -> Benchmark {
    let label = match b.id() {
        "cpu.stmt.i32.mul" => "integer mul",
        "cpu.stmt.i32.div" => "integer div",
        "cpu.stmt.i64.mul" => "int64 mul",
        "cpu.stmt.i64.div" => "int64 div",
        "cpu.stmt.f32.add" => "float add",
        "cpu.stmt.f32.mul" => "float mul",
        "cpu.stmt.f32.div" => "float div",
        "cpu.stmt.f64.add" => "double add",
        "cpu.stmt.f64.mul" => "double mul",
        "cpu.stmt.f64.div" => "double div",
        _ => return b,
    };
    let anchor = Anchor::lmbench(
        "lmbench lat_ops",
        "lat_ops",
        &[],
        Parse::LmbenchOpsNanoseconds(label),
        "per operation of a dependent chain",
    );
    b.anchor(match label {
        "integer div" | "int64 div" => anchor.explained(DIVISION_OPERANDS),
        _ => anchor,
    })
}

/// Why the integer divisions differ from lat_ops's (measured on a 2-vCPU AMD EPYC VM).
const DIVISION_OPERANDS: &str = "an integer division's latency depends on its operands on \
     this CPU (the quotient's width): the row divides a full-width value by 1 (quotients of \
     29 bits for i32, 61 for i64), lat_ops divides s = 37·2²⁰ by r, alternating quotients of \
     about 20 and 6 bits. The same C chain with each one's operands, pinned: i32 3.31–3.37 \
     against 2.74–2.78 ns, i64 4.10–4.17 against 2.73–2.77 ns (lat_ops's own int64 chain: 3.15–3.19 ns)";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::details::cpu::{STATEMENTS, TYPES};

    fn run_all<T: Num>() {
        fn one<T: Num, S: Stmt<T>>() {
            let mut s = S::init();
            S::run(&mut s, 1001);
            S::check(&s).unwrap_or_else(|e| panic!("{}: {e}", S::TEXT));
        }
        one::<T, For10>();
        one::<T, While10>();
        one::<T, Repeat10>();
        one::<T, Zero>();
        one::<T, Assign>();
        one::<T, Add>();
        one::<T, Sub>();
        one::<T, Mul>();
        one::<T, Div>();
        one::<T, Mod>();
        one::<T, Expr1>();
        one::<T, Expr2>();
        one::<T, Array>();
        one::<T, IfTrue>();
        one::<T, IfFalse>();
        one::<T, Global>();
        one::<T, Ptr>();
    }

    /// The details of `cpu.stmt.i32.add` prepared in the first process of a run or a later one.
    fn details_in(first_process: bool) -> cpu::Statement {
        let standalone =
            crate::harness::contract::StandaloneCtx::new(crate::model::RunOptions::default())
                .unwrap();
        let ctx = Ctx {
            first_process,
            ..standalone.ctx()
        };
        let mut w = prepare::<i32, Add>(&ctx).unwrap();
        w.run(1000).unwrap();
        w.details().unwrap().read::<cpu::Statement>().unwrap()
    }

    #[test]
    fn only_the_first_process_measures_the_cycle() {
        let later = details_in(false);
        assert_eq!(later.cycle_ns, None);
        assert_eq!(later.measured_mhz, None);
        assert_eq!(later.cycle_source.as_deref(), Some(NOT_MEASURED_LATER));
        assert_eq!(later.statement, <Add as Stmt<i32>>::TEXT);
        let first = details_in(true);
        assert_eq!(
            first.cycle_ns.is_some(),
            cfg!(target_arch = "x86_64"),
            "{first:?}"
        );
        assert_ne!(first.cycle_source.as_deref(), Some(NOT_MEASURED_LATER));
    }

    #[test]
    fn every_chain_ends_where_it_should() {
        run_all::<i16>();
        run_all::<i32>();
        run_all::<i64>();
        run_all::<f32>();
        run_all::<f64>();
    }

    #[test]
    fn expr1_has_the_fixed_point_2() {
        fn at2<T: Num>() -> T {
            T::lit(2)
                .w_div(T::lit(2))
                .w_mul(T::lit(3))
                .w_add(T::lit(4))
                .w_sub(T::lit(5))
        }
        assert_eq!(at2::<i16>(), 2);
        assert_eq!(at2::<f64>(), 2.0);
    }

    #[test]
    fn the_mod_chain_keeps_its_value_with_a_wide_dividend() {
        assert_eq!(1i64.w_add(i64::MOD_K).w_rem(3), 1);
        // Wider than 32 bits, or LLVM's run-time check would divide in 32 bits.
        let wide = std::hint::black_box(1 + i64::MOD_K);
        assert!(wide > 1 << 32);
        assert_eq!(1i32.w_add(i32::MOD_K).w_rem(3), 1);
        assert_eq!(1i16.w_add(i16::MOD_K).w_rem(3), 1);
        assert_eq!(1f32.w_add(f32::MOD_K).w_rem(3.0), 1.0);
        assert_eq!(1f64.w_add(f64::MOD_K).w_rem(3.0), 1.0);
    }

    #[test]
    fn a_wrong_chain_value_fails() {
        let c = Chain::<i32> {
            x: 7,
            b: 0,
            done: 1,
        };
        assert!(expect_start(&c, "x").is_err());
    }

    #[test]
    fn there_are_85_rows() {
        let rows = rows();
        assert_eq!(rows.len(), 85);
        assert_eq!(STATEMENTS.len() * TYPES.len(), 85);
        // The report's table has a cell for every row, and every cell is a row.
        for ty in TYPES {
            for s in STATEMENTS {
                let id = format!("cpu.stmt.{ty}.{s}");
                assert!(rows.iter().any(|r| r.id() == id), "{id} is not a row");
            }
        }
    }
}
