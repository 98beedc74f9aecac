//! Rendering only: model types in, bytes out. No measuring, no file I/O.

pub mod cpu;
pub mod extra;
pub mod json;
pub mod table;
