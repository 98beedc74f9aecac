//! The user's mistake, as a type every layer can return: the command line maps it to
//! exit code 2, wherever below it the input was found wrong (an output path checked by
//! the report's writer, a job type named to the exerciser's use case).

/// An error that is the user's input, not the machine's: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);
