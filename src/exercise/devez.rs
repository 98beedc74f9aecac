//! Seed 004's devez: "a separate tool … designed to exercise peripherals simultaneously
//! … one copy of it may be run concurrently with the benchmark" (Tuori, footnote 3). Here
//! one copy runs beside every batch of the exerciser (`exercise --devez`), on a target
//! timeshare makes itself and removes afterwards — never a device of the machine's:
//!
//! - `file` (the default): a scratch file in the exercise's scratch directory;
//! - `loop`: as root, a loop device attached over such a file (see [`super::loopdev`]);
//!   anyone else, or a machine without loop devices, has it skipped with the reason.
//!
//! It runs in passes for as long as the batch runs, and finishes the pass it is in (so
//! at least one, and every pass whole): write every block with its pattern, sync, read
//! every block back — with O_DIRECT, past the page cache, where the target allows it —
//! and check every byte. Each block carries its number, the pass and the batch's seed in
//! a header and a stream of bytes drawn from the three, so a block written to the wrong
//! place, one left from an earlier pass or another batch, and a flipped byte are each
//! found and told apart.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::loopdev;
use crate::harness::interrupt;
use crate::model::devez::{BlockError, Devez, DevezRun, KEPT_ERRORS};
use crate::model::unit::format_bytes;

/// One write and one read: a multiple of every logical block size O_DIRECT asks for.
pub const BLOCK: u64 = 64 << 10;
pub const DEFAULT_SIZE: u64 = 64 << 20;
/// Below a megabyte a pass is a handful of blocks; above 4 GiB the scratch file is no
/// longer a small thing to leave on someone's disk for the length of a run.
pub const MIN_SIZE: u64 = 1 << 20;
pub const MAX_SIZE: u64 = 4 << 30;

/// The block header: magic, seed, pass, block number.
const MAGIC: &[u8; 8] = b"TSDEVEZ1";
const HEADER: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Loop,
}

impl Kind {
    pub fn parse(s: &str) -> Result<Kind, String> {
        match s.trim() {
            "file" => Ok(Kind::File),
            "loop" => Ok(Kind::Loop),
            other => Err(format!(
                "--devez: `{other}` is not a target (file: a scratch file, the default; loop: a \
                 loop device over one, as root)"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Loop => "loop",
        }
    }
}

/// Called between each write pass and its read pass with the target's path and the pass:
/// the tests corrupt the target there, on the device itself, so that the verifier is
/// tested as it runs.
pub type Tamper = fn(&Path, u64);

/// What `--devez` asked for.
#[derive(Debug, Clone)]
pub struct Setup {
    pub kind: Kind,
    pub size: u64,
    pub tamper: Option<Tamper>,
}

/// `--devez-size`: within [`MIN_SIZE`, `MAX_SIZE`] and whole blocks.
pub fn check_size(size: u64) -> Result<u64, String> {
    if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
        return Err(format!(
            "--devez-size: {} is out of range (1M to 4G)",
            format_bytes(size)
        ));
    }
    if !size.is_multiple_of(BLOCK) {
        return Err(format!(
            "--devez-size: {size} bytes is not a whole number of 64K blocks"
        ));
    }
    Ok(size)
}

/// The target of a run, made once before the first batch and gone when dropped (a loop
/// device detached; the file goes with the scratch directory).
#[derive(Debug)]
pub enum Target {
    Ready(Device),
    Skipped { kind: Kind, reason: String },
}

#[derive(Debug)]
pub struct Device {
    kind: Kind,
    /// What is opened and written: the file, or the loop device.
    path: PathBuf,
    /// How the record names it.
    label: String,
    size: u64,
    tamper: Option<Tamper>,
    /// Declared last: dropped (detached) after everything that uses it.
    _attached: Option<loopdev::Attached>,
}

/// Make the target in the run's scratch directory `root`.
pub fn prepare(setup: &Setup, root: &Path, find_program: &dyn Fn(&str) -> bool) -> Result<Target> {
    match setup.kind {
        Kind::File => {
            let path = root.join("devez.scratch");
            make_file(&path, setup.size)?;
            Ok(Target::Ready(Device {
                kind: Kind::File,
                label: "devez.scratch".into(),
                path,
                size: setup.size,
                tamper: setup.tamper,
                _attached: None,
            }))
        }
        Kind::Loop => {
            // SAFETY: geteuid has no arguments and cannot fail.
            let euid = unsafe { libc::geteuid() };
            if let Some(reason) = loopdev::unavailable(euid, find_program) {
                return Ok(Target::Skipped {
                    kind: Kind::Loop,
                    reason,
                });
            }
            let backing = root.join("devez.backing");
            make_file(&backing, setup.size)?;
            match loopdev::Attached::over(&backing) {
                Ok(attached) => Ok(Target::Ready(Device {
                    kind: Kind::Loop,
                    label: format!("{} over devez.backing", attached.device().display()),
                    path: attached.device().to_path_buf(),
                    size: setup.size,
                    tamper: setup.tamper,
                    _attached: Some(attached),
                })),
                Err(reason) => {
                    std::fs::remove_file(&backing).ok();
                    Ok(Target::Skipped {
                        kind: Kind::Loop,
                        reason: format!("no loop device here: {reason}"),
                    })
                }
            }
        }
    }
}

fn make_file(path: &Path, size: u64) -> Result<()> {
    let f = File::create(path).with_context(|| format!("cannot make {}", path.display()))?;
    f.set_len(size)
        .with_context(|| format!("cannot size {} to {size} bytes", path.display()))
}

impl Target {
    /// One line for the progress messages.
    pub fn describe(&self) -> String {
        match self {
            Target::Ready(d) => format!(
                "devez on {} ({}, {} in {} blocks)",
                d.label,
                d.kind.name(),
                format_bytes(d.size),
                format_bytes(BLOCK)
            ),
            Target::Skipped { kind, reason } => {
                format!("devez ({}) skipped: {reason}", kind.name())
            }
        }
    }

