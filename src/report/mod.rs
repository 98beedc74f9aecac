//! Rendering only: model types in, bytes out. No measuring, no file I/O.

pub mod answer;
pub mod compare;
pub mod compare_export;
pub mod cpu;
pub mod crosscheck;
pub mod crosscheck_export;
pub mod csv;
pub mod docs;
pub mod environment;
pub mod exercise;
pub mod extra;
pub mod fleet;
pub mod html;
pub mod io;
pub mod json;
pub mod load;
pub mod markdown;
pub mod mem;
pub mod micro;
pub mod mixed;
pub mod net;
pub mod observation;
pub mod observation_tables;
pub mod observe;
pub mod outfile;
pub mod output;
pub mod seed_commands;
pub mod seed_configs;
pub mod seed_curve;
pub mod seed_table;
pub mod style;
pub mod summary;
pub mod table;
pub mod textchart;
pub mod thread;
pub mod views;
pub mod vm;

#[cfg(test)]
mod comparability_tests;
#[cfg(test)]
mod not_resolved_tests;
