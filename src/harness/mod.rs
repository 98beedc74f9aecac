//! How to measure: the clock, calibration, overhead correction, sampling, culling of
//! perturbed samples, the kernel's counters, the environment record, one benchmark's
//! measurement ([`Runner`]) and a run's life around it ([`Session`]).
//! Nothing here prints; progress goes through [`Observer`].

pub mod anchor;
pub mod calibration;
pub mod children;
pub mod clock;
pub mod configscratch;
pub mod contract;
pub mod copies;
pub mod counters;
pub mod cpu;
pub mod debris;
pub mod disturb;
pub mod hooks;
pub mod interrupt;
pub mod invocations;
pub mod limits;
pub mod meminfo;
pub mod memlimit;
pub mod mock;
pub mod netview;
pub mod observe;
pub mod options;
pub mod outpolicy;
pub mod precision;
pub mod process;
pub mod procgroup;
pub mod quiet;
pub mod runner;
pub mod rusage;
pub mod sampler;
pub mod session;
pub mod state;
pub mod sysinfo;
pub mod tee;
pub mod tmpfs;
pub mod toolrun;
pub mod toolview;
pub mod userns;

pub use hooks::Observer;
pub use runner::Runner;
pub use session::{Checks, Ended, Session, Strategy};
