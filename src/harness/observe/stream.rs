//! Kernel tracepoints of every CPU, read back in time order: the common reader of the call
//! mix ([`super::callmix`]) and the page-cache figures ([`super::caches`]).
//!
//! # Counting model
//! One sampling event per tracepoint and CPU, with a period of 1: every time the
//! tracepoint fires, the kernel writes one record (the thread, the time on
//! `CLOCK_MONOTONIC`, the tracepoint's raw fields) into a ring buffer. The events of one
//! CPU share that CPU's buffer (the first event's; the others are redirected into it with
//! `PERF_EVENT_IOC_SET_OUTPUT`), so a thread's records on one CPU stay in the order they
//! happened. A thread moves between CPUs — a call that sleeps may enter on one and return
//! on another — so the records of all buffers are merged by their time ([`Ordered`]): a
//! record is handed over only once every CPU's buffer has been read past its time (the
//! clock at the start of the read, less [`SLACK_NS`] for a record being written as it
//! was read). A record later than that is handed over late, out of order; the pairing
//! that reads the stream counts what it cannot pair rather than guessing.

use std::io;
use std::os::unix::io::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};

use perf_event::events::Tracepoint;
use perf_event::{Builder, Clock, Counter, SampleFlag, Sampler};

use crate::harness::clock;

/// `PERF_EVENT_IOC_SET_OUTPUT` (`_IO('$', 5)`): write this event's records into another
/// event's ring buffer (same CPU, same clock). The `libc` crate does not define it.
const PERF_EVENT_IOC_SET_OUTPUT: libc::c_ulong = 0x2405;

/// How late a record may be written after its time and still be handed over in order.
pub const SLACK_NS: u64 = 20_000_000;
/// The longest the reader sleeps between two reads when the buffers fill slowly: a
/// wake-up costs the observer tens of microseconds on a VM, so a quiet machine is read
/// four times a second, not a hundred. A buffer a quarter full wakes it at once.
pub const READ_EVERY: Duration = Duration::from_millis(250);

pub const RECORD_LOST: u32 = 2;
pub const RECORD_COMM: u32 = 3;
pub const RECORD_FORK: u32 = 7;
pub const RECORD_SAMPLE: u32 = 9;

/// The tracepoints of every CPU, one ring buffer per CPU.
pub struct TraceStream {
    buffers: Vec<Sampler>,
    /// The other events, writing into the buffers; kept open with them.
    followers: Vec<Counter>,
}

