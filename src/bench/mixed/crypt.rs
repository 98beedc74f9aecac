//! `mixed.crypt` — seed 000 Table 8: "a program written to read into memory the file of
//! encrypted login passwords, then read an input word, encrypt the word, and attempt to
//! find a match among the passwords", run twice: on the word list, then on "the output of
//! a program that read /usr/dict/words and reversed the letters of each word. The data was
//! passed between the two programs via a pipe."
//!
//! # Timing model
//! One operation = both passes: hash every word of the bundled list under every salt of
//! the password file and look each hash up; then fork a second process that reverses every
//! word and writes it into a pipe, read the pipe, hash and look up each reversed word, and
//! reap the second process. Everything is inside the timed region, as in the seed's
//! `time` of the whole shell procedure. The match counts are checked on every operation.
//!
//! The hash is SHA-256-crypt (the `$5$` scheme of glibc's crypt(3)) at 1000 rounds, from
//! RustCrypto's `sha-crypt` crate, instead of the system's crypt(3): libxcrypt's default
//! and its available schemes differ between distributions (and linking it needs
//! `-lcrypt`), so the same row would measure different work on different machines. The
//! seed's DES crypt was the standard of its day; SHA-crypt is today's equivalent with a
//! fixed, documented cost. Like the seed's 2-character salts, several users share a salt,
//! so each word is hashed once per distinct salt, not once per user.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::os::fd::{AsRawFd, OwnedFd};

use anyhow::{bail, ensure, Context, Result};
use sha_crypt::{sha256_crypt, Params};

use crate::assets;
use crate::harness::contract::{Benchmark, Ctx, Plan, Workload};
use crate::harness::interrupt::Interrupted;
use crate::harness::{children, interrupt, procgroup};
use crate::model::details::mixed;
use crate::model::Details;
use crate::model::{Metric, Source};

/// Users whose password is a word of the list, and whose password is a reversed word:
/// fixed by the bundled password file (see the test that regenerates it).
pub const EXPECTED_PLAIN: usize = 6;
pub const EXPECTED_REVERSED: usize = 4;

pub fn benchmark() -> Benchmark {
    Benchmark::new("mixed.crypt", "hash a word list and its reversed words (through a pipe from a second process), match a password file", Source::seed(
            "000",
            "Table 8 (password search, words and reversed words via a pipe)",
        ), prepare)
.with_metric(Metric::job())
.with_plan(Plan::job)
}

fn prepare(_ctx: &Ctx) -> Result<Box<dyn Workload>> {
    let table = PasswordTable::parse(assets::PASSWD)?;
    Ok(Box::new(Search::new(table, assets::WORDS)))
}

/// One parsed password file: users by (salt, hash), and the distinct salts with rounds.
pub struct PasswordTable {
    users: HashMap<(String, [u8; 32]), String>,
    salts: Vec<(String, u32)>,
}

impl PasswordTable {
    /// Lines `name:sha256crypt,ROUNDS,SALT,HEX`; `#` starts a comment.
    pub fn parse(text: &str) -> Result<PasswordTable> {
        let mut users = HashMap::new();
        let mut salts: Vec<(String, u32)> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let bad = || format!("password file line {}: {line:?}", n + 1);
            let (name, field) = line.split_once(':').with_context(bad)?;
            let parts: Vec<&str> = field.split(',').collect();
            ensure!(parts.len() == 4 && parts[0] == "sha256crypt", bad());
            let rounds: u32 = parts[1].parse().with_context(bad)?;
            let hash = unhex(parts[3]).with_context(bad)?;
            let salt = parts[2].to_string();
            if !salts.iter().any(|(s, r)| *s == salt && *r == rounds) {
                salts.push((salt.clone(), rounds));
            }
            users.insert((salt, hash), name.to_string());
        }
        ensure!(!users.is_empty(), "the password file has no users");
        Ok(PasswordTable { users, salts })
    }

    /// The users whose password is `word`.
    pub fn matches(&self, word: &str) -> Result<Vec<&str>> {
        let mut found = Vec::new();
        for (salt, rounds) in &self.salts {
            let hash = hash(word, salt, *rounds)?;
            if let Some(user) = self.users.get(&(salt.clone(), hash)) {
                found.push(user.as_str());
            }
        }
        Ok(found)
    }
}

