//! The `io` rows. Each row without a suffix bypasses the page cache (O_DIRECT); each
//! `.cached` twin goes through it, on a warm file. Sizes are the seeds' where they give
//! them; where they do not, the choice is stated in the row's `about` and details.

use anyhow::Result;

use super::cache::{AlignedBuf, CacheUse, DataFile, Want};
use super::ops::{Op, OpWorkload};
use super::space::ensure_room;
use super::Rng;
use crate::harness::contract::{Benchmark, Ctx, Plan, Workload};
use crate::model::details::io;
use crate::model::{Metric, Mode, Source};

const TABLE5: Source = Source::seed("000", "Table 5: dd copies in 8192-word blocks, µs per word");
const KT5: Source = Source::seed("003", "§4 Kashtan kt5: write 2 MBytes to disk");
const KT6: Source = Source::seed("003", "§4 Kashtan kt6: 4000 random 512-byte writes");
const ZILOG_A: Source = Source::seed("003", "§5 Zilog disk test a: 1000 sequential writes");
const ZILOG_B: Source = Source::seed("003", "§5 Zilog disk test b: 1000 sequential reads");
const ZILOG_C: Source = Source::seed("003", "§5 Zilog disk test c: 1000 random reads");

/// dd's block: 8192 PDP-11 words of 16 bits.
pub const COPY_BLOCK: usize = 16 << 10;
const COPY_FILE: u64 = 16 << 20;
/// kt5's 2 MBytes, written in 64 KiB requests (the note does not give kt5's block).
pub const KT5_BYTES: u64 = 2 << 20;
pub const KT5_BLOCK: usize = 64 << 10;
/// kt6's half-KByte writes, at random within a 2 MiB file.
pub const KT6_BLOCK: usize = 512;
pub const KT6_WRITES: u64 = 4000;
/// The Zilog test: 1000 transfers of one 4 KiB block (the note gives no block size;
/// 4 KiB is today's page and file-system block), over a 1000-block file.
pub const ZILOG_BLOCK: usize = 4096;
pub const ZILOG_OPS: u64 = 1000;

const THROUGHPUT_NOTE: &str = "MB/s = 10^6 bytes per second";

pub fn rows() -> Vec<Benchmark> {
    vec![
        Benchmark::new(
            "io.copy",
            "copy a 16 MiB file in 16 KiB blocks (dd's 8192 words), page cache bypassed",
            TABLE5,
            |ctx| copy(ctx, Want::Bypass),
        )
        .with_metric(Metric::throughput(COPY_BLOCK as u64))
        .per(io::BYTE_COPIED),
        Benchmark::new(
            "io.copy.cached",
            "copy a 16 MiB file in 16 KiB blocks through the page cache (warm)",
            TABLE5,
            |ctx| copy(ctx, Want::PageCache),
        )
        .with_metric(Metric::throughput(COPY_BLOCK as u64)),
        Benchmark::new(
            "io.seqwrite",
            "write 2 MB sequentially in 64 KiB requests, O_DIRECT + fdatasync per 2 MB (kt5)",
            KT5,
            |ctx| seqwrite(ctx, Want::Bypass),
        )
        .with_metric(Metric::throughput(KT5_BYTES))
        .per("byte written to disk"),
        Benchmark::new(
            "io.seqwrite.cached",
            "write 2 MB sequentially in 64 KiB requests into the page cache, no fsync (kt5)",
            KT5,
            |ctx| seqwrite(ctx, Want::PageCache),
        )
        .with_metric(Metric::throughput(KT5_BYTES)),
        Benchmark::new(
            "io.randwrite",
            "4000 writes of 512 bytes at random offsets in a 2 MiB file, O_DIRECT (kt6)",
            KT6,
            |ctx| randwrite(ctx, Want::Bypass),
        )
        .with_plan(kt6_plan)
        .per("random 512-byte write"),
        Benchmark::new(
            "io.randwrite.cached",
            "4000 writes of 512 bytes at random offsets in a 2 MiB file, page cache (kt6)",
            KT6,
            |ctx| randwrite(ctx, Want::PageCache),
        )
        .with_plan(kt6_plan),
        Benchmark::new(
            "io.disk.seqwrite",
            "1000 sequential 4 KiB writes, O_DIRECT (Zilog disk test a)",
            ZILOG_A,
            |ctx| zilog(ctx, Want::Bypass, Access::SeqWrite),
        )
        .with_metric(Metric::throughput(ZILOG_BLOCK as u64))
        .with_plan(zilog_plan),
        Benchmark::new(
            "io.disk.seqwrite.cached",
            "1000 sequential 4 KiB writes through the page cache (Zilog disk test a)",
            ZILOG_A,
            |ctx| zilog(ctx, Want::PageCache, Access::SeqWrite),
        )
        .with_metric(Metric::throughput(ZILOG_BLOCK as u64))
        .with_plan(zilog_plan),
        Benchmark::new(
            "io.disk.seqread",
            "1000 sequential 4 KiB reads, O_DIRECT (Zilog disk test b)",
            ZILOG_B,
            |ctx| zilog(ctx, Want::Bypass, Access::SeqRead),
        )
        .with_metric(Metric::throughput(ZILOG_BLOCK as u64))
        .with_plan(zilog_plan),
        Benchmark::new(
            "io.disk.seqread.cached",
            "1000 sequential 4 KiB reads through the page cache, warm (Zilog disk test b)",
            ZILOG_B,
            |ctx| zilog(ctx, Want::PageCache, Access::SeqRead),
        )
        .with_metric(Metric::throughput(ZILOG_BLOCK as u64))
        .with_plan(zilog_plan),
        Benchmark::new(
            "io.disk.randread",
            "1000 random 4 KiB reads, O_DIRECT (Zilog disk test c)",
            ZILOG_C,
            |ctx| zilog(ctx, Want::Bypass, Access::RandRead),
        )
        .with_plan(zilog_plan),
        Benchmark::new(
            "io.disk.randread.cached",
            "1000 random 4 KiB reads through the page cache, warm (Zilog disk test c)",
            ZILOG_C,
            |ctx| zilog(ctx, Want::PageCache, Access::RandRead),
        )
        .with_plan(zilog_plan),
    ]
}

