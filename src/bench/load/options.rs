//! The run options the `load` rows read (see [`crate::harness::options`]): how many
//! copies, users and readers (each number a row), and what the copies and the users do.

use crate::harness::options::{FamilyOptions, Kind, RowOption};

/// Numbers of processes, users or readers: more than this is a typing slip.
const MANY: u64 = 4096;

pub const OPTIONS: FamilyOptions = FamilyOptions {
    options: &[
        RowOption {
            name: "copies",
            value_name: "LIST",
            help: "Numbers of simultaneous copies, e.g. 1,2,4,8 (default 1,2,5,10,15)",
            kind: Kind::List { min: 1, max: MANY },
            read_by: &["load.cpu"],
            set: |o, v| o.load.copies = v.list(),
        },
        RowOption {
            name: "users",
            value_name: "LIST",
            help: "Numbers of simultaneous users (default 1,5,9)",
            kind: Kind::List { min: 1, max: MANY },
            read_by: &["load.script"],
            set: |o, v| o.load.users = v.list(),
        },
        RowOption {
            name: "readers",
            value_name: "LIST",
            help: "Numbers of concurrent readers, 0 = alone (default 0,1,2,3,4)",
            kind: Kind::List { min: 0, max: 64 },
            read_by: &["load.iointerference"],
            set: |o, v| o.load.readers = v.list(),
        },
        RowOption {
            name: "footprint-mib",
            value_name: "MIB",
            help: "Memory each copy touches, in MiB (default 16)",
            kind: Kind::Count {
                min: 1,
                max: 1 << 20,
            },
            read_by: &["load.cpu"],
            set: |o, v| o.load.footprint_mib = v.number(),
        },
        RowOption {
            name: "script",
            value_name: "NAME|FILE",
            help: "The command script: `user1975` (default), `dev`, or a script file",
            kind: Kind::Text {
                check: check_script,
            },
            read_by: &["load.script"],
            set: |o, v| o.load.script = v.text(),
        },
        RowOption {
            name: "stagger",
            value_name: "SECONDS",
            help: "Seconds between two users' starts (default: one user's script time / 16)",
            kind: Kind::Seconds {
                min: 0.0,
                max: 3600.0,
            },
            read_by: &["load.script"],
            set: |o, v| o.load.stagger_s = v.seconds(),
        },
        RowOption {
            name: "command-timeout",
            value_name: "SECONDS",
            help: "Kill a command still running after SECONDS; it counts as timed out and \
                   the row fails (default 300)",
            kind: Kind::Seconds {
                min: 0.01,
                max: 86400.0,
            },
            read_by: &["load.script"],
            set: |o, v| o.load.command_timeout_s = v.seconds(),
        },
        RowOption {
            name: "run-timeout",
            value_name: "SECONDS",
            help: "Stop one staggered run of every user still going after SECONDS (default \
                   1200)",
            kind: Kind::Seconds {
                min: 0.01,
                max: 86400.0,
            },
            read_by: &["load.script"],
            set: |o, v| o.load.run_timeout_s = v.seconds(),
        },
    ],
    check: None,
};

/// A script that does not parse is refused before anything runs.
fn check_script(name_or_file: &str) -> Result<(), String> {
    super::script::load(Some(name_or_file))
        .map(|_| ())
        .map_err(|e| format!("{e:#}"))
}
