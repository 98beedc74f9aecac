//! Data files and what the page cache did with them: O_DIRECT where the file system
//! allows it, the page cache otherwise, and a plain statement of which one happened.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::ops::{Deref, DerefMut};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::harness::{interrupt, interrupt::Interrupted, sysinfo};
use crate::model::details::io;
use crate::model::WorkDir;

/// Alignment of every I/O buffer: enough for O_DIRECT on any device we will meet.
pub const ALIGN: usize = 4096;

/// What a row asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// The device: O_DIRECT, the file's cached pages dropped first.
    Bypass,
    /// The page cache, warm.
    PageCache,
}

/// What a row got, recorded in its details and its notes.
#[derive(Debug, Clone)]
pub struct CacheUse {
    pub want: Want,
    /// The file was opened with O_DIRECT.
    pub direct: bool,
    /// Why O_DIRECT was not used although asked for (the kernel's refusal).
    pub refused: Option<String>,
    /// Whether it fsyncs, and how often.
    pub fsync: &'static str,
    pub workdir: WorkDir,
}

impl CacheUse {
    /// True when the figure is a device's: O_DIRECT on a file system with a device.
    pub fn bypassed(&self) -> bool {
        self.direct && !self.workdir.memory_backed
    }

    /// Which cached pages were dropped before sampling.
    pub fn dropped(&self) -> &'static str {
        match (self.want, self.direct) {
            (Want::PageCache, _) => "none (warm on purpose)",
            (Want::Bypass, true) => "this file's (fadvise DONTNEED); O_DIRECT reads skip the cache",
            (Want::Bypass, false) if self.workdir.memory_backed => "none (nothing to drop)",
            (Want::Bypass, false) if is_root() => {
                "this file's, then the machine's clean page cache (drop_caches, as root)"
            }
            (Want::Bypass, false) => {
                "this file's (fadvise DONTNEED); not root: drop_caches not used"
            }
        }
    }

    /// One line saying what the figure went through.
    pub fn describe(&self) -> String {
        let fs = &self.workdir.fs_type;
        match (self.want, self.direct, &self.refused) {
            (Want::PageCache, _, _) => "page cache (warm file, no O_DIRECT)".to_string(),
            (Want::Bypass, true, _) if self.workdir.memory_backed => {
                format!("{fs}: O_DIRECT accepted, nothing to bypass (memory is the device)")
            }
            (Want::Bypass, true, _) => "page cache bypassed (O_DIRECT)".to_string(),
            (Want::Bypass, false, refused) => {
                let why = refused.as_deref().unwrap_or("not available");
                if self.workdir.memory_backed {
                    format!(
                        "page cache: O_DIRECT refused by {fs} ({why}); memory is the device here"
                    )
                } else {
                    format!("page cache: O_DIRECT refused by {fs} ({why})")
                }
            }
        }
    }

    /// The row's record of what it measured through.
    pub fn record(&self) -> io::CacheUse {
        io::CacheUse {
            through: io::Through {
                cache: self.describe(),
                fsync: Some(self.fsync.to_string()),
            },
            bypassed: self.bypassed(),
            o_direct: if self.direct {
                "used".to_string()
            } else {
                self.refused
                    .clone()
                    .map_or("not asked".to_string(), |r| format!("refused: {r}"))
            },
            caches_dropped: self.dropped().to_string(),
            fs_type: self.workdir.fs_type.clone(),
            device: self.workdir.device.clone(),
            memory_backed: self.workdir.memory_backed,
        }
    }

    /// The note for the main table: the cache line and the fsync policy.
    pub fn note(&self) -> String {
        format!("{}; fsync: {}", self.describe(), self.fsync)
    }
}

/// A zeroed, page-aligned buffer, as O_DIRECT needs.
pub struct AlignedBuf {
    ptr: *mut u8,
    len: usize,
}

