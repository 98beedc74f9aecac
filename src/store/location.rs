//! Where the store is: an SQLite file (a path) or a PostgreSQL server (a
//! `postgresql://` URL), and how that place is shown — never with its password.

use std::ffi::OsStr;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    File(PathBuf),
    /// A `postgresql://` (or `postgres://`) URL, as given (password included: it is
    /// needed to connect, and shown only through [`Location::shown`]).
    Postgres(String),
}

impl Location {
    /// A `--db` value or `$TIMESHARE_DB`: a URL when it starts with `postgresql://` or
    /// `postgres://`, else a file path.
    pub fn parse(s: &OsStr) -> Location {
        match s.to_str() {
            Some(u) if is_postgres_url(u) => Location::Postgres(u.to_string()),
            _ => Location::File(PathBuf::from(s)),
        }
    }

    /// How the place is named in messages, listings and errors: a URL's password masked.
    pub fn shown(&self) -> String {
        match self {
            Location::File(p) => p.display().to_string(),
            Location::Postgres(u) => mask(u),
        }
    }
}

pub fn is_postgres_url(s: &str) -> bool {
    s.starts_with("postgresql://") || s.starts_with("postgres://")
}

/// A URL with its password replaced by `***`, both the one in `user:password@` and a
/// `password=` parameter: `postgresql://ts:***@db.lab/timeshare`.
pub fn mask(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_string();
    };
    let (scheme, rest) = url.split_at(scheme_end);
    let auth_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(auth_end);
    let authority = match authority.rfind('@') {
        Some(at) => {
            let (userinfo, host) = authority.split_at(at);
            match userinfo.find(':') {
                Some(colon) => format!("{}:***{host}", &userinfo[..colon]),
                None => authority.to_string(),
            }
        }
        None => authority.to_string(),
    };
    let tail = match tail.find('?') {
        Some(q) => {
            let (path, query) = tail.split_at(q + 1);
            let masked: Vec<String> = query
                .split('&')
                .map(|kv| match kv.split_once('=') {
                    Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=***"),
                    _ => kv.to_string(),
                })
                .collect();
            format!("{path}{}", masked.join("&"))
        }
        None => tail.to_string(),
    };
    format!("{scheme}{authority}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_is_never_shown() {
        assert_eq!(
            mask("postgresql://ts:s3cr@t:x@db.lab:5432/timeshare"),
            "postgresql://ts:***@db.lab:5432/timeshare"
        );
        assert_eq!(
            mask("postgres://ts@/timeshare?host=/tmp/pg&password=hunter2&sslmode=disable"),
            "postgres://ts@/timeshare?host=/tmp/pg&password=***&sslmode=disable"
        );
        assert_eq!(mask("postgresql://db.lab/ts"), "postgresql://db.lab/ts");
        let loc = Location::parse(OsStr::new("postgresql://u:pw@h/d"));
        assert!(!loc.shown().contains("pw"), "{}", loc.shown());
        assert_eq!(
            Location::parse(OsStr::new("runs.db")),
            Location::File("runs.db".into())
        );
    }
}
