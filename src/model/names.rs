//! The names a user or an imported file gives a run: a label, a fleet host name, a
//! campaign, a group. Capped in length, since every listing shows them and a shared
//! PostgreSQL store indexes them (a label of megabytes stalled `history` and broke the
//! index only after every row was measured); checked once, here, for `--label`,
//! `--host-name`, `--campaign`, `--group` before anything is measured, and for `import`.

/// The longest label, in bytes.
pub const MAX_LABEL: usize = 256;
/// The longest host name, campaign or group, in bytes (a DNS name is at most 253).
pub const MAX_NAME: usize = 253;

/// Why `value`, given as `what`, cannot name a run, if it cannot.
pub fn check(what: &str, value: &str) -> Result<(), String> {
    let max = if what.contains("label") {
        MAX_LABEL
    } else {
        MAX_NAME
    };
    if value.trim().is_empty() {
        return Err(format!(
            "{what}: empty; give a name or leave the option out"
        ));
    }
    if value.len() > max {
        return Err(format!(
            "{what}: {} bytes, longer than the {max} a name may have",
            value.len()
        ));
    }
    Ok(())
}

/// Why a campaign or host name cannot be used as a file name (the fleet playbook files
/// each host's JSON as `CAMPAIGN/HOST.json`), if it cannot: a `/`, a leading `.`.
pub fn check_path_safe(what: &str, value: &str) -> Result<(), String> {
    check(what, value)?;
    if value.contains('/') || value.starts_with('.') || value.contains('\0') {
        return Err(format!(
            "{what}: \"{}\" cannot name a file (no '/', no leading '.')",
            value.escape_debug()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_long_and_path_like_names_are_refused() {
        assert!(check("--label", &"x".repeat(MAX_LABEL)).is_ok());
        assert!(check("--label", &"x".repeat(MAX_LABEL + 1))
            .unwrap_err()
            .contains("257 bytes"));
        assert!(check("--host-name", "").unwrap_err().contains("empty"));
        assert!(check("--host-name", "  ").is_err());
        for bad in ["../../x", "a/../../x", ".hidden"] {
            assert!(check_path_safe("--campaign", bad).is_err(), "{bad}");
        }
        assert!(check_path_safe("--campaign", "lab-1").is_ok());
    }
}
