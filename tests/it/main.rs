//! The one integration-test binary: the `timeshare` executable driven as a user would,
//! one module per area. Each test works in its own temporary directory.

mod basis;
mod cli;
mod common;
mod cpu;
mod docs;
mod exercise;
mod fleet;
mod hostile;
mod house;
mod io;
mod load;
mod micro;
mod mixed;
mod net;
mod observation;
mod observe;
mod output;
mod pg;
mod report;
mod seed_tables;
mod selftest;
mod snapshots;
mod store;
mod syscall;
mod vm;
