//! Rendering only: model types in, bytes out. No measuring, no file I/O.

pub mod extra;
pub mod json;
pub mod load;
pub mod table;