/// One record's place in time: a sample's (after its pid and tid), or the trailer's that
/// `sample_id_all` puts at the end of every other record.
pub fn record_time(ty: u32, bytes: &[u8]) -> Option<u64> {
    let at = if ty == RECORD_SAMPLE {
        8
    } else {
        bytes.len().checked_sub(8)?
    };
    Some(u64::from_ne_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

/// A sample's raw tracepoint fields (after pid, tid, time and the raw size).
pub fn sample_raw(bytes: &[u8]) -> &[u8] {
    let size = bytes
        .get(16..20)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u32::from_ne_bytes) as usize;
    bytes.get(20..20 + size).unwrap_or(&[])
}

impl TraceStream {
    /// Open `ids` (tracefs ids) on each of `cpus`, disabled, into one buffer of
    /// `buffer_bytes` per CPU. `tasks`: also the kernel's fork and comm records (every
    /// process's birth and name), for naming the callers.
    pub fn open(ids: &[u64], cpus: &[usize], buffer_bytes: usize, tasks: bool) -> io::Result<Self> {
        let mut buffers = Vec::new();
        let mut followers = Vec::new();
        for &cpu in cpus {
            let event = |id: u64, first: bool| {
                let mut b = Builder::new(Tracepoint::with_id(id));
                if first {
                    // The buffer's owner wakes its reader when a quarter of it is
                    // written, so that a burst is read long before the buffer is full,
                    // however long the reader otherwise sleeps (READ_EVERY).
                    b.wakeup_watermark(buffer_bytes / 4);
                }
                b.any_pid()
                    .one_cpu(cpu)
                    // A tracepoint fires in the kernel, which the builder leaves out by default.
                    .exclude_kernel(false)
                    .sample_period(1)
                    .sample(SampleFlag::TID | SampleFlag::TIME | SampleFlag::RAW)
                    .clockid(Clock::MONOTONIC)
                    .sample_id_all(true)
                    .task(tasks && first)
                    .comm(tasks && first)
                    .enabled(false)
                    .build()
            };
            let Some((&first, rest)) = ids.split_first() else {
                break;
            };
            let buffer = event(first, true)?.sampled(buffer_bytes)?;
            for &id in rest {
                let follower = event(id, false)?;
                // SAFETY: both are open perf event descriptors of this process.
                let r = unsafe {
                    libc::ioctl(
                        follower.as_raw_fd(),
                        PERF_EVENT_IOC_SET_OUTPUT,
                        buffer.as_raw_fd(),
                    )
                };
                if r != 0 {
                    return Err(io::Error::last_os_error());
                }
                followers.push(follower);
            }
            buffers.push(buffer);
        }
        Ok(TraceStream { buffers, followers })
    }

    /// Switch every event on (or off).
    pub fn switch(&mut self, on: bool) -> io::Result<()> {
        let all = self
            .buffers
            .iter_mut()
            .map(|b| b.as_counter_mut())
            .chain(self.followers.iter_mut());
        for c in all {
            if on {
                c.enable()?
            } else {
                c.disable()?
            }
        }
        Ok(())
    }

    /// Sleep until a buffer is a quarter full, a signal comes, or `most` has passed.
    pub fn wait(&self, most: Duration) {
        let fds: Vec<_> = self.buffers.iter().map(AsRawFd::as_raw_fd).collect();
        wait_readable(&fds, most);
    }

    /// Empty every buffer, handing each record's type and bytes (after the header) to
    /// `take`.
    pub fn drain(&mut self, take: &mut dyn FnMut(u32, &[u8])) {
        for b in &mut self.buffers {
            while let Some(record) = b.next_record() {
                let bytes = record.to_contiguous();
                take(record.ty(), &bytes);
            }
        }
    }
}

/// Sleep until one of `fds` is readable, a signal comes (poll is never restarted after a
/// signal handler), or `most` has passed; with no descriptor, a sleep a signal cuts short.
pub fn wait_readable(fds: &[std::os::fd::RawFd], most: Duration) {
    let mut polled: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ms = most.as_millis().min(i32::MAX as u128) as i32;
    // SAFETY: a valid array of pollfd of the stated length; the caller's open descriptors.
    unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, ms) };
}

/// What reads a [`TraceStream`]: decodes its records and takes them in time order.
pub trait Consumer: Send + 'static {
    type Event: Send;
    /// One record (its type, its bytes after the header) and its time; None to skip it.
    fn decode(&self, ty: u32, bytes: &[u8]) -> Option<(u64, Self::Event)>;
    /// Before the records of a round are taken.
    fn round(&mut self) {}
    fn take(&mut self, time: u64, event: Self::Event);
}

/// A thread emptying a [`TraceStream`] as it fills, at least every [`READ_EVERY`], for a
/// [`Consumer`], until
/// [`Reading::finish`].
pub struct Reading<C> {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Result<C>>>,
}

impl<C: Consumer> Reading<C> {
    /// Switch `trace` on and start its reader, a thread named `name` (one of the
    /// observer's own: its calls are not counted).
    pub fn start(mut trace: TraceStream, name: &str, consumer: C) -> io::Result<Self> {
        trace.switch(true)?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || read_loop(trace, consumer, &stopping))?;
        Ok(Reading {
            stop,
            thread: Some(thread),
        })
    }

    /// Stop reading: switch the events off, take every record left, return the consumer.
    pub fn finish(mut self) -> Result<C> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .take()
            .ok_or_else(|| anyhow!("stopped twice"))?
            .join()
            .map_err(|_| anyhow!("the tracepoints' reader panicked"))?
    }
}

impl<C> Drop for Reading<C> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Empty every CPU's buffer until told to stop, then once more; hand the records over in
/// time order.
fn read_loop<C: Consumer>(mut trace: TraceStream, mut consumer: C, stop: &AtomicBool) -> Result<C> {
    let _observer = super::ObserverThread::register();
    let mut ordered = Ordered::default();
    loop {
        let stopping = stop.load(Ordering::Relaxed);
        if stopping {
            trace.switch(false).context("disabling the tracepoints")?;
        }
        // Every record stamped before this was written before the buffers are read.
        let watermark = if stopping {
            u64::MAX
        } else {
            clock::now_ns().saturating_sub(SLACK_NS)
        };
        trace.drain(&mut |ty, bytes| {
            if let Some((t, e)) = consumer.decode(ty, bytes) {
                ordered.push(t, e);
            }
        });
        consumer.round();
        for (t, e) in ordered.take_until(watermark) {
            consumer.take(t, e);
        }
        if stopping {
            return Ok(consumer);
        }
        trace.wait(READ_EVERY);
    }
}