    /// The record of a batch the target could not run beside.
    pub fn skipped(&self) -> Option<Devez> {
        match self {
            Target::Skipped { kind, reason } => Some(Devez::Skipped {
                target: kind.name().into(),
                reason: reason.clone(),
            }),
            Target::Ready(_) => None,
        }
    }
}

/// A new seed for each batch, so that a block left from an earlier batch is told apart.
pub fn new_seed(batch: usize) -> u32 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    mix(
        u64::from(nanos) ^ (u64::from(std::process::id()) << 32),
        batch as u64,
        0,
    ) as u32
}

/// Why a pass stopped before its end.
struct Stop(String);

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Stop {
        Stop(format!("I/O error: {e}"))
    }
}

/// What stops a pass between two blocks: an interrupt, or the batch's timeout.
struct Limits {
    started: Instant,
    timeout: Duration,
}

impl Limits {
    fn check(&self) -> Result<(), Stop> {
        if interrupt::requested() {
            return Err(Stop("interrupted".into()));
        }
        if self.started.elapsed() > self.timeout {
            return Err(Stop(format!(
                "still running after {} s (--timeout)",
                self.timeout.as_secs()
            )));
        }
        Ok(())
    }
}

impl Device {
    /// Run passes until `stop` is set (the batch is over), finishing the pass in progress;
    /// an I/O error, the timeout or an interrupt ends it at once and is recorded.
    pub fn exercise(&self, seed: u32, stop: &AtomicBool, timeout: Duration) -> DevezRun {
        let mut record = self.record(seed);
        let limits = Limits {
            started: Instant::now(),
            timeout,
        };
        let file = match self.open(&mut record) {
            Ok(f) => f,
            Err(e) => {
                record.stopped_by = Some(format!("cannot open {}: {e}", self.path.display()));
                return record;
            }
        };
        let mut buf = Aligned::new(BLOCK as usize);
        let mut expected = vec![0u8; BLOCK as usize];
        loop {
            let pass = record.passes + 1;
            let done = self
                .write_pass(&file, seed, pass, buf.bytes(), &limits, &mut record)
                .and_then(|()| {
                    if let Some(tamper) = self.tamper {
                        tamper(&self.path, pass);
                    }
                    self.read_pass(
                        &file,
                        seed,
                        pass,
                        &mut buf,
                        &mut expected,
                        &limits,
                        &mut record,
                    )
                });
            if let Err(Stop(why)) = done {
                record.stopped_by = Some(why);
                return record;
            }
            record.passes = pass;
            if stop.load(Ordering::Relaxed) {
                return record;
            }
        }
    }

    /// An empty record of this target.
    fn record(&self, seed: u32) -> DevezRun {
        DevezRun {
            target: self.kind.name().into(),
            device: self.label.clone(),
            size_bytes: self.size,
            block_bytes: BLOCK,
            seed,
            direct: false,
            cache_note: None,
            passes: 0,
            bytes_written: 0,
            bytes_read: 0,
            write_s: 0.0,
            read_s: 0.0,
            verify_errors: 0,
            errors: Vec::new(),
            stopped_by: None,
        }
    }