/// kt6 as the note ran it: 4000 writes per sample. No warm-up batch: the file is laid
/// out and synced (or, for `.cached`, resident) before sampling, and on a rotating disk
/// an extra 4000 random writes would cost half a minute.
fn kt6_plan(mode: Mode) -> Plan {
    Plan {
        warmup: false,
        ..Plan::fixed(KT6_WRITES, if mode == Mode::Quick { 3 } else { 7 })
    }
}

/// The Zilog test as the note ran it: 1000 transfers per sample; no warm-up, as for kt6.
fn zilog_plan(mode: Mode) -> Plan {
    Plan {
        warmup: false,
        ..Plan::fixed(ZILOG_OPS, if mode == Mode::Quick { 5 } else { 15 })
    }
}

// ---------------------------------------------------------------------------------------
// io.copy — 000 Table 5. One operation: read one 16 KiB block of the source, write it at
// the same offset of the destination; the blocks cycle through the 16 MiB files.
// 000's µs/word = the time per block / 8192 (the report's extra table shows it).

struct Copy {
    src: DataFile,
    dst: DataFile,
    buf: AlignedBuf,
    next: u64,
    copied: u64,
    cache: CacheUse,
}

fn copy(ctx: &Ctx, want: Want) -> Result<Box<dyn Workload>> {
    ensure_room(ctx.scratch, 2 * COPY_FILE)?;
    let blocks = COPY_FILE / COPY_BLOCK as u64;
    let (src, cache) = DataFile::create(ctx.scratch, "src", COPY_BLOCK, blocks, want, "none")?;
    let (dst, _) = DataFile::create(ctx.scratch, "dst", COPY_BLOCK, blocks, want, "none")?;
    Ok(OpWorkload::boxed(
        ctx,
        Copy {
            src,
            dst,
            buf: AlignedBuf::new(COPY_BLOCK),
            next: 0,
            copied: 0,
            cache,
        },
        0,
    ))
}

impl Op for Copy {
    fn op(&mut self) -> Result<()> {
        let i = self.next;
        self.src.read_block(&mut self.buf, i)?;
        self.dst.write_block(&self.buf, i)?;
        self.next = (i + 1) % self.src.blocks;
        self.copied += 1;
        Ok(())
    }

    /// Check that every block copied reached the destination: a copy that wrote nothing,
    /// or the wrong block, fails the row here.
    fn finish(&mut self) -> Result<()> {
        let written = self.copied.min(self.src.blocks);
        for i in 0..written {
            let n = std::os::unix::fs::FileExt::read_at(
                &self.dst.file,
                &mut self.buf,
                i * COPY_BLOCK as u64,
            )?;
            anyhow::ensure!(n == COPY_BLOCK, "short read of the copy's block {i}");
            super::cache::check_stamp(&self.buf, self.src.tag, i)
                .map_err(|e| anyhow::anyhow!("the copy is wrong: {e}"))?;
        }
        Ok(())
    }

