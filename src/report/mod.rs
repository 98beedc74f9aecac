//! Rendering only: model types in, bytes out. No measuring, no file I/O.

pub mod extra;
pub mod io;
pub mod json;
pub mod table;
