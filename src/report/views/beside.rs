//! The rows the closing summary sets beside the papers' machines: each one operation the
//! seeds timed the same way as today's row does — a system call, a signal, a pipe round
//! trip, a fork, an exec.
//!
//! The list is a fact of the seeds, kept beside their tables' layouts in `reference/`.

pub use crate::reference::layouts::LIKE_FOR_LIKE;