    type Facts = io::Copy;
    fn facts(&mut self) -> Result<io::Copy> {
        Ok(io::Copy {
            cache: self.cache.record(),
            block_bytes: COPY_BLOCK,
            block_words_16bit: COPY_BLOCK / 2,
            file_bytes: self.src.bytes(),
            blocks_copied: self.copied,
            blocks_verified: self.copied.min(self.src.blocks),
            throughput: THROUGHPUT_NOTE.into(),
        })
    }

    fn notes(&self) -> Vec<String> {
        vec![self.cache.note()]
    }
}

// ---------------------------------------------------------------------------------------
// io.seqwrite — 003 kt5. One operation: 2 MiB written from offset 0 in 64 KiB requests,
// then (bypassed row only) fdatasync, so the device's write cache is flushed too.

struct SeqWrite {
    f: DataFile,
    buf: AlignedBuf,
    sync: bool,
    cache: CacheUse,
    passes: u64,
}

fn seqwrite(ctx: &Ctx, want: Want) -> Result<Box<dyn Workload>> {
    ensure_room(ctx.scratch, KT5_BYTES)?;
    let sync = want == Want::Bypass;
    let fsync = if sync {
        "fdatasync after each 2 MB"
    } else {
        "none"
    };
    let blocks = KT5_BYTES / KT5_BLOCK as u64;
    let (f, cache) = DataFile::create(ctx.scratch, "kt5", KT5_BLOCK, blocks, want, fsync)?;
    Ok(OpWorkload::boxed(
        ctx,
        SeqWrite {
            f,
            buf: AlignedBuf::new(KT5_BLOCK),
            sync,
            cache,
            passes: 0,
        },
        0,
    ))
}

impl Op for SeqWrite {
    fn op(&mut self) -> Result<()> {
        for i in 0..self.f.blocks {
            super::cache::stamp(&mut self.buf, self.f.tag, i);
            self.f.write_block(&self.buf, i)?;
        }
        if self.sync {
            self.f.file.sync_data()?;
        }
        self.passes += 1;
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        let mut buf = AlignedBuf::new(KT5_BLOCK);
        for i in 0..self.f.blocks {
            self.f.read_block(&mut buf, i)?;
        }
        Ok(())
    }

    type Facts = io::SeqWrite;
    fn facts(&mut self) -> Result<io::SeqWrite> {
        Ok(io::SeqWrite {
            cache: self.cache.record(),
            request_bytes: KT5_BLOCK,
            bytes_per_op: KT5_BYTES,
            passes: self.passes,
            throughput: THROUGHPUT_NOTE.into(),
        })
    }

    fn notes(&self) -> Vec<String> {
        vec![self.cache.note()]
    }
}

// ---------------------------------------------------------------------------------------
// io.randwrite — 003 kt6. One operation: one 512-byte pwrite at a random 512-aligned
// offset of a 2 MiB file; no fsync (kt6 did none; with O_DIRECT each write reaches the
// device, though perhaps only its write cache).

struct RandWrite {
    f: DataFile,
    buf: AlignedBuf,
    rng: Rng,
    cache: CacheUse,
}

fn randwrite(ctx: &Ctx, want: Want) -> Result<Box<dyn Workload>> {
    ensure_room(ctx.scratch, KT5_BYTES)?;
    let blocks = KT5_BYTES / KT6_BLOCK as u64;
    let (mut f, mut cache) = DataFile::create(ctx.scratch, "kt6", KT6_BLOCK, blocks, want, "none")?;
    f.probe_direct_block(&mut cache)?;
    Ok(OpWorkload::boxed(
        ctx,
        RandWrite {
            f,
            buf: AlignedBuf::new(KT6_BLOCK),
            rng: Rng::new(6),
            cache,
        },
        1000,
    ))
}

impl Op for RandWrite {
    fn op(&mut self) -> Result<()> {
        let i = self.rng.below(self.f.blocks);
        super::cache::stamp(&mut self.buf, self.f.tag, i);
        self.f.write_block(&self.buf, i)
    }

    fn finish(&mut self) -> Result<()> {
        let mut buf = AlignedBuf::new(KT6_BLOCK);
        for i in 0..self.f.blocks {
            self.f.read_block(&mut buf, i)?;
        }
        Ok(())
    }

