//! The errors the subcommands share: the user's mistake ([`UsageError`], exit code 2), and
//! the reason of an I/O error said without the paths a wrapper added.

/// An error that is the user's input, not the machine's: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// What went wrong in an I/O error, without the paths a wrapper added (one definition,
/// beside the output rules that say it most).
pub(super) use crate::harness::outpolicy::io_reason;
