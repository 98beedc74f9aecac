//! Seed 003's tables' layouts.

use super::*;
use crate::reference;

#[rustfmt::skip]
pub const TABLES: &[SeedTable] = &[
    SeedTable { key: "003-c16", seed: "003", prefix: "C statements (16 bits)", title: "C statements, 16-bit integers",
        paper: reference::paper_lines, ..T },
    SeedTable { key: "003-c32", seed: "003", prefix: "C statements (32 bits)", title: "C statements, 32-bit integers",
        paper: reference::paper_lines, ..T },
    SeedTable { key: "003-kashtan", seed: "003", prefix: "Kashtan", title: "Kashtan programs kt5–kt11 (real, user, sys)",
        quantities: HUS, all_shown: true,
        why: &["the note's User and Sys are set beside today's for the programs of one process \
                (kt5, kt6, kt8, kt9); kt7, kt10 and kt11 run two, and the note's times are most \
                likely of both (time(1) counts a child the program waited for) where today's \
                count the measuring process and the children reaped during the samples only, \
                not a partner living across them: their historical user and system are not \
                transcribed (—). For the rates (kt5, kt9–kt11) user and system are shares (%) of \
                the real time, the note's (its seconds over its real time) as today's; for the \
                others seconds per operation. kt8's user is 0.0 in the note, under its tenth \
                of a second: left out",
               "the kernel splits CPU time into user and system by its clock tick: a 0 is a \
                share no tick saw, and a single process's share can come out a few percent \
                over 100%"], ..T },
    SeedTable { key: "003-zilog", seed: "003", prefix: "Zilog", title: "Zilog programs",
        ids: &["io.disk.seqwrite", "io.disk.seqread", "io.disk.randread"],
        paper: reference::paper_lines,
        why: &["the disk test's columns hold three figures each for four machines (the line \
                above) and the note does not say which machine has none. Its other disk test, \
                the Kashtan table, has no Accent column, so a missing Accent is the likeliest \
                reading, but a guess: a figure set in the wrong machine's column would make a \
                wrong ratio, so the (today) rows have no historical figure beside them"], ..T },
];
