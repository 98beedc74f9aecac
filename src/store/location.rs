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
        check_url(rest).map_err(|why| format!("{lower}:// URL: {why}"))?;
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

/// A PostgreSQL URL after its `scheme://`, checked strictly: anything two readers could
/// take two ways is refused, since the driver's own reading differs from the standard's
/// (it ends the user name and password at the first `@` anywhere, so `u:pa/ss@host` or
/// `u:p@ss@host` would send part of the password to the name resolver as a host).
/// The reason never quotes the URL: it may hold a password.
fn check_url(rest: &str) -> Result<(), String> {
    if rest.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("a space or a control character in it; write it %-encoded (%20)".into());
    }
    if rest.contains('#') {
        return Err("a # in it (a # in a password or a name is written %23)".into());
    }
    check_escapes(rest)?;
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    if authority.matches('@').count() > 1 {
        return Err(
            "more than one @ before the host; write an @ in the user name or the \
                    password as %40"
                .into(),
        );
    }
    if tail.contains('@') {
        return Err(
            "an @ after the host; write a / or ? in the user name or the password \
                    as %2F or %3F, and an @ in a name or a parameter as %40"
                .into(),
        );
    }
    let (userinfo, hosts) = match authority.rsplit_once('@') {
        Some((u, h)) => (Some(u), h),
        None => (None, authority),
    };
    if hosts.contains(',') {
        // One store, one server: a list of hosts to try in turn would store runs in
        // whichever answered.
        return Err("more than one host; give the one server that holds the store".into());
    }
    check_host(hosts)?;
    let (path, query) = tail.split_once('?').unwrap_or((tail, ""));
    if path.matches('/').count() > 1 {
        return Err("a / in the database name; write it %2F".into());
    }
    let password_in_userinfo = userinfo.is_some_and(|u| u.contains(':'));
    check_query(query, password_in_userinfo)?;
    check_one_server(query, hosts, &percent_decoded(path.trim_start_matches('/')))
}

/// The server and the database a URL names, named once: a `host`, `hostaddr` or `port`
/// parameter beside a host or a port before the path would make the driver try a second
/// server, and a `dbname` parameter that contradicts the path's name would store runs in
/// a database other than the one the URL shows. A parameter may give what the URL left
/// out (`postgresql:///?host=/run/postgresql`), one server only; `localhost` before the
/// path with the socket's directory as the parameter (`localhost/ts?host=/run/postgresql`,
/// as the fleet docs write it) names this machine's server both times and is kept.
fn check_one_server(query: &str, hosts: &str, path_db: &str) -> Result<(), String> {
    let host_given = !hosts.is_empty() && !hosts.starts_with(':');
    let port_given = hosts
        .rsplit_once(']')
        .map_or(hosts, |(_, p)| p)
        .contains(':');
    let local = hosts.split(':').next() == Some("localhost");
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let Some((key, value)) = pair.split_once('=') else {
            continue;
        };
        let key = decoded_key(key);
        let value = percent_decoded(value);
        let second = match key.as_str() {
            "host" => (host_given && !(local && value.starts_with('/'))) || value.contains(','),
            "hostaddr" => host_given || value.contains(','),
            "port" => port_given || value.contains(','),
            _ => false,
        };
        if second {
            return Err(format!(
                "the parameter {key} names a second server beside the one before the path; \
                 give one host and one port, once"
            ));
        }
        if key == "dbname" && !path_db.is_empty() && value != path_db {
            return Err(
                "the parameter dbname contradicts the database named in the path; give it \
                 once"
                    .into(),
            );
        }
    }
    Ok(())
}

/// `text` with its percent escapes decoded (invalid UTF-8 shown as U+FFFD).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Every `%` starts an escape of two hexadecimal digits.
fn check_escapes(text: &str) -> Result<(), String> {
    let bytes = text.as_bytes();
    for (i, _) in text.match_indices('%') {
        let hex = bytes.get(i + 1..i + 3);
        if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
            return Err("a % not followed by two hexadecimal digits; write a % as %25".into());
        }
    }
    Ok(())
}

/// `host`, `host:port`, `[v6]`, `[v6]:port`, or nothing (the local socket).
fn check_host(host: &str) -> Result<(), String> {
    let (name, port) = if let Some(v6) = host.strip_prefix('[') {
        let (addr, after) = v6
            .split_once(']')
            .ok_or("an IPv6 address without its closing ]")?;
        if addr.parse::<std::net::Ipv6Addr>().is_err() {
            return Err("the host's [ ] holds no IPv6 address".into());
        }
        match after {
            "" => (None, None),
            _ => (
                None,
                Some(
                    after
                        .strip_prefix(':')
                        .ok_or("something after the ] of the host")?,
                ),
            ),
        }
    } else {
        match host.split_once(':') {
            Some((name, port)) => (Some(name), Some(port)),
            None => (Some(host), None),
        }
    };
    if let Some(name) = name {
        let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '%');
        if !name.chars().all(ok) {
            return Err(
                "the host may hold letters, digits, '.', '-' and '_' (an IPv6 address goes \
                 in [ ])"
                    .into(),
            );
        }
    }
    // Not quoted: with the user name forgotten (`postgresql://:pw@…` mistyped without its
    // `@`), the "port" is a password.
    match port {
        Some(p) if !p.parse::<u16>().is_ok_and(|n| n > 0) || p.starts_with('+') => {
            Err("the port is not a number from 1 to 65535".into())
        }
        _ => Ok(()),
    }
}