/// Records from several buffers, handed over oldest first once no earlier one can come.
pub struct Ordered<T> {
    pending: Vec<(u64, T)>,
}

impl<T> Default for Ordered<T> {
    fn default() -> Self {
        Ordered {
            pending: Vec::new(),
        }
    }
}

impl<T> Ordered<T> {
    pub fn push(&mut self, time: u64, item: T) {
        self.pending.push((time, item));
    }

    /// The records up to `watermark`, oldest first (records of one time in the order they
    /// were pushed); the later ones wait.
    pub fn take_until(&mut self, watermark: u64) -> Vec<(u64, T)> {
        self.pending.sort_by_key(|p| p.0);
        let later = self.pending.partition_point(|p| p.0 <= watermark);
        let rest = self.pending.split_off(later);
        std::mem::replace(&mut self.pending, rest)
    }
}

/// The CPUs online.
pub fn online_cpus() -> Vec<usize> {
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    let text = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap_or_default();
    let mut cpus = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<usize>(), b.parse::<usize>()) {
                    cpus.extend(a..=b);
                }
            }
            None => cpus.extend(part.parse::<usize>().ok()),
        }
    }
    if cpus.is_empty() {
        cpus = (0..n).collect();
    }
    cpus
}

/// A tracepoint's id in tracefs (`events/GROUP/NAME/id`), and where its `field` lies in
/// its raw record (from the `format` file).
pub fn tracepoint(group_name: &str) -> Option<u64> {
    tracefs_file(&format!("{group_name}/id"))?
        .trim()
        .parse()
        .ok()
}

/// The offset of `field` in tracepoint `group_name`'s raw record.
pub fn field_of(group_name: &str, field: &str) -> Option<usize> {
    field_offset(&tracefs_file(&format!("{group_name}/format"))?, field)
}

fn tracefs_file(rel: &str) -> Option<String> {
    [
        "/sys/kernel/tracing/events",
        "/sys/kernel/debug/tracing/events",
    ]
    .iter()
    .find_map(|d| std::fs::read_to_string(format!("{d}/{rel}")).ok())
}

/// `\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;` → 8.
pub fn field_offset(format: &str, name: &str) -> Option<usize> {
    format.lines().find_map(|l| {
        let decl = l.trim().strip_prefix("field:")?.split(';').next()?;
        let last = decl.split_whitespace().last()?;
        // `unsigned long args[6]` is field `args`.
        (last.split('[').next()? == name).then_some(())?;
        l.split(';')
            .find_map(|p| p.trim().strip_prefix("offset:"))?
            .parse()
            .ok()
    })
}

pub fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

pub fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_ne_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_come_out_oldest_first_and_later_ones_wait() {
        let mut o = Ordered::default();
        o.push(30, "c");
        o.push(10, "a");
        o.push(20, "b1");
        o.push(20, "b2");
        let first: Vec<_> = o.take_until(20).into_iter().map(|p| p.1).collect();
        assert_eq!(first, ["a", "b1", "b2"]);
        o.push(25, "late");
        let rest: Vec<_> = o.take_until(u64::MAX).into_iter().map(|p| p.1).collect();
        assert_eq!(rest, ["late", "c"]);
    }

    #[test]
    fn a_records_time_is_found_in_a_sample_and_in_the_trailer() {
        let mut sample = Vec::new();
        sample.extend(1u32.to_ne_bytes());
        sample.extend(2u32.to_ne_bytes());
        sample.extend(77u64.to_ne_bytes());
        sample.extend(4u32.to_ne_bytes());
        sample.extend([9u8, 8, 7, 6]);
        assert_eq!(record_time(RECORD_SAMPLE, &sample), Some(77));
        assert_eq!(sample_raw(&sample), [9, 8, 7, 6]);
        let mut comm = b"make\0\0\0\0".to_vec();
        comm.extend(5u64.to_ne_bytes()); // pid, tid of the trailer
        comm.extend(99u64.to_ne_bytes());
        assert_eq!(record_time(RECORD_COMM, &comm), Some(99));
        assert_eq!(record_time(RECORD_COMM, &[1, 2]), None);
    }

    #[test]
    fn a_field_is_found_in_the_format_file() {
        let f = "name: sys_enter\nID: 22\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n";
        assert_eq!(field_offset(f, "id"), Some(8));
        assert_eq!(field_offset(f, "args"), Some(16));
        assert_eq!(field_offset(f, "nope"), None);
    }
}
