//! The run option `cpu.cache` reads (see [`crate::harness::options`]).

use crate::harness::options::{FamilyOptions, Kind, RowOption};

pub const OPTIONS: FamilyOptions = FamilyOptions {
    options: &[RowOption {
        name: "cache-max",
        value_name: "SIZE",
        help: "The largest array cpu.cache sweeps to (e.g. 1G) [default: 8 × the last cache \
               level]",
        kind: Kind::Size {
            min: 1,
            max: u64::MAX,
        },
        read_by: &["cpu.cache"],
        set: |o, v| o.cache_max = v.number(),
    }],
    check: None,
};