/// `key=value&…`: every parameter has a name and a value, none is given twice, and a
/// password is not given both before the host and as a parameter.
fn check_query(query: &str, password_in_userinfo: bool) -> Result<(), String> {
    let mut seen = std::collections::BTreeSet::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let Some((key, _)) = pair.split_once('=').filter(|(k, _)| !k.is_empty()) else {
            return Err("a parameter without a name=value".into());
        };
        let key = decoded_key(key);
        if key == "password" && password_in_userinfo {
            return Err("a password both before the host and as a parameter".into());
        }
        if !seen.insert(key.clone()) {
            return Err(format!("the parameter {} given twice", key.escape_debug()));
        }
    }
    Ok(())
}

/// A parameter's name as the PostgreSQL driver reads it, percent escapes decoded
/// (`%70assword` is `password`), in lower case: what every check compares.
fn decoded_key(key: &str) -> String {
    percent_decoded(key).to_ascii_lowercase()
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
                    Some((k, _)) if decoded_key(k) == "password" => format!("{k}=***"),
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
    fn a_second_server_or_a_contradicting_database_is_refused_by_name() {
        let parse = |u: &str| Location::parse(OsStr::new(u), Source::CommandLine);
        for (url, named) in [
            ("postgresql://ts@db.lab/ts?host=evil.lab", "parameter host"),
            (
                "postgresql://ts@localhost/ts?host=evil.lab",
                "parameter host",
            ),
            (
                "postgresql://ts@db.lab/ts?%68ost=evil.lab",
                "parameter host",
            ),
            (
                "postgresql://ts@db.lab/ts?hostaddr=10.0.0.9",
                "parameter hostaddr",
            ),
            ("postgresql://ts@db.lab:5432/ts?port=5433", "parameter port"),
            ("postgresql://ts@/ts?host=a,b", "parameter host"),
            ("postgresql://ts@db.lab/ts?dbname=other", "parameter dbname"),
            ("postgresql://ts@db.lab/ts?dbname=t%73x", "parameter dbname"),
        ] {
            let why = parse(url).unwrap_err();
            assert!(why.contains(named) && !why.contains('\n'), "{url}: {why}");
        }
        for url in [
            "postgresql://ts@/ts?host=/run/postgresql&port=5433",
            "postgresql://ts@db.lab/ts?dbname=ts",
            "postgresql://ts@db.lab/t%73?dbname=ts",
            "postgresql://ts@db.lab?dbname=ts",
        ] {
            assert!(parse(url).is_ok(), "{url}: {:?}", parse(url));
        }
    }

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
    fn a_percent_encoded_password_key_is_a_password() {
        for url in [
            "postgresql://ts@h/db?%70assword=PW",
            "postgresql://ts@h/db?%50ASSWORD=PW",
            "postgresql://ts@h/db?pass%77ord=PW&sslmode=disable",
        ] {
            let why = Location::parse(url.as_ref(), Source::CommandLine).unwrap_err();
            assert!(why.contains("command line"), "{url}: {why}");
            assert!(!why.contains("PW"), "{url}: {why}");
            assert!(!mask(url).contains("PW"), "{}", mask(url));
        }
        let why = check_query("password=a&%70assword=b", false).unwrap_err();
        assert!(why.contains("twice"), "{why}");
        assert_eq!(decoded_key("sslmode"), "sslmode");
        assert_eq!(decoded_key("%7"), "%7");
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

    #[test]
    fn what_two_readers_could_take_two_ways_is_refused_without_quoting_it() {
        let env = |s: &str| Location::parse(OsStr::new(s), Source::Environment);
        for (url, says) in [
            ("postgresql://u:QX/VZ@h/x", "%2F"),
            ("postgresql://u:QX?VZ@h/x", "%2F"),
            ("postgresql://h/x?host=/tmp/QX@VZ", "%40"),
            ("postgresql://u:QX#VZ@h/x", "%23"),
            ("postgresql://u:QX VZ@h/x", "%20"),
            ("postgresql://u:QX%zzVZ@h/x", "%25"),
            ("postgresql://u:QX%2VZ@h/x", "%25"),
            ("postgresql://u:QXVZ@h:QXVZ/x", "port"),
            ("postgresql://:QXVZ/x", "port"),
            ("postgresql://u@h:0/x", "port"),
            ("postgresql://u@h:70000/x", "port"),
            ("postgresql://u@::1/x", "port"),
            ("postgresql://u@[::1/x", "]"),
            ("postgresql://u@[zz]/x", "IPv6"),
            ("postgresql://u@[::1]x/x", "after the ]"),
            ("postgresql://u@a,b/x", "more than one host"),
            ("postgresql://u@h/x/y", "database name"),
            ("postgresql://u@h/x?sslmode", "name=value"),
            ("postgresql://u@h/x?dbname=a&dbname=b", "twice"),
            ("postgresql://u:QXVZ@h/x?password=QXVZ", "both"),
            ("postgresql://u@h!/x", "host may hold"),
        ] {
            let why = env(url).unwrap_err();
            assert!(why.contains(says), "{url}: {why}");
            for secret in ["QX", "VZ"] {
                assert!(!why.contains(secret), "{url} quoted: {why}");
            }
        }
        for url in [
            "postgresql://u:p%40ss%2Fw%3Fd@db.lab:5432/timeshare?sslmode=disable",
            "postgresql://u@[::1]:5432/x",
            "postgresql:///x?host=/run/postgresql&port=5433",
            "postgresql://u:pw@localhost/x?host=%2Ftmp%2Fpg",
            "postgres://db.lab",
            "postgresql://u:a:b@h/x",
        ] {
            assert!(env(url).is_ok(), "{url}: {:?}", env(url));
        }
    }
}