    /// The target opened for reading and writing, with O_DIRECT when it allows it; the
    /// record says which and why not.
    fn open(&self, record: &mut DevezRun) -> std::io::Result<File> {
        let open = |flags: i32| {
            OpenOptions::new()
                .read(true)
                .write(true)
                .custom_flags(flags)
                .open(&self.path)
        };
        match open(libc::O_DIRECT) {
            Ok(f) => {
                record.direct = true;
                if on_tmpfs(&f) {
                    record.cache_note = Some(
                        "the target is on tmpfs, whose storage is memory: O_DIRECT reads \
                         come from there, and no device is exercised"
                            .into(),
                    );
                }
                Ok(f)
            }
            Err(e) => {
                let f = open(0)?;
                record.cache_note = Some(format!(
                    "O_DIRECT refused ({e}): each pass is read back after fdatasync and \
                     POSIX_FADV_DONTNEED, which drops the clean cached pages where the file \
                     system allows it (tmpfs keeps them: they are its storage)"
                ));
                Ok(f)
            }
        }
    }

    fn blocks(&self) -> u64 {
        self.size / BLOCK
    }

    fn write_pass(
        &self,
        file: &File,
        seed: u32,
        pass: u64,
        buf: &mut [u8],
        limits: &Limits,
        record: &mut DevezRun,
    ) -> Result<(), Stop> {
        let started = Instant::now();
        let timed = |record: &mut DevezRun| record.write_s += started.elapsed().as_secs_f64();
        for block in 0..self.blocks() {
            if let Err(stop) = limits.check() {
                timed(record);
                return Err(stop);
            }
            fill(buf, seed, pass, block);
            file.write_all_at(buf, block * BLOCK)?;
            record.bytes_written += BLOCK;
        }
        file.sync_data()?;
        if !record.direct {
            drop_cached(file);
        }
        timed(record);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn read_pass(
        &self,
        file: &File,
        seed: u32,
        pass: u64,
        buf: &mut Aligned,
        expected: &mut [u8],
        limits: &Limits,
        record: &mut DevezRun,
    ) -> Result<(), Stop> {
        let started = Instant::now();
        let mut result = Ok(());
        for block in 0..self.blocks() {
            if let Err(stop) = limits.check() {
                result = Err(stop);
                break;
            }
            if let Err(e) = file.read_exact_at(buf.bytes(), block * BLOCK) {
                result = Err(e.into());
                break;
            }
            record.bytes_read += BLOCK;
            fill(expected, seed, pass, block);
            if let Some(e) = verify(buf.bytes(), expected, seed, pass, block) {
                record.verify_errors += 1;
                if record.errors.len() < KEPT_ERRORS {
                    record.errors.push(e);
                }
            }
        }
        record.read_s += started.elapsed().as_secs_f64();
        result
    }
}

/// Whether the file lies on tmpfs (since Linux 6.6 it takes O_DIRECT, but its pages are
/// its storage: past the page cache there is no device).
fn on_tmpfs(file: &File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: fstatfs fills the zeroed struct we own, from our own open descriptor.
    unsafe {
        let mut st: libc::statfs = std::mem::zeroed();
        libc::fstatfs(file.as_raw_fd(), &mut st) == 0 && st.f_type == libc::TMPFS_MAGIC
    }
}

/// Without O_DIRECT: ask the kernel to drop the file's clean cached pages, so that the
/// read pass goes to the device where the file system lets it.
fn drop_cached(file: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: an advice on our own open descriptor; no memory is involved.
    unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
}

/// A buffer aligned for O_DIRECT (4096 covers every logical block size in use).
struct Aligned {
    raw: Vec<u8>,
    start: usize,
    len: usize,
}

impl Aligned {
    const ALIGN: usize = 4096;

    fn new(len: usize) -> Aligned {
        let raw = vec![0u8; len + Self::ALIGN];
        let start = raw.as_ptr().align_offset(Self::ALIGN);
        Aligned { raw, start, len }
    }

    fn bytes(&mut self) -> &mut [u8] {
        &mut self.raw[self.start..self.start + self.len]
    }
}

/// splitmix64's finaliser over the three: a block's stream differs with each of them.
fn mix(seed: u64, pass: u64, block: u64) -> u64 {
    let mut z = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(pass.wrapping_mul(0xBF58_476D_1CE4_E5B9))
        .wrapping_add(block.wrapping_mul(0x94D0_49BB_1331_11EB))
        .wrapping_add(0x2545_F491_4F6C_DD1D);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) | 1
}

