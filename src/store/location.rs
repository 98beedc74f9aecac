//! Where the store is: an SQLite file (a path) or a PostgreSQL server (a
//! `postgresql://` URL), and how that place is shown — never with its password.

use std::ffi::OsStr;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    File(PathBuf),
    /// A `postgresql://` (or `postgres://`) URL, its scheme in lower case (password
    /// included when `$TIMESHARE_DB` gave one: it is needed to connect, and shown only
    /// through [`Location::shown`]).
    Postgres(String),
}

/// Where the location was given: on the command line, every user of the machine can read
/// it in the process list (`ps`), so it may carry no password.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    CommandLine,
    Environment,
}

/// The schemes of a PostgreSQL store, matched in any case.
const POSTGRES_SCHEMES: [&str; 2] = ["postgresql", "postgres"];

impl Location {
    /// A `--db` value or `$TIMESHARE_DB`: a URL when it starts with `postgresql://` or
    /// `postgres://` (in any case), else a file path. Refused, with a reason that never
    /// quotes a password: another `scheme://` (`mysql://`, `sqlite://`: not a file name
    /// anyone means), a URL whose user or password holds an unencoded `@` (which would
    /// send the password's tail to the name resolver as a host), and a password given on
    /// the command line.
    pub fn parse(s: &OsStr, source: Source) -> Result<Location, String> {
        let Some(text) = s.to_str() else {
            return Ok(Location::File(PathBuf::from(s)));
        };
        let Some((scheme, rest)) = url_scheme(text) else {
            return Ok(Location::File(PathBuf::from(s)));
        };
        let lower = scheme.to_ascii_lowercase();
        if !POSTGRES_SCHEMES.contains(&lower.as_str()) {
            return Err(format!(
                "{scheme}:// is not a store timeshare knows: give an SQLite file's path or a \
                 postgresql:// URL"
            ));
        }
        let url = format!("{lower}://{rest}");
        let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
        if authority.matches('@').count() > 1 {
            return Err(format!(
                "{}: more than one @ before the host; write an @ in the user name or the \
                 password as %40",
                lower
            ));
        }
        if source == Source::CommandLine && has_password(&url) {
            return Err(format!(
                "{}: a password on the command line is shown to every user by ps; give it in \
                 PGPASSWORD, in a passfile (PGPASSFILE, ~/.pgpass, mode 0600) or give the \
                 whole URL in $TIMESHARE_DB",
                mask(&url)
            ));
        }
        Ok(Location::Postgres(url))
    }

    /// How the place is named in messages, listings and errors: a URL's password masked.
    pub fn shown(&self) -> String {
        match self {
            Location::File(p) => p.display().to_string(),
            Location::Postgres(u) => mask(u),
        }
    }
}

/// The scheme of `scheme://rest` and the rest, when `text` has that shape (RFC 3986: a
/// letter, then letters, digits, `+`, `-`, `.`).
fn url_scheme(text: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = text.split_once("://")?;
    let mut chars = scheme.chars();
    let first_is_letter = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    (first_is_letter && rest_ok).then_some((scheme, rest))
}

/// Whether a URL carries a password: `user:password@` or a `password=` parameter.
pub fn has_password(url: &str) -> bool {
    mask(url) != url
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
        let loc = Location::parse(OsStr::new("postgresql://u:pw@h/d"), Source::Environment);
        assert!(!loc.unwrap().shown().contains("pw"));
        assert_eq!(
            Location::parse(OsStr::new("runs.db"), Source::CommandLine),
            Ok(Location::File("runs.db".into()))
        );
    }

    #[test]
    fn schemes_are_matched_in_any_case_and_a_strange_one_is_refused() {
        let env = |s: &str| Location::parse(OsStr::new(s), Source::Environment);
        assert_eq!(
            env("Postgresql://u@h/x"),
            Ok(Location::Postgres("postgresql://u@h/x".into()))
        );
        assert_eq!(
            env("POSTGRES://h/x"),
            Ok(Location::Postgres("postgres://h/x".into()))
        );
        for url in ["mysql://u:hunter2@h/x", "sqlite://runs.db", "Sqlite3://x"] {
            let why = env(url).unwrap_err();
            assert!(why.contains("is not a store"), "{why}");
            assert!(!why.contains("hunter2"), "{why}");
        }
        assert_eq!(env("./a://b"), Ok(Location::File("./a://b".into())));
    }

    #[test]
    fn an_unencoded_at_and_a_password_in_argv_are_refused_without_showing_it() {
        let why = Location::parse(OsStr::new("postgresql://u:p@ss@h/x"), Source::Environment)
            .unwrap_err();
        assert!(why.contains("%40") && !why.contains("ss@h"), "{why}");
        for url in [
            "postgresql://u:hunter2@h/x",
            "postgresql://u@h/x?password=hunter2",
        ] {
            let why = Location::parse(OsStr::new(url), Source::CommandLine).unwrap_err();
            assert!(
                why.contains("PGPASSWORD") && !why.contains("hunter2"),
                "{why}"
            );
        }
        assert!(Location::parse(OsStr::new("postgresql://u@h/x"), Source::CommandLine).is_ok());
    }
}
