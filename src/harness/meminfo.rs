//! What `/proc/meminfo` says, read in this one place and parsed with procfs's parser (every
//! size in bytes).
//!
//! Rows size their arrays by it, the exerciser checks there is room for its copies, and the
//! environment records it; each reads the same figures through these functions.

use procfs::{FromBufRead, Meminfo};

const PATH: &str = "/proc/meminfo";

/// The file's text as it is now, for a reader that parses it beside other files read at
/// the same instant (`monitor`'s lines, [`crate::harness::observe::vmstat`]).
pub fn text() -> std::io::Result<String> {
    std::fs::read_to_string(PATH)
}

/// The machine's memory now, or `None` where `/proc/meminfo` cannot be read or parsed.
pub fn read() -> Option<Meminfo> {
    Meminfo::from_buf_read(text().ok()?.as_bytes()).ok()
}

/// MemTotal in bytes (0 when unreadable).
pub fn total_bytes() -> u64 {
    read().map_or(0, |m| m.mem_total)
}

/// SwapTotal in bytes (0 when unreadable).
pub fn swap_bytes() -> u64 {
    read().map_or(0, |m| m.swap_total)
}

/// MemAvailable in bytes: the kernel's estimate of what can be had without swapping
/// (`None` on kernels before 3.14 or when unreadable).
pub fn available_bytes() -> Option<u64> {
    read().and_then(|m| m.mem_available)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_figures_are_in_bytes_and_ordered() {
        let total = total_bytes();
        // Any machine that runs the tests has more than 64 MiB, which in KiB would read as
        // under 64 Ki: a figure left in KiB fails here.
        assert!(total > 64 << 20, "MemTotal {total}");
        let available = available_bytes().expect("MemAvailable on any kernel since 3.14");
        assert!(available <= total, "{available} of {total}");
    }
}
