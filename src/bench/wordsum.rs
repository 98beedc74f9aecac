//! lmbench's `bread`: the sum its programs make of the bytes they have just read
//! (`bw_file_rd` of each buffer, `bw_mmap_rd` of the mapping, `lat_ctx` of each
//! process's working set), done the same way here, so that a row set beside one of
//! them does the same work per byte.
//!
//! In Debian's lmbench 3.0-a9 binaries (`objdump -d` of `bw_file_rd` and `lat_ctx`)
//! `bread` is one chain of dependent scalar `add`s of 64-bit words from memory,
//! `add -0x3f8(%rdx),%rax` and so on, 128 to a KiB, no SIMD: one add a cycle, 8 bytes a
//! cycle. A plain Rust fold over the words is vectorised (two SSE2 accumulators over 32
//! bytes an iteration) and so sums the same bytes in a fraction of the time; beside a
//! 64 KiB `read` that fraction is part of what the tool times and the row would not. Here
//! each word is loaded with a volatile read, which the compiler may neither merge nor
//! vectorise; it compiles to the same `add (%rdi),%rax` chain (unrolled by 8 where bread
//! is by 128; the same work per word).

/// Sum every 64-bit word of `words` in one dependent chain of scalar adds, as bread does.
#[inline(never)]
pub fn bread(words: &[u64]) -> u64 {
    let mut sum = 0u64;
    for w in words {
        // SAFETY: a reference to a live, aligned word of the slice.
        sum = sum.wrapping_add(unsafe { std::ptr::read_volatile(w) });
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_is_summed_once_and_the_sum_wraps() {
        let words: Vec<u64> = (1..=1000).collect();
        assert_eq!(bread(&words), 500_500);
        // A tail shorter than a block and an empty slice.
        assert_eq!(bread(&words[..3]), 6);
        assert_eq!(bread(&[]), 0);
        assert_eq!(bread(&[u64::MAX, 2]), 1);
        // A changed word changes the sum: nothing is skipped.
        let mut other = words.clone();
        other[999] += 1;
        assert_eq!(bread(&other), 500_501);
    }
}