pub fn hash(word: &str, salt: &str, rounds: u32) -> Result<[u8; 32]> {
    let params = Params::new(rounds).map_err(|e| anyhow::anyhow!("rounds {rounds}: {e:?}"))?;
    Ok(sha256_crypt(word.as_bytes(), salt.as_bytes(), params))
}

fn unhex(s: &str) -> Result<[u8; 32]> {
    ensure!(s.len() == 64, "hash is not 64 hex digits");
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16)?;
    }
    Ok(out)
}

struct Search {
    table: PasswordTable,
    /// The word list as bundled (what the reverser reads) and split into words.
    text: &'static str,
    words: Vec<&'static str>,
    last: Option<(usize, usize)>,
}

impl Workload for Search {
    fn run(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            let mut plain = 0;
            for w in &self.words {
                plain += self.table.matches(w)?.len();
            }
            let reversed = self.reversed_pass()?;
            ensure!(
                plain == EXPECTED_PLAIN && reversed == EXPECTED_REVERSED,
                "found {plain} passwords among the words and {reversed} among the reversed \
                 words; expected {EXPECTED_PLAIN} and {EXPECTED_REVERSED}"
            );
            self.last = Some((plain, reversed));
        }
        Ok(())
    }

    fn details(&mut self) -> Option<Details> {
        Some(Details::of(&mixed::Crypt {
            words: self.words.len(),
            hashes_per_operation: 2 * self.words.len() * self.table.salts.len(),
            salts: self.table.salts.len(),
            users: self.table.users.len(),
            hash: "sha256-crypt".into(),
            rounds: self.table.salts.first().map(|s| s.1),
            matches_words: self.last.map(|l| l.0),
            matches_reversed: self.last.map(|l| l.1),
        }))
    }
}

impl Search {
    fn new(table: PasswordTable, text: &'static str) -> Search {
        Search {
            table,
            text,
            words: text.lines().filter(|w| !w.is_empty()).collect(),
            last: None,
        }
    }

    /// Fork the reverser, read its pipe, look up each reversed word; reap it.
    fn reversed_pass(&self) -> Result<usize> {
        let (read_end, pid) = spawn_reverser(self.text.as_bytes())?;
        let pipe = std::fs::File::from(read_end);
        let mut found = 0;
        let mut lines = 0;
        let outcome: Result<()> = (|| {
            for line in BufReader::new(pipe).lines() {
                let word = line.context("reading the reverser's pipe")?;
                lines += 1;
                found += self.table.matches(&word)?.len();
            }
            Ok(())
        })();
        let reaped = procgroup::reap_blocking(pid).context("reaping the reverser")?;
        if interrupt::requested() {
            // Ctrl-C reached the reverser too: an interrupt, not a failed search.
            return Err(Interrupted.into());
        }
        outcome?;
        if reaped.end != procgroup::End::Exited(0) {
            bail!("the reverser ended with {:?}", reaped.end);
        }
        ensure!(
            lines == self.words.len(),
            "the reverser sent {lines} words, not {}",
            self.words.len()
        );
        Ok(found)
    }
}

/// Fork a process that writes every line of `words` reversed into a pipe and exits.
/// Returns the pipe's read end and the child's pid. The child only makes async-signal-safe
/// calls (no allocation: a fixed buffer on its stack), as a child of fork must.
fn spawn_reverser(words: &'static [u8]) -> Result<(OwnedFd, i32)> {
    let (read_end, write_end) = children::pipe()?;
    // SAFETY: the child runs only async-signal-safe code and leaves with _exit.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        let e = std::io::Error::last_os_error();
        let limit = procgroup::limit_hit(&e)
            .map(|l| format!(" ({l})"))
            .unwrap_or_default();
        bail!("cannot fork the reverser: {e}{limit}");
    }
    if pid == 0 {
        // Closing is async-signal-safe, as everything the child does.
        drop(read_end);
        let _ = procgroup::reset_signals_in_child();
        let code = if reverse_into(words, write_end.as_raw_fd()) {
            0
        } else {
            1
        };
        // SAFETY: ends the forked child at once, without the parent's destructors.
        unsafe { libc::_exit(code) };
    }
    drop(write_end);
    Ok((read_end, pid))
}