impl AlignedBuf {
    pub fn new(len: usize) -> AlignedBuf {
        assert!(len > 0);
        let layout = Layout::from_size_align(len, ALIGN).expect("valid layout");
        // SAFETY: layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        assert!(!ptr.is_null(), "out of memory for a {len}-byte buffer");
        AlignedBuf { ptr, len }
    }
}

impl Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: ptr is valid for len bytes for the buffer's life.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self is unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        let layout = Layout::from_size_align(self.len, ALIGN).expect("valid layout");
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.ptr, layout) }
    }
}

// SAFETY: the buffer owns its memory exclusively.
unsafe impl Send for AlignedBuf {}

/// The stamp written at the start of each block: block index and a file tag, so that a
/// read of the wrong block, or of nothing, is caught.
pub fn stamp(buf: &mut [u8], tag: u64, block: u64) {
    buf[..8].copy_from_slice(&(tag ^ block.wrapping_mul(0x9e37_79b9_7f4a_7c15)).to_le_bytes());
}

pub fn check_stamp(buf: &[u8], tag: u64, block: u64) -> Result<()> {
    let mut want = [0u8; 8];
    stamp(&mut want, tag, block);
    if buf[..8] != want {
        bail!("block {block} read back wrong: the data does not carry its stamp");
    }
    Ok(())
}

/// A data file in the scratch directory, removed on drop.
pub struct DataFile {
    pub file: File,
    pub path: PathBuf,
    pub blocks: u64,
    pub block: usize,
    pub tag: u64,
}

impl DataFile {
    /// Create `name` in `dir` (never an existing path: O_EXCL, O_NOFOLLOW), fill it with
    /// `blocks` stamped blocks, sync it, then reopen it for the row as `want` asks.
    pub fn create(
        dir: &Path,
        name: &str,
        block: usize,
        blocks: u64,
        want: Want,
        fsync: &'static str,
    ) -> Result<(DataFile, CacheUse)> {
        let path = dir.join(name);
        let tag = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
        });
        let filler = OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        let mut guard = Removal(Some(path.clone()));
        let mut buf = AlignedBuf::new(block);
        for i in 0..blocks {
            if i % 64 == 0 && interrupt::requested() {
                return Err(Interrupted.into());
            }
            stamp(&mut buf, tag, i);
            filler
                .write_all_at(&buf, i * block as u64)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        filler
            .sync_data()
            .with_context(|| format!("cannot sync {}", path.display()))?;
        drop(filler);
        let (file, direct, refused) = reopen(&path, want)?;
        let mut cache = CacheUse {
            want,
            direct,
            refused,
            fsync,
            workdir: sysinfo::workdir_info(dir),
        };
        if want == Want::Bypass {
            drop_pages(&file);
            if !direct && !cache.workdir.memory_backed {
                drop_all_caches_if_root();
            }
        } else {
            cache.direct = false;
        }
        guard.0 = None;
        Ok((
            DataFile {
                file,
                path,
                blocks,
                block,
                tag,
            },
            cache,
        ))
    }

    /// Read block `i` into `buf` (one pread of `buf.len()` bytes) and check its stamp.
    pub fn read_block(&self, buf: &mut [u8], i: u64) -> Result<()> {
        let n = self.file.read_at(buf, i * self.block as u64)?;
        if n != buf.len() {
            bail!("short read of block {i}: {n} of {} bytes", buf.len());
        }
        check_stamp(buf, self.tag, i)
    }

    /// Write `buf` as block `i` (one pwrite), checking the count.
    pub fn write_block(&self, buf: &[u8], i: u64) -> Result<()> {
        let n = self
            .file
            .write_at(buf, i * self.block as u64)
            .map_err(|e| explain_write_error(e, buf.len()))?;
        if n != buf.len() {
            bail!("short write of block {i}: {n} of {} bytes", buf.len());
        }
        Ok(())
    }

    /// For requests smaller than a page: check that O_DIRECT takes a request of this
    /// file's block size (a device with 4 KiB logical blocks refuses 512 bytes with
    /// EINVAL); if not, go through the page cache and say why in `cache`.
    pub fn probe_direct_block(&mut self, cache: &mut CacheUse) -> Result<()> {
        if !cache.direct {
            return Ok(());
        }
        let mut buf = AlignedBuf::new(self.block);
        stamp(&mut buf, self.tag, 0);
        match self.file.write_at(&buf, 0) {
            Ok(_) => Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                self.file = reopen(&self.path, Want::PageCache)?.0;
                drop_pages(&self.file);
                if !cache.workdir.memory_backed {
                    drop_all_caches_if_root();
                }
                cache.direct = false;
                cache.refused = Some(format!(
                    "EINVAL for {}-byte requests: the device's logical block is larger",
                    self.block
                ));
                Ok(())
            }
            Err(e) => Err(explain_write_error(e, self.block)),
        }
    }

    pub fn bytes(&self) -> u64 {
        self.blocks * self.block as u64
    }
}

