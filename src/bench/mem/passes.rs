//! The passes over a buffer that `mem` times, written as lmbench's bw_mem writes them so
//! that the two measure the same instructions.
//!
//! # Timing model
//! A buffer is an array of 32-bit words. `rd`, `wr` and `cp` touch one word in four (one
//! per 16 bytes, four per 64-byte line), 32 words to a 512-byte block unrolled by hand,
//! as bw_mem's `rd`, `wr` and `cp` do; each access is a volatile load or store, so the
//! compiler can neither drop a pass whose result is unused nor turn the loads into
//! vector loads of every word (which would read four times the bytes in cache and make
//! the in-cache figures another program's). Every byte of the buffer is counted as
//! moved, as bw_mem counts it: past the caches every line is fetched whole, so the count
//! is the memory traffic; inside L1 it is the rate of one load per 16 bytes. `bzero` is
//! the C library's `memset` of the whole buffer (bw_mem calls `bzero`, the same code).

use std::hint::black_box;

/// Words per unrolled block: 128 words = 512 bytes, 32 of them touched.
pub const BLOCK_WORDS: usize = 128;

/// The kinds of pass, as bw_mem names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Rd,
    Wr,
    Cp,
    Bzero,
}

impl Op {
    pub fn name(self) -> &'static str {
        match self {
            Op::Rd => "rd",
            Op::Wr => "wr",
            Op::Cp => "cp",
            Op::Bzero => "bzero",
        }
    }

    /// What one pass does, for the row's details.
    pub fn loop_desc(self) -> &'static str {
        match self {
            Op::Rd => "sum of one volatile 32-bit load per 16 bytes, 32 per 512-byte block (bw_mem rd)",
            Op::Wr => "one volatile 32-bit store per 16 bytes, 32 per 512-byte block (bw_mem wr)",
            Op::Cp => "one volatile 32-bit load and store per 16 bytes from one buffer to another, 32 per block (bw_mem cp)",
            Op::Bzero => "the C library's memset of the whole buffer to zero (bw_mem bzero)",
        }
    }

    /// Whether the pass needs a second buffer (the copy's destination).
    pub fn needs_destination(self) -> bool {
        self == Op::Cp
    }
}

/// One pass of `op` over `src` (and `dst` for a copy); returns the read sum for `rd`.
#[inline(never)]
pub fn pass(op: Op, src: &mut [u32], dst: &mut [u32]) -> u32 {
    match op {
        Op::Rd => read(src),
        Op::Wr => {
            write(src, 1);
            0
        }
        Op::Cp => {
            copy(src, dst);
            0
        }
        Op::Bzero => {
            zero(src);
            0
        }
    }
}

macro_rules! every_fourth {
    ($f:expr) => {
        $f(0);
        $f(4);
        $f(8);
        $f(12);
        $f(16);
        $f(20);
        $f(24);
        $f(28);
        $f(32);
        $f(36);
        $f(40);
        $f(44);
        $f(48);
        $f(52);
        $f(56);
        $f(60);
        $f(64);
        $f(68);
        $f(72);
        $f(76);
        $f(80);
        $f(84);
        $f(88);
        $f(92);
        $f(96);
        $f(100);
        $f(104);
        $f(108);
        $f(112);
        $f(116);
        $f(120);
        $f(124);
    };
}

fn read(buf: &[u32]) -> u32 {
    let mut sum = 0u32;
    for block in buf.chunks_exact(BLOCK_WORDS) {
        let p = block.as_ptr();
        // SAFETY: every offset is below BLOCK_WORDS, inside `block`.
        every_fourth!(|i: usize| sum = sum.wrapping_add(unsafe { p.add(i).read_volatile() }));
    }
    black_box(sum)
}

fn write(buf: &mut [u32], value: u32) {
    for block in buf.chunks_exact_mut(BLOCK_WORDS) {
        let p = block.as_mut_ptr();
        // SAFETY: every offset is below BLOCK_WORDS, inside `block`.
        every_fourth!(|i: usize| unsafe { p.add(i).write_volatile(value) });
    }
}

fn copy(src: &[u32], dst: &mut [u32]) {
    for (s, d) in src
        .chunks_exact(BLOCK_WORDS)
        .zip(dst.chunks_exact_mut(BLOCK_WORDS))
    {
        let (s, d) = (s.as_ptr(), d.as_mut_ptr());
        // SAFETY: every offset is below BLOCK_WORDS, inside both blocks.
        every_fourth!(|i: usize| unsafe { d.add(i).write_volatile(s.add(i).read_volatile()) });
    }
}

fn zero(buf: &mut [u32]) {
    // SAFETY: the slice's own pointer and length.
    unsafe { libc::memset(buf.as_mut_ptr().cast(), 0, std::mem::size_of_val(buf)) };
    black_box(buf);
}

/// Whether the last pass of `op` left the buffers as it should: the words it wrote hold
/// what it wrote (`wr`: 1, `cp`: the source's word, `bzero`: every word 0). `rd` writes
/// nothing and is always right.
pub fn check(op: Op, src: &[u32], dst: &[u32]) -> Result<(), String> {
    let bad = match op {
        Op::Rd => None,
        Op::Wr => src.iter().step_by(4).position(|&w| w != 1).map(|i| i * 4),
        Op::Cp => src
            .iter()
            .zip(dst)
            .step_by(4)
            .position(|(s, d)| s != d)
            .map(|i| i * 4),
        Op::Bzero => src.iter().position(|&w| w != 0),
    };
    match bad {
        None => Ok(()),
        Some(i) => Err(format!(
            "mem {}: word {i} of the buffer does not hold what the pass wrote",
            op.name()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(words: usize) -> Vec<u32> {
        (0..words as u32)
            .map(|i| i.wrapping_mul(2654435761))
            .collect()
    }

    #[test]
    fn read_sums_one_word_in_four() {
        let mut b = buffer(4 * BLOCK_WORDS);
        let want = b.iter().step_by(4).fold(0u32, |s, &w| s.wrapping_add(w));
        assert_eq!(pass(Op::Rd, &mut b, &mut []), want);
    }

    #[test]
    fn write_copy_and_zero_leave_what_they_wrote() {
        let mut src = buffer(2 * BLOCK_WORDS);
        let mut dst = vec![0u32; src.len()];
        pass(Op::Cp, &mut src, &mut dst);
        check(Op::Cp, &src, &dst).unwrap();
        assert_eq!(dst[1], 0, "a copy touches one word in four only");
        pass(Op::Wr, &mut src, &mut dst);
        check(Op::Wr, &src, &dst).unwrap();
        pass(Op::Bzero, &mut src, &mut dst);
        check(Op::Bzero, &src, &dst).unwrap();
    }

    #[test]
    fn a_pass_not_done_is_caught() {
        let src = buffer(BLOCK_WORDS);
        let dst = vec![0u32; src.len()];
        assert!(check(Op::Wr, &src, &dst).is_err());
        assert!(check(Op::Cp, &src, &dst).is_err());
        let err = check(Op::Bzero, &src, &dst).unwrap_err();
        assert!(err.contains("bzero"), "{err}");
    }
}