/// The reverser's whole work: each line reversed, buffered in 4 KiB, written to `fd`.
fn reverse_into(words: &[u8], fd: i32) -> bool {
    let mut buf = [0u8; 4096];
    let mut used = 0;
    for line in words.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        if line.len() + 1 > buf.len() {
            return false;
        }
        if used + line.len() + 1 > buf.len() {
            if !write_all(fd, &buf[..used]) {
                return false;
            }
            used = 0;
        }
        for (i, b) in line.iter().rev().enumerate() {
            buf[used + i] = *b;
        }
        buf[used + line.len()] = b'\n';
        used += line.len() + 1;
    }
    write_all(fd, &buf[..used])
}

fn write_all(fd: i32, mut bytes: &[u8]) -> bool {
    while !bytes.is_empty() {
        // SAFETY: bytes is a valid slice.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return false;
        }
        bytes = &bytes[n as usize..];
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bundled password file's users: (name, password, salt). Passwords are words of
    /// the list, reversed words of the list, or neither.
    const USERS: &[(&str, &str, &str)] = &[
        ("ken", "processor", "ab"),
        ("dmr", "trusted", "q7"),
        ("bwk", "kernel", "Zx"),
        ("doug", "diagnostics", "m3"),
        ("joe", "controller", "ab"),
        ("rob", "terminal", "q7"),
        ("lorinda", "enihcam", "Zx"),
        ("brian", "gnippaws", "m3"),
        ("martin", "relipmoc", "ab"),
        ("sandra", "srotarepo", "q7"),
        ("dave", "xyzzy42", "Zx"),
        ("mike", "Tr0ub4dor", "m3"),
        ("root", "plugh", "ab"),
        ("guest", "frobnicate", "q7"),
    ];

    /// `cargo test --release -- --ignored print_password_file` prints the bundled file.
    #[test]
    #[ignore]
    fn print_password_file() {
        println!("# mixed.crypt's password file (generated by the test print_password_file)");
        for (name, pw, salt) in USERS {
            let h = hash(pw, salt, 1000).unwrap();
            let hex: String = h.iter().map(|b| format!("{b:02x}")).collect();
            println!("{name}:sha256crypt,1000,{salt},{hex}");
        }
    }

    #[test]
    fn the_bundled_file_holds_exactly_the_listed_users() {
        let table = PasswordTable::parse(assets::PASSWD).unwrap();
        assert_eq!(table.users.len(), USERS.len());
        for (name, pw, _) in USERS {
            assert_eq!(table.matches(pw).unwrap(), vec![*name]);
        }
        assert!(table.matches("not-a-password").unwrap().is_empty());
    }

    #[test]
    fn the_reverser_reverses_every_line_through_the_pipe() {
        let (fd, pid) = spawn_reverser(b"abc\nmachine\nx\n").unwrap();
        let mut out = String::new();
        use std::io::Read;
        std::fs::File::from(fd).read_to_string(&mut out).unwrap();
        assert_eq!(
            procgroup::reap_blocking(pid).unwrap().end,
            procgroup::End::Exited(0)
        );
        assert_eq!(out, "cba\nenihcam\nx\n");
    }

    #[test]
    fn a_wrong_password_file_fails_the_count_check() {
        let table =
            PasswordTable::parse(&format!("solo:sha256crypt,1000,ab,{}", "00".repeat(32))).unwrap();
        let mut s = Search::new(table, "kernel\n");
        let err = s.run(1).unwrap_err().to_string();
        assert!(err.contains("expected 6"), "{err}");
    }
}