impl Drop for DataFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Removes a half-made file if setup fails.
struct Removal(Option<PathBuf>);
impl Drop for Removal {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn explain_write_error(e: std::io::Error, len: usize) -> anyhow::Error {
    match e.raw_os_error() {
        Some(libc::ENOSPC) => {
            anyhow::anyhow!("the file system is full (ENOSPC) writing {len} bytes")
        }
        Some(libc::EINVAL) => anyhow::anyhow!(
            "a {len}-byte O_DIRECT write was refused (EINVAL): the device's logical block is \
             larger than {len} bytes"
        ),
        _ => anyhow::anyhow!("write: {e}"),
    }
}

/// Open read-write, with O_DIRECT when asked; (file, direct used, why refused).
fn reopen(path: &Path, want: Want) -> Result<(File, bool, Option<String>)> {
    let open = |flags: i32| {
        OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | flags)
            .open(path)
    };
    if want == Want::Bypass {
        match open(libc::O_DIRECT) {
            Ok(f) => return Ok((f, true, None)),
            Err(e) if e.kind() == ErrorKind::InvalidInput => {
                let f = open(0).with_context(|| format!("cannot open {}", path.display()))?;
                return Ok((f, false, Some("EINVAL from open".into())));
            }
            Err(e) => return Err(e).with_context(|| format!("cannot open {}", path.display())),
        }
    }
    let f = open(0).with_context(|| format!("cannot open {}", path.display()))?;
    Ok((f, false, None))
}

fn is_root() -> bool {
    // SAFETY: no arguments.
    unsafe { libc::geteuid() == 0 }
}

/// Drop this file's clean cached pages (no privilege needed; the file was synced).
pub fn drop_pages(f: &File) {
    // SAFETY: plain advice on an open descriptor.
    unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
}

/// As root, drop the clean page cache of the whole machine: only used when O_DIRECT is
/// refused on a file system with a device, so that first reads still come from it.
fn drop_all_caches_if_root() {
    if is_root() {
        let _ = std::fs::write("/proc/sys/vm/drop_caches", "1");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_catches_the_wrong_block() {
        let mut b = vec![0u8; 64];
        stamp(&mut b, 42, 7);
        assert!(check_stamp(&b, 42, 7).is_ok());
        assert!(check_stamp(&b, 42, 8).is_err());
        assert!(check_stamp(&[0u8; 64], 42, 0).is_err());
    }

    #[test]
    fn a_data_file_is_written_read_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let (f, cache) =
            DataFile::create(dir.path(), "d", 4096, 8, Want::PageCache, "none").unwrap();
        assert!(!cache.direct);
        let mut buf = AlignedBuf::new(4096);
        f.read_block(&mut buf, 5).unwrap();
        assert!(f.read_block(&mut buf, 8).is_err(), "read past the end");
        let path = f.path.clone();
        drop(f);
        assert!(!path.exists());
    }

    #[test]
    fn an_existing_path_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("d"), b"keep").unwrap();
        assert!(DataFile::create(dir.path(), "d", 4096, 1, Want::PageCache, "none").is_err());
        assert_eq!(std::fs::read(dir.path().join("d")).unwrap(), b"keep");
    }
}