/// A block's contents: the header, then an xorshift64 stream seeded from seed, pass and
/// block number.
fn fill(buf: &mut [u8], seed: u32, pass: u64, block: u64) {
    buf[..8].copy_from_slice(MAGIC);
    buf[8..16].copy_from_slice(&u64::from(seed).to_le_bytes());
    buf[16..24].copy_from_slice(&pass.to_le_bytes());
    buf[24..32].copy_from_slice(&block.to_le_bytes());
    let mut x = mix(u64::from(seed), pass, block);
    for word in buf[HEADER..].chunks_exact_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        word.copy_from_slice(&x.to_le_bytes());
    }
}

/// The header a block read back carries, when it carries one: (seed, pass, block).
fn header_of(buf: &[u8]) -> Option<(u64, u64, u64)> {
    if &buf[..8] != MAGIC {
        return None;
    }
    let word = |at: usize| u64::from_le_bytes(buf[at..at + 8].try_into().expect("8 bytes"));
    Some((word(8), word(16), word(24)))
}

/// `None` when the block read back is `expected`; otherwise where it differs and what it
/// holds instead.
fn verify(actual: &[u8], expected: &[u8], seed: u32, pass: u64, block: u64) -> Option<BlockError> {
    let first = actual.iter().zip(expected).position(|(a, e)| a != e)?;
    let bad = actual.iter().zip(expected).filter(|(a, e)| a != e).count();
    let holds = match header_of(actual) {
        Some((s, _, _)) if s != u64::from(seed) => {
            format!("data of another batch or run (seed {s})")
        }
        Some((_, p, b)) if p == pass && b != block => {
            format!("block {b}'s data of this pass (misplaced)")
        }
        Some((_, p, b)) if p != pass && b == block => {
            format!("its own data of pass {p} (stale)")
        }
        Some((_, p, b)) if p != pass => {
            format!("block {b}'s data of pass {p} (misplaced and stale)")
        }
        Some(_) => "different bytes (its header is intact)".into(),
        None => "different bytes".into(),
    };
    Some(BlockError {
        pass,
        block,
        offset: block * BLOCK,
        first_bad_byte: first as u64,
        bad_bytes: bad as u64,
        holds,
    })
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use std::io::{Seek, SeekFrom, Write};

    const SIZE: u64 = MIN_SIZE;

    fn device(dir: &Path, tamper: Option<Tamper>) -> Device {
        let setup = Setup {
            kind: Kind::File,
            size: SIZE,
            tamper,
        };
        match prepare(&setup, dir, &|_| true).unwrap() {
            Target::Ready(d) => d,
            other => panic!("{other:?}"),
        }
    }

    /// Write `bytes` at `offset` of the target through an ordinary descriptor, synced, as
    /// a faulty device or a stray writer would.
    pub fn write_at(path: &Path, offset: u64, bytes: &[u8]) {
        let mut f = OpenOptions::new().write(true).open(path).unwrap();
        f.seek(SeekFrom::Start(offset)).unwrap();
        f.write_all(bytes).unwrap();
        f.sync_all().unwrap();
    }

    /// Invert `len` bytes at `offset` of the target: unlike writing fixed bytes, which
    /// may happen to equal the pattern there, every one of them then differs.
    pub fn flip_at(path: &Path, offset: u64, len: usize) {
        let f = File::open(path).unwrap();
        let mut bytes = vec![0u8; len];
        f.read_exact_at(&mut bytes, offset).unwrap();
        bytes.iter_mut().for_each(|b| *b = !*b);
        write_at(path, offset, &bytes);
    }

    fn read_block(path: &Path, block: u64) -> Vec<u8> {
        let f = File::open(path).unwrap();
        let mut buf = vec![0u8; BLOCK as usize];
        f.read_exact_at(&mut buf, block * BLOCK).unwrap();
        buf
    }

    fn run(tamper: Option<Tamper>) -> DevezRun {
        let dir = tempfile::tempdir().unwrap();
        let d = device(dir.path(), tamper);
        // Set: one pass, then stop.
        let stop = AtomicBool::new(true);
        d.exercise(7, &stop, Duration::from_secs(300))
    }

    #[test]
    fn a_clean_pass_writes_and_reads_every_block_and_finds_nothing() {
        let r = run(None);
        assert_eq!((r.passes, r.verify_errors), (1, 0), "{r:?}");
        assert_eq!((r.bytes_written, r.bytes_read), (SIZE, SIZE));
        assert!(r.stopped_by.is_none() && !r.failed());
        assert!(r.direct || r.cache_note.is_some(), "says how it read back");
    }

    #[test]
    fn a_flipped_byte_on_the_target_is_caught_with_its_block_and_offset() {
        fn flip(path: &Path, _pass: u64) {
            let at = 3 * BLOCK + 1000;
            let mut b = read_block(path, 3);
            b[1000] ^= 0x40;
            write_at(path, at, &b[1000..1001]);
        }
        let r = run(Some(flip));
        assert_eq!(r.verify_errors, 1, "{r:?}");
        let e = &r.errors[0];
        assert_eq!((e.pass, e.block, e.offset), (1, 3, 3 * BLOCK));
        assert_eq!((e.first_bad_byte, e.bad_bytes), (1000, 1));
        assert_eq!(e.holds, "different bytes (its header is intact)");
        assert!(r.failed());
    }

    #[test]
    fn a_misplaced_block_is_told_from_a_flipped_byte() {
        fn misplace(path: &Path, _pass: u64) {
            write_at(path, 5 * BLOCK, &read_block(path, 2));
        }
        let r = run(Some(misplace));
        assert_eq!(r.verify_errors, 1, "{r:?}");
        assert_eq!(r.errors[0].block, 5);
        assert_eq!(r.errors[0].holds, "block 2's data of this pass (misplaced)");
    }

    /// A block that kept the previous pass's data (its write in this pass was lost) is
    /// stale, not merely different: pass 1 written, pass 2 written, block 4 put back as
    /// pass 1 left it, pass 2 read back.
    #[test]
    fn a_stale_block_from_the_previous_pass_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let d = device(dir.path(), None);
        let mut record = d.record(7);
        let file = d.open(&mut record).unwrap();
        let limits = Limits {
            started: Instant::now(),
            timeout: Duration::from_secs(300),
        };
        let mut buf = Aligned::new(BLOCK as usize);
        let mut expected = vec![0u8; BLOCK as usize];
        let write = |pass, buf: &mut Aligned, record: &mut DevezRun| {
            assert!(d
                .write_pass(&file, 7, pass, buf.bytes(), &limits, record)
                .is_ok());
        };
        write(1, &mut buf, &mut record);
        let pass_1 = read_block(&d.path, 4);
        write(2, &mut buf, &mut record);
        write_at(&d.path, 4 * BLOCK, &pass_1);
        assert!(d
            .read_pass(&file, 7, 2, &mut buf, &mut expected, &limits, &mut record)
            .is_ok());
        assert_eq!(record.verify_errors, 1, "{record:?}");
        assert_eq!(record.errors[0].block, 4);
        assert_eq!(record.errors[0].holds, "its own data of pass 1 (stale)");
    }

    #[test]
    fn sizes_out_of_range_or_not_whole_blocks_are_refused() {
        assert_eq!(check_size(64 << 20), Ok(64 << 20));
        for bad in [0, MIN_SIZE - BLOCK, MAX_SIZE + BLOCK, MIN_SIZE + 1] {
            assert!(check_size(bad).is_err(), "{bad}");
        }
        assert!(Kind::parse("tape").unwrap_err().contains("not a target"));
        let out = check_size(100 << 30).unwrap_err();
        assert_eq!(out, "--devez-size: 100 GiB is out of range (1M to 4G)");
        let out = check_size(1000).unwrap_err();
        assert_eq!(out, "--devez-size: 1000 B is out of range (1M to 4G)");
        assert_eq!(Kind::parse("loop"), Ok(Kind::Loop));
    }

    #[test]
    fn every_block_s_pattern_differs_by_seed_pass_and_block() {
        let mut a = vec![0u8; BLOCK as usize];
        let mut b = vec![0u8; BLOCK as usize];
        fill(&mut a, 1, 1, 1);
        for (s, p, k) in [(2, 1, 1), (1, 2, 1), (1, 1, 2)] {
            fill(&mut b, s, p, k);
            assert_ne!(a[HEADER..], b[HEADER..], "{s} {p} {k}");
        }
        assert_eq!(header_of(&a), Some((1, 1, 1)));
        assert!(verify(&a, &a, 1, 1, 1).is_none());
        let e = verify(&b, &a, 1, 1, 1).unwrap();
        assert_eq!(e.holds, "block 2's data of this pass (misplaced)");
    }
}
