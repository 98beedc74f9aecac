//! A buffer that begins on a page boundary, as lmbench's (`valloc`) do, for the rows that
//! move bytes between the kernel and a buffer of their own (the net sweeps, the cached
//! file reads).
//!
//! Where a buffer begins within its page can halve such a row's figure. The allocator
//! puts a large Vec 16 bytes past a page when it takes it from a fresh mapping, and on
//! this machine (AMD EPYC, kernel 6.18) the kernel's copies to and from a buffer 16 bytes
//! past a page ran at about half the speed: a C program streaming 64 KiB writes over a
//! UNIX socket pair, pinned to one CPU, alternately, moved 1.5, 1.5, 0.9 and 0.9 GB/s
//! from and into buffers at a page + 16 bytes and 2.7, 2.9, 2.1 and 1.7 GB/s with
//! page-aligned ones; a C loop reading a cached 64 MiB file 64 KiB at a time (pinned,
//! under load, alternately) read 0.36–0.60 GB/s into a buffer at a page + 16 bytes and
//! 1.05–1.37 GB/s at the page's start, while 32, 48, 64, 128, 1,024, 2,048 and 4,080
//! bytes past it read as fast as the start. Most likely the copy's loads and stores then
//! fall 16 bytes apart within a 4 KiB window and the CPU takes each load for one that
//! depends on the store before it (4 KiB aliasing); that mechanism was not measured
//! separately. A row's buffer begins on a page so that its figure never depends on
//! where the allocator happened to put it.

/// `len` bytes beginning on a page boundary.
pub struct PageBuf {
    bytes: Vec<u8>,
    start: usize,
    len: usize,
}

impl PageBuf {
    pub const PAGE: usize = 4096;

    /// `len` bytes, each `fill`, beginning on a page.
    pub fn new(len: usize, fill: u8) -> PageBuf {
        let bytes = vec![fill; len + Self::PAGE];
        let start = bytes.as_ptr().align_offset(Self::PAGE);
        PageBuf { bytes, start, len }
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.bytes[self.start..self.start + self.len]
    }

    /// The first `bytes` bytes (rounded down to whole words) as 64-bit words.
    pub fn longs(&self, bytes: usize) -> &[u64] {
        let n = bytes.min(self.len) / 8;
        let head = self.bytes[self.start..].as_ptr();
        // SAFETY: `head` begins on a page, so it is aligned for u64, and the n words lie
        // inside the buffer, borrowed for as long as the slice is; every bit pattern is
        // a valid u64.
        unsafe { std::slice::from_raw_parts(head.cast::<u64>(), n) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_buffers_begin_on_a_page() {
        for len in [1, 4096, 64 << 10, 1 << 20] {
            let mut b = PageBuf::new(len, 7);
            let s = b.bytes_mut();
            assert_eq!(s.len(), len);
            assert_eq!(s.as_ptr() as usize % PageBuf::PAGE, 0);
            assert!(s.iter().all(|&x| x == 7));
        }
    }

    #[test]
    fn the_longs_are_the_bytes_read_as_words_and_never_past_the_end() {
        let mut b = PageBuf::new(20, 0);
        b.bytes_mut()[..16].copy_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0]);
        let w = b.longs(16);
        assert_eq!(
            w,
            [
                u64::from_ne_bytes([1, 0, 0, 0, 0, 0, 0, 0]),
                u64::from_ne_bytes([2, 0, 0, 0, 0, 0, 0, 0])
            ]
        );
        assert_eq!(b.longs(100).len(), 2, "20 bytes hold two whole words");
        assert_eq!(b.longs(15).len(), 1);
    }
}
