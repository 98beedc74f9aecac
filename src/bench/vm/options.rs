//! The run options the paging rows read (see [`crate::harness::options`]), and their check
//! against each other and this machine's memory.

use crate::harness::options::{FamilyOptions, Kind, RowOption};

/// The vm rows that page through `--pages` of memory (`vm.pagefault` and `vm.mmap` do
/// not).
const PAGING_ROWS: &[&str] = &["vm.seqpage", "vm.randpage", "vm.gausspage"];

pub const OPTIONS: FamilyOptions = FamilyOptions {
    options: &[
        RowOption {
            name: "pages",
            value_name: "N",
            help: "Pages the paging rows allocate (default 7500, as in seed 001's run script)",
            kind: Kind::Count {
                min: 1,
                max: u64::MAX,
            },
            read_by: PAGING_ROWS,
            set: |o, v| o.pages = v.number(),
        },
        RowOption {
            name: "memory-limit",
            value_name: "SIZE",
            help: "Run the paging rows inside a memory cgroup limited to SIZE (e.g. 12M), so \
                   they page; smaller than 2M cannot run a process",
            kind: Kind::Size {
                min: 2 << 20,
                max: u64::MAX,
            },
            read_by: PAGING_ROWS,
            set: |o, v| o.memory_limit = v.number(),
        },
    ],
    check: Some(super::check_options),
};
