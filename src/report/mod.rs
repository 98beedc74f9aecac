//! Rendering only: model types in, bytes out. No measuring, no file I/O.

pub mod exercise;
pub mod extra;
pub mod json;
pub mod mixed;
pub mod table;
