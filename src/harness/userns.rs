//! Why the kernel refused an ordinary user a user namespace, in words.
//!
//! As another user than root, a tool's private network ([`super::netview`]) and its
//! private `/var/tmp` ([`super::toolview`]) are made inside a user namespace. Kernels
//! may forbid those to ordinary users, and the system call then fails with a bare
//! "Operation not permitted" or "No space left on device" that says nothing of the
//! setting behind it. This reads the settings that decide it and names the one that did.

use std::io;

/// The settings that decide whether an ordinary user may make a user namespace, as read
/// from `/proc/sys` (`None`: this kernel has no such setting).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// `kernel.unprivileged_userns_clone` (Debian's and Ubuntu's kernels): 0 forbids.
    pub unprivileged_userns_clone: Option<String>,
    /// `user.max_user_namespaces`: 0 forbids; the count reached refuses more (ENOSPC).
    pub max_user_namespaces: Option<String>,
    /// `kernel.apparmor_restrict_unprivileged_userns` (Ubuntu): 1 gives a new user
    /// namespace no privilege in it unless an AppArmor profile allows it.
    pub apparmor_restrict_unprivileged_userns: Option<String>,
}

impl Settings {
    /// This kernel's settings, now.
    pub fn read() -> Settings {
        let read = |path: &str| {
            std::fs::read_to_string(path)
                .ok()
                .map(|s| s.trim().to_string())
        };
        Settings {
            unprivileged_userns_clone: read("/proc/sys/kernel/unprivileged_userns_clone"),
            max_user_namespaces: read("/proc/sys/user/max_user_namespaces"),
            apparmor_restrict_unprivileged_userns: read(
                "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
            ),
        }
    }

    /// Why a user namespace failed with `error`, when a setting (or the error itself)
    /// says so; `None` when nothing explains it.
    pub fn refusal(&self, error: &io::Error) -> Option<String> {
        let is = |v: &Option<String>, want: &str| v.as_deref() == Some(want);
        if is(&self.unprivileged_userns_clone, "0") {
            return Some(
                "this kernel forbids ordinary users user namespaces \
                 (kernel.unprivileged_userns_clone = 0)"
                    .into(),
            );
        }
        if is(&self.max_user_namespaces, "0") {
            return Some(
                "this kernel forbids user namespaces (user.max_user_namespaces = 0)".into(),
            );
        }
        if is(&self.apparmor_restrict_unprivileged_userns, "1") {
            return Some(
                "AppArmor gives ordinary users' user namespaces no privilege \
                 (kernel.apparmor_restrict_unprivileged_userns = 1)"
                    .into(),
            );
        }
        if error.raw_os_error() == Some(libc::ENOSPC) {
            let here = self.max_user_namespaces.as_deref().unwrap_or("unknown");
            return Some(format!(
                "the limit of user namespaces was reached (user.max_user_namespaces = {here} \
                 here, or an enclosing user namespace's limit)"
            ));
        }
        None
    }
}

/// `error`, with the reason the kernel's settings give for it when there is one: for the
/// errors of a user namespace's making, entering or use as an ordinary user.
pub fn explained(error: io::Error) -> anyhow::Error {
    match Settings::read().refusal(&error) {
        Some(why) => anyhow::Error::new(error).context(why),
        None => error.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eperm() -> io::Error {
        io::Error::from_raw_os_error(libc::EPERM)
    }

    fn with(clone: Option<&str>, max: Option<&str>, apparmor: Option<&str>) -> Settings {
        Settings {
            unprivileged_userns_clone: clone.map(Into::into),
            max_user_namespaces: max.map(Into::into),
            apparmor_restrict_unprivileged_userns: apparmor.map(Into::into),
        }
    }

    #[test]
    fn each_setting_that_forbids_is_named_with_its_value() {
        let cases = [
            (
                with(Some("0"), Some("1000"), None),
                "kernel.unprivileged_userns_clone = 0",
            ),
            (with(None, Some("0"), None), "user.max_user_namespaces = 0"),
            (
                with(Some("1"), Some("1000"), Some("1")),
                "kernel.apparmor_restrict_unprivileged_userns = 1",
            ),
        ];
        for (settings, named) in cases {
            let why = settings.refusal(&eperm()).expect("a reason");
            assert!(why.contains(named), "{settings:?}: {why}");
        }
    }

    #[test]
    fn a_limit_reached_is_named_and_nothing_is_made_up_otherwise() {
        let allowed = with(Some("1"), Some("96365"), Some("0"));
        let full = io::Error::from_raw_os_error(libc::ENOSPC);
        let why = allowed.refusal(&full).expect("ENOSPC is the limit");
        assert!(why.contains("user.max_user_namespaces = 96365"), "{why}");
        assert_eq!(allowed.refusal(&eperm()), None);
        assert_eq!(Settings::default().refusal(&eperm()), None);
    }
}
