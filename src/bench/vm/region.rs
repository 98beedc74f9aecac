//! A freshly mapped run of pages: anonymous (zero-fill on demand, like the seed's
//! `valloc`), or a shared mapping of a file, whose pages the kernel can write back and read
//! again when a memory limit squeezes them out (there may be no swap for anonymous pages).

use std::fs::File;
use std::os::fd::AsRawFd;

use anyhow::{bail, Result};

pub use crate::harness::sysinfo::page_size;

/// The seed's `vadvise` call, today's `madvise`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Advice {
    /// No advice (the default policy).
    Normal,
    /// `vadvise(VA_SEQL)` → `MADV_SEQUENTIAL` (seqpage -v).
    Sequential,
    /// `vadvise(VA_ANOM)` → `MADV_RANDOM` (randpage -v).
    Random,
}

impl Advice {
    pub fn name(self) -> &'static str {
        match self {
            Advice::Normal => "none",
            Advice::Sequential => "MADV_SEQUENTIAL",
            Advice::Random => "MADV_RANDOM",
        }
    }

    fn flag(self) -> Option<libc::c_int> {
        match self {
            Advice::Normal => None,
            Advice::Sequential => Some(libc::MADV_SEQUENTIAL),
            Advice::Random => Some(libc::MADV_RANDOM),
        }
    }
}

/// A mapping of `pages` pages, unmapped on drop.
pub struct Region {
    base: *mut u8,
    len: usize,
    page: usize,
}

impl Region {
    /// Map `pages` pages: anonymous when `file` is `None`, else a shared mapping of `file`
    /// (which must be at least that long). Transparent huge pages are refused, so that
    /// every page faults on its own as on the seed's VAX.
    pub fn map(pages: u64, file: Option<&File>, advice: Advice) -> Result<Region> {
        let page = page_size() as usize;
        let len = pages as usize * page;
        let (flags, fd) = match file {
            None => (libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1),
            Some(f) => (libc::MAP_SHARED, f.as_raw_fd()),
        };
        // SAFETY: a fresh mapping chosen by the kernel; checked for MAP_FAILED.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                flags,
                fd,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            bail!(
                "cannot map {pages} pages: {}",
                std::io::Error::last_os_error()
            );
        }
        let region = Region {
            base: base as *mut u8,
            len,
            page,
        };
        if file.is_none() {
            region.advise(libc::MADV_NOHUGEPAGE)?;
        }
        if let Some(flag) = advice.flag() {
            region.advise(flag)?;
        }
        Ok(region)
    }

    fn advise(&self, flag: libc::c_int) -> Result<()> {
        // SAFETY: the range is exactly our mapping.
        if unsafe { libc::madvise(self.base as *mut libc::c_void, self.len, flag) } != 0 {
            bail!("madvise({flag}): {}", std::io::Error::last_os_error());
        }
        Ok(())
    }

    /// The seed's `pages[pagesize * pn] = 1`.
    #[inline]
    pub fn touch(&self, page: u64) {
        let offset = page as usize * self.page;
        assert!(offset < self.len, "page {page} outside the mapping");
        // SAFETY: inside the mapping (checked); volatile so the store is really made.
        unsafe { std::ptr::write_volatile(self.base.add(offset), 1) }
    }

    /// Read the first byte of `page`.
    #[inline]
    pub fn read(&self, page: u64) -> u8 {
        let offset = page as usize * self.page;
        assert!(offset < self.len, "page {page} outside the mapping");
        // SAFETY: inside the mapping (checked); volatile so the load is really made.
        unsafe { std::ptr::read_volatile(self.base.add(offset)) }
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: unmapping exactly what `map` mapped.
        unsafe { libc::munmap(self.base as *mut libc::c_void, self.len) };
    }
}
