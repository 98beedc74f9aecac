//! The kernel's functions by address, from `/proc/kallsyms`, for naming the frames the
//! BPF sampler ([`super::ksample`]) counts. Read once when sampling starts: regenerating
//! the file costs the kernel tens of milliseconds, too much to repeat each window.

use std::io::BufRead;
use std::path::Path;

/// The kernel's text symbols, sorted by address; each name once in one string.
#[derive(Debug, Default)]
pub struct KernelSymbols {
    /// (address, start of the name in `names`, its length).
    table: Vec<(u64, u32, u32)>,
    names: String,
}

impl KernelSymbols {
    /// Read `/proc/kallsyms`, or say why its addresses cannot be used.
    pub fn load() -> Result<KernelSymbols, String> {
        Self::load_from(Path::new("/proc/kallsyms"))
    }

    fn load_from(path: &Path) -> Result<KernelSymbols, String> {
        // Line by line: the file is megabytes, and only the text symbols are kept.
        let file = std::fs::File::open(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let symbols =
            Self::parse_lines(std::io::BufReader::new(file).lines().map_while(Result::ok));
        if symbols.table.is_empty() {
            return Err(format!(
                "{} shows no addresses (kernel.kptr_restrict hides them from this user)",
                path.display()
            ));
        }
        Ok(symbols)
    }

    /// The text symbols (`t`, `T`, `w`, `W`) of kallsyms' lines, `ADDRESS TYPE NAME
    /// [MODULE]`; lines whose address is zero (hidden) are left out.
    pub fn parse(text: &str) -> KernelSymbols {
        Self::parse_lines(text.lines().map(str::to_string))
    }

    fn parse_lines(lines: impl Iterator<Item = String>) -> KernelSymbols {
        let mut s = KernelSymbols::default();
        for line in lines {
            let mut words = line.split_whitespace();
            let (Some(addr), Some(kind), Some(name)) = (words.next(), words.next(), words.next())
            else {
                continue;
            };
            if !matches!(kind, "t" | "T" | "w" | "W") {
                continue;
            }
            let Ok(addr) = u64::from_str_radix(addr, 16) else {
                continue;
            };
            if addr == 0 {
                continue;
            }
            let start = s.names.len() as u32;
            s.names.push_str(name);
            s.table.push((addr, start, name.len() as u32));
        }
        s.table.sort_unstable_by_key(|&(a, ..)| a);
        s.table.shrink_to_fit();
        s.names.shrink_to_fit();
        s
    }

    /// The function holding `addr`: the nearest symbol at or below it. A return address
    /// (every frame but the leaf) lies inside its caller, so the same rule names it.
    pub fn name_of(&self, addr: u64) -> Option<&str> {
        let i = self.table.partition_point(|&(a, ..)| a <= addr);
        let &(_, start, len) = self.table.get(i.checked_sub(1)?)?;
        self.names.get(start as usize..(start + len) as usize)
    }

    /// Symbols known.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_named_by_the_function_at_or_below_it() {
        let s = KernelSymbols::parse(
            "ffffffff81000200 T do_syscall_64\n\
             ffffffff81000000 T _stext\n\
             ffffffff81000100 t helper\n\
             ffffffff81000180 D some_data\n\
             ffffffffc0000000 t xfs_read\t[xfs]\n",
        );
        assert_eq!(s.len(), 4, "data symbols are left out");
        assert_eq!(s.name_of(0xffffffff81000210), Some("do_syscall_64"));
        assert_eq!(s.name_of(0xffffffff81000100), Some("helper"));
        assert_eq!(
            s.name_of(0xffffffff810001ff),
            Some("helper"),
            "not the data"
        );
        assert_eq!(s.name_of(0xffffffffc0000040), Some("xfs_read"));
        assert_eq!(s.name_of(0xffff000000000000), None, "below every symbol");
    }

    #[test]
    fn hidden_addresses_are_refused_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kallsyms");
        std::fs::write(
            &path,
            "0000000000000000 T do_syscall_64\n0000000000000000 t helper\n",
        )
        .unwrap();
        let why = KernelSymbols::load_from(&path).unwrap_err();
        assert!(why.contains("kptr_restrict"), "{why}");
    }
}
