//! The errors the subcommands share: the user's mistake ([`UsageError`], exit code 2), and
//! the reason of an I/O error said without the paths a wrapper added.

/// An error that is the user's input, not the machine's: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// What went wrong in an I/O error, without any path a wrapper added to it (a temporary
/// file's random name means nothing to the user): "Permission denied (os error 13)", or
/// only its kind ("permission denied") when a wrapper kept no OS error code.
pub(super) fn io_reason(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => std::io::Error::from_raw_os_error(code).to_string(),
        None => e.kind().to_string(),
    }
}