    type Facts = io::RandWrite;
    fn facts(&mut self) -> Result<io::RandWrite> {
        Ok(io::RandWrite {
            cache: self.cache.record(),
            write_bytes: KT6_BLOCK,
            file_bytes: self.f.bytes(),
            writes_per_sample: KT6_WRITES,
        })
    }

    fn notes(&self) -> Vec<String> {
        vec![self.cache.note()]
    }
}

// ---------------------------------------------------------------------------------------
// io.disk.* — 003 Zilog disk test. One operation: one 4 KiB pwrite or pread (sequential
// ones cycle through the 1000-block file; random ones pick any block); every read checks
// the block's stamp. One sample is one of the note's 1000-transfer passes.

#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    SeqWrite,
    SeqRead,
    RandRead,
}

struct Zilog {
    f: DataFile,
    buf: AlignedBuf,
    access: Access,
    next: u64,
    rng: Rng,
    cache: CacheUse,
}

fn zilog(ctx: &Ctx, want: Want, access: Access) -> Result<Box<dyn Workload>> {
    ensure_room(ctx.scratch, ZILOG_OPS * ZILOG_BLOCK as u64)?;
    let (f, cache) = DataFile::create(ctx.scratch, "zilog", ZILOG_BLOCK, ZILOG_OPS, want, "none")?;
    let mut buf = AlignedBuf::new(ZILOG_BLOCK);
    if want == Want::PageCache {
        // Warm: every block in the page cache before sampling.
        for i in 0..f.blocks {
            f.read_block(&mut buf, i)?;
        }
    }
    let pass = if access == Access::RandRead {
        ZILOG_OPS
    } else {
        0
    };
    Ok(OpWorkload::boxed(
        ctx,
        Zilog {
            f,
            buf,
            access,
            next: 0,
            rng: Rng::new(1000),
            cache,
        },
        pass,
    ))
}

impl Op for Zilog {
    fn op(&mut self) -> Result<()> {
        match self.access {
            Access::SeqWrite => {
                let i = self.next;
                self.next = (i + 1) % self.f.blocks;
                super::cache::stamp(&mut self.buf, self.f.tag, i);
                self.f.write_block(&self.buf, i)
            }
            Access::SeqRead => {
                let i = self.next;
                self.next = (i + 1) % self.f.blocks;
                self.f.read_block(&mut self.buf, i)
            }
            Access::RandRead => {
                let i = self.rng.below(self.f.blocks);
                self.f.read_block(&mut self.buf, i)
            }
        }
    }

    fn finish(&mut self) -> Result<()> {
        for i in 0..self.f.blocks {
            self.f.read_block(&mut self.buf, i)?;
        }
        Ok(())
    }

    type Facts = io::Zilog;
    fn facts(&mut self) -> Result<io::Zilog> {
        Ok(io::Zilog {
            cache: self.cache.record(),
            block_bytes: ZILOG_BLOCK,
            file_bytes: self.f.bytes(),
            ops_per_sample: ZILOG_OPS,
        })
    }

    fn notes(&self) -> Vec<String> {
        vec![self.cache.note()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::micro::testing::with_kept_ctx;
    use std::os::unix::fs::FileExt;

    #[test]
    fn a_corrupted_copy_fails_its_check_and_every_file_goes() {
        let (w, dir) = with_kept_ctx(|ctx| copy(ctx, Want::PageCache));
        let mut w = w.unwrap();
        w.run(10).unwrap();
        w.finish().unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(dir.path().join("dst"))
            .unwrap()
            .write_all_at(&[0u8; 16], 3 * COPY_BLOCK as u64)
            .unwrap();
        let e = w.finish().unwrap_err();
        assert!(format!("{e:#}").contains("copy is wrong"), "{e:#}");
        drop(w);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    // That twice the reads take about twice the time is a timing claim, checked by
    // `timeshare selftest io.doubling`.
    #[test]
    fn details_say_what_the_cache_did() {
        let (w, _dir) = with_kept_ctx(|ctx| zilog(ctx, Want::PageCache, Access::RandRead));
        let mut w = w.unwrap();
        w.run(100).unwrap();
        let d: io::OpRecord<io::Zilog> = w.details().unwrap().read().unwrap();
        assert!(!d.facts.cache.bypassed);
        assert!(d.facts.cache.through.cache.starts_with("page cache"));
        let l = d.latency.unwrap();
        let l = l.measured().unwrap();
        assert!(l.p50_s <= l.p99_s);
        assert!(w.notes()[0].contains("fsync"));
    }
}
