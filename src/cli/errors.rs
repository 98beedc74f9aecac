//! The errors the subcommands share: the user's mistake ([`UsageError`], exit code 2, a
//! model type so that the use cases and the report's writers below can say it too), and
//! the reason of an I/O error said without the paths a wrapper added.

pub use crate::model::usage::UsageError;

/// What went wrong in an I/O error, without the paths a wrapper added (one definition,
/// beside the output rules that say it most).
pub(super) use crate::harness::outpolicy::io_reason;
