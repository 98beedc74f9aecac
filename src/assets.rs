//! The inputs timeshare brings with it, all written for the project (no downloads, no
//! third-party texts): a multi-file C program (the exerciser's `cc` job compiles it as one
//! file, `mixed.build` builds it with make), the exerciser's floating-point program,
//! manual page, editor text and script, and `mixed.crypt`'s word list and password file.

/// The C program's files, in build order: (name, text).
pub const CPROG_FILES: &[(&str, &str)] = &[
    ("common.h", include_str!("../assets/cprog/common.h")),
    ("rng.c", include_str!("../assets/cprog/rng.c")),
    ("sort.c", include_str!("../assets/cprog/sort.c")),
    ("bignum.c", include_str!("../assets/cprog/bignum.c")),
    ("life.c", include_str!("../assets/cprog/life.c")),
    ("queens.c", include_str!("../assets/cprog/queens.c")),
    ("expr.c", include_str!("../assets/cprog/expr.c")),
    ("text.c", include_str!("../assets/cprog/text.c")),
    ("matrix.c", include_str!("../assets/cprog/matrix.c")),
    ("main.c", include_str!("../assets/cprog/main.c")),
    ("Makefile", include_str!("../assets/cprog/Makefile")),
];

/// The Fortran library and its test program `mixed.fortran` builds (seed 000 Table 7):
/// (name, text), the builtin functions and I/O routines each in a file of its own.
pub const FORTRAN_FILES: &[(&str, &str)] = &[
    ("iabs2.f90", include_str!("../assets/fortran/iabs2.f90")),
    ("ipow.f90", include_str!("../assets/fortran/ipow.f90")),
    ("isqrt.f90", include_str!("../assets/fortran/isqrt.f90")),
    ("igcd.f90", include_str!("../assets/fortran/igcd.f90")),
    ("fsqrt.f90", include_str!("../assets/fortran/fsqrt.f90")),
    ("fexp.f90", include_str!("../assets/fortran/fexp.f90")),
    ("putint.f90", include_str!("../assets/fortran/putint.f90")),
    ("putreal.f90", include_str!("../assets/fortran/putreal.f90")),
    ("putline.f90", include_str!("../assets/fortran/putline.f90")),
    ("main.f90", include_str!("../assets/fortran/main.f90")),
    ("Makefile", include_str!("../assets/fortran/Makefile")),
];

/// The same program as one C file, as seed 004 compiled it: the header first, then every
/// `.c` file without its `#include "common.h"` line.
pub fn cprog_single_file() -> String {
    let mut out = String::new();
    for (name, text) in CPROG_FILES {
        if !(name.ends_with(".c") || name.ends_with(".h")) {
            continue;
        }
        for line in text.lines() {
            if line.trim() != "#include \"common.h\"" {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

pub const FLOAT_C: &str = include_str!("../assets/exercise/float.c");
pub const MANPAGE: &str = include_str!("../assets/exercise/exerciser.1");
pub const ED_TEXT: &str = include_str!("../assets/exercise/ed-text.txt");
pub const ED_SCRIPT: &str = include_str!("../assets/exercise/ed-script.ed");

pub const WORDS: &str = include_str!("../assets/mixed/words.txt");
pub const PASSWD: &str = include_str!("../assets/mixed/passwd");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_single_file_program_is_about_730_lines_and_self_contained() {
        let one = cprog_single_file();
        let lines = one.lines().count();
        assert!((700..=820).contains(&lines), "{lines} lines");
        assert!(!one.contains("#include \"common.h\""));
        assert!(one.contains("int main(void)"));
    }
}
