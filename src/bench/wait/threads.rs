//! Waits between two threads of this process: a futex wake/wait round trip and a pthread
//! mutex taken with and without another thread wanting it.
//!
//! # Timing model
//! `futex`: one operation is one round trip through one shared word: this thread sets it
//! to 1 and wakes the partner, then sleeps in FUTEX_WAIT until the partner has set it back
//! to 0 and woken it (a wait on a word that already changed returns at once, so on two
//! CPUs a side may not sleep every time; the row says how many CPUs it had).
//! `mutex`: one operation is pthread_mutex_lock + pthread_mutex_unlock of a default
//! mutex; `mutex.contended` does the same while a partner thread loops on the same pair
//! of calls on the same mutex, so most locks find it held or wanted.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use anyhow::{bail, Result};

use crate::harness::contract::Workload;

fn futex(word: &AtomicU32, op: i32, val: u32) {
    // SAFETY: FUTEX_WAIT/FUTEX_WAKE on a live, aligned u32; no timeout.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            op | libc::FUTEX_PRIVATE_FLAG,
            val,
            std::ptr::null::<libc::timespec>(),
        );
    }
}

/// A partner thread answering every turn the word gives it.
pub struct FutexPingPong {
    word: Arc<AtomicU32>,
    stop: Arc<AtomicBool>,
    answered: Arc<AtomicU64>,
    asked: u64,
    partner: Option<JoinHandle<()>>,
}

impl FutexPingPong {
    pub fn start() -> FutexPingPong {
        let word = Arc::new(AtomicU32::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let answered = Arc::new(AtomicU64::new(0));
        let (w, s, a) = (word.clone(), stop.clone(), answered.clone());
        let partner = std::thread::spawn(move || loop {
            while w.load(Ordering::Acquire) == 0 {
                futex(&w, libc::FUTEX_WAIT, 0);
            }
            if s.load(Ordering::Acquire) {
                return;
            }
            a.fetch_add(1, Ordering::Relaxed);
            w.store(0, Ordering::Release);
            futex(&w, libc::FUTEX_WAKE, 1);
        });
        FutexPingPong {
            word,
            stop,
            answered,
            asked: 0,
            partner: Some(partner),
        }
    }
}

impl Workload for FutexPingPong {
    fn run(&mut self, n: u64) -> Result<()> {
        let w = &*self.word;
        for _ in 0..n {
            w.store(1, Ordering::Release);
            futex(w, libc::FUTEX_WAKE, 1);
            while w.load(Ordering::Acquire) == 1 {
                futex(w, libc::FUTEX_WAIT, 1);
            }
        }
        self.asked += n;
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        let answered = self.answered.load(Ordering::Relaxed);
        if answered != self.asked {
            bail!(
                "futex round trips: asked {} turns, the partner answered {answered}",
                self.asked
            );
        }
        Ok(())
    }
}

impl Drop for FutexPingPong {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        self.word.store(1, Ordering::Release);
        futex(&self.word, libc::FUTEX_WAKE, 1);
        if let Some(p) = self.partner.take() {
            let _ = p.join();
        }
    }
}

/// A default pthread mutex on the heap (it must not move once used).
struct PthreadMutex(std::cell::UnsafeCell<libc::pthread_mutex_t>);

// SAFETY: a pthread mutex is made to be shared between threads.
unsafe impl Sync for PthreadMutex {}
// SAFETY: as above; it is only destroyed when no thread uses it.
unsafe impl Send for PthreadMutex {}

impl PthreadMutex {
    fn new() -> Arc<PthreadMutex> {
        Arc::new(PthreadMutex(std::cell::UnsafeCell::new(
            libc::PTHREAD_MUTEX_INITIALIZER,
        )))
    }

    #[inline]
    fn lock_unlock(&self) {
        // SAFETY: an initialised mutex that outlives every thread using it.
        unsafe {
            libc::pthread_mutex_lock(self.0.get());
            libc::pthread_mutex_unlock(self.0.get());
        }
    }
}

/// pthread_mutex_lock + unlock, with or without a partner thread doing the same.
pub struct MutexLoop {
    mutex: Arc<PthreadMutex>,
    stop: Arc<AtomicBool>,
    partner: Option<JoinHandle<u64>>,
}

impl MutexLoop {
    pub fn start(contended: bool) -> MutexLoop {
        let mutex = PthreadMutex::new();
        let stop = Arc::new(AtomicBool::new(false));
        let partner = contended.then(|| {
            let (m, s) = (mutex.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut pairs = 0u64;
                while !s.load(Ordering::Relaxed) {
                    m.lock_unlock();
                    pairs += 1;
                }
                pairs
            })
        });
        MutexLoop {
            mutex,
            stop,
            partner,
        }
    }
}

impl Workload for MutexLoop {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            self.mutex.lock_unlock();
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        if let Some(p) = self.partner.take() {
            self.stop.store(true, Ordering::Relaxed);
            let pairs = p.join().unwrap_or(0);
            if pairs == 0 {
                bail!("the contending thread never took the mutex");
            }
        }
        Ok(())
    }
}

impl Drop for MutexLoop {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(p) = self.partner.take() {
            let _ = p.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_futex_turn_is_answered() {
        let mut f = FutexPingPong::start();
        f.run(1000).unwrap();
        f.finish().unwrap();
        f.asked += 1;
        assert!(f.finish().is_err(), "a turn not answered must fail the row");
    }

    #[test]
    fn the_contending_thread_takes_the_mutex_too() {
        let mut m = MutexLoop::start(true);
        std::thread::sleep(std::time::Duration::from_millis(5));
        m.run(10_000).unwrap();
        m.finish().unwrap();
    }
}
