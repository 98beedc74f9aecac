//! The paper's work in the machine code: each test takes the functions behind a row, as this
//! build compiled them (run with `--release` to check the release code; scripts/test.sh
//! does), disassembles them with binutils' `objdump`, and asserts the structure the paper
//! timed. A row whose figure rests on a compiler not folding, hoisting or turning calls
//! into jumps is checked here, not trusted.
//!
//! - `call.nested5.noargs`, `call.nested5`, `call.nested5.byref` (003 §3, "5 nested proc
//!   calls"): each of levels 1–4 holds a `call` (not a `jmp`) to the next level, and for
//!   the rows with parameters the three argument registers are written before that call,
//!   so the parameters are passed at every level.
//! - `cpu.stmt.T.{add,sub,mul,div,mod}` for every type T: the unrolled loop of the row
//!   holds eight instances of the operation (one per unrolled statement: none hoisted out
//!   or folded into fewer), and for floats' `mod` eight calls (to `fmod`).
//! - `cpu.stmt.T.{for10,while10,repeat10}`: an inner loop of the row compares and jumps
//!   back (the ten iterations are not computed away).
//!
//! The functions are found through their addresses in this process (a function pointer),
//! mapped back to the executable's file through /proc/self/maps, and their extent through
//! `nm -S`: generic instances of the statement rows all bear the same symbol name.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use crate::bench::cpu::stmt::{self, Num, Stmt, StmtWorkload};
use crate::bench::syscall::calls;
use crate::harness::contract::Workload;

/// One decoded instruction: its file address, mnemonic and operands (Intel syntax, so the
/// destination comes first).
#[derive(Debug, Clone)]
struct Insn {
    addr: u64,
    mnemonic: String,
    operands: String,
}

impl Insn {
    /// The address a direct call or jump goes to.
    fn target(&self) -> Option<u64> {
        let hex = self.operands.split_whitespace().next()?;
        u64::from_str_radix(hex, 16).ok()
    }

    fn writes(&self, reg: &str) -> bool {
        self.operands
            .split(',')
            .next()
            .is_some_and(|dst| dst.trim() == reg)
    }
}

/// The running test executable: where it is loaded, and its functions' extents.
struct Image {
    exe: PathBuf,
    load_base: u64,
    /// file address -> size in bytes.
    sizes: HashMap<u64, u64>,
    /// file address -> symbol name (mangled).
    names: HashMap<u64, String>,
    /// A global-offset-table slot -> the function it holds (calls to a library function
    /// go through one: `call QWORD PTR [rip+...]`).
    slots: HashMap<u64, u64>,
}

fn image() -> &'static Image {
    static IMAGE: OnceLock<Image> = OnceLock::new();
    IMAGE.get_or_init(|| {
        let exe = std::fs::read_link("/proc/self/exe").expect("/proc/self/exe");
        let (sizes, names) = functions(&exe);
        Image {
            load_base: load_base(&exe),
            sizes,
            names,
            slots: table_slots(&exe),
            exe,
        }
    })
}

/// Where the executable's first segment (file offset 0) is mapped: the slide of a
/// position-independent executable, 0 for a fixed one.
fn load_base(exe: &std::path::Path) -> u64 {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let header = std::fs::read(exe).unwrap();
    let position_independent = header[16] == 3; // ET_DYN
    if !position_independent {
        return 0;
    }
    let exe = exe.to_string_lossy();
    for line in maps.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() >= 6 && fields[5] == exe && fields[2] == "00000000" {
            let start = fields[0].split('-').next().unwrap();
            return u64::from_str_radix(start, 16).unwrap();
        }
    }
    panic!("{exe} is not in /proc/self/maps");
}

/// The executable's functions: their sizes and names by address.
fn functions(exe: &std::path::Path) -> (HashMap<u64, u64>, HashMap<u64, String>) {
    let out = tool(
        "nm",
        &["-S".as_ref(), "--defined-only".as_ref(), exe.as_os_str()],
    );
    let mut sizes = HashMap::new();
    let mut names = HashMap::new();
    for line in out.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 4 || !matches!(f[2], "t" | "T" | "W" | "w") {
            continue;
        }
        if let (Ok(a), Ok(s)) = (u64::from_str_radix(f[0], 16), u64::from_str_radix(f[1], 16)) {
            sizes
                .entry(a)
                .and_modify(|o: &mut u64| *o = (*o).max(s))
                .or_insert(s);
            names.entry(a).or_insert_with(|| f[3].to_string());
        }
    }
    (sizes, names)
}

/// The slots the dynamic loader fills with a function's relocated address
/// (`R_X86_64_RELATIVE *ABS*+0x…` in `objdump -R`).
fn table_slots(exe: &std::path::Path) -> HashMap<u64, u64> {
    let out = tool("objdump", &["-R".as_ref(), exe.as_os_str()]);
    out.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let slot = u64::from_str_radix(f.first()?, 16).ok()?;
            let target = f.get(2)?.strip_prefix("*ABS*+0x")?;
            Some((slot, u64::from_str_radix(target, 16).ok()?))
        })
        .collect()
}

fn tool<S: AsRef<std::ffi::OsStr>>(name: &str, args: &[S]) -> String {
    let out = Command::new(name)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{name} (binutils) is needed to read the machine code: {e}"));
    assert!(
        out.status.success(),
        "{name} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The file address of a function of this process.
fn file_addr(runtime: usize) -> u64 {
    runtime as u64 - image().load_base
}

/// The instructions of the function at `addr` (a file address).
fn disassemble(addr: u64) -> Vec<Insn> {
    let img = image();
    let size = *img
        .sizes
        .get(&addr)
        .unwrap_or_else(|| panic!("no function symbol at {addr:#x}"));
    let out = tool(
        "objdump",
        &[
            "-d".as_ref(),
            "--no-show-raw-insn".as_ref(),
            "-M".as_ref(),
            "intel".as_ref(),
            format!("--start-address={addr:#x}").as_ref(),
            format!("--stop-address={:#x}", addr + size).as_ref(),
            img.exe.as_os_str(),
        ],
    );
    let mut code: Vec<Insn> = out.lines().filter_map(parse_line).collect();
    name_callees(&mut code);
    code
}

/// Appends `=> name` to each call whose callee is found: a direct call, a call through a
/// table slot (`call QWORD PTR [rip+0x…] # slot`), or a call through a register loaded
/// from one earlier in the function (a loop calling a library function keeps its address
/// in a register).
fn name_callees(code: &mut [Insn]) {
    let img = image();
    let slot_of = |operands: &str| -> Option<u64> {
        let slot = operands.split('#').nth(1)?.split_whitespace().next()?;
        img.slots.get(&u64::from_str_radix(slot, 16).ok()?).copied()
    };
    let mut registers: HashMap<String, u64> = HashMap::new();
    for i in code.iter_mut() {
        if i.mnemonic == "mov" {
            let dst = i
                .operands
                .split(',')
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
            match slot_of(&i.operands) {
                Some(f) => registers.insert(dst, f),
                None => registers.remove(&dst),
            };
        }
        if i.mnemonic != "call" {
            continue;
        }
        let callee = i
            .target()
            .or_else(|| slot_of(&i.operands))
            .or_else(|| registers.get(i.operands.trim()).copied());
        if let Some(name) = callee.and_then(|a| img.names.get(&a)) {
            i.operands = format!("{} => {name}", i.operands);
        }
    }
}

/// `  6c0a31:\tcall   6c0a40 <name>` -> an instruction.
fn parse_line(line: &str) -> Option<Insn> {
    let (addr, rest) = line.trim_start().split_once(":\t")?;
    let addr = u64::from_str_radix(addr, 16).ok()?;
    let rest = rest.trim();
    let (mnemonic, operands) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    Some(Insn {
        addr,
        mnemonic: mnemonic.to_string(),
        operands: operands.trim().to_string(),
    })
}

/// The function's code and that of the functions it calls directly, one level down (a
/// row's `run` may call its statement's loop rather than inline it).
fn with_callees(addr: u64) -> Vec<Vec<Insn>> {
    let top = disassemble(addr);
    let mut all = vec![top.clone()];
    for i in top.iter().filter(|i| i.mnemonic == "call") {
        if let Some(t) = i.target().filter(|t| image().sizes.contains_key(t)) {
            all.push(disassemble(t));
        }
    }
    all
}

/// The loop bodies of a function: the instructions between a backward jump's target and
/// the jump.
fn loop_bodies(code: &[Insn]) -> Vec<&[Insn]> {
    let start = code.first().map_or(0, |i| i.addr);
    code.iter()
        .enumerate()
        .filter(|(_, i)| i.mnemonic.starts_with('j'))
        .filter_map(|(end, i)| {
            let t = i.target()?;
            if t > i.addr || t < start {
                return None;
            }
            let first = code.iter().position(|j| j.addr == t)?;
            Some(&code[first..=end])
        })
        .collect()
}

// ---- the nests ----

/// Asserts that `levels[k]` calls `levels[k + 1]` (a `call`, not a jump) and, when
/// `args`, writes the three argument registers before the call. Returns what it found
/// wrong, level by level, so a failure shows the whole nest.
fn nest_faults(name: &str, levels: &[usize], args: &[&str]) -> Vec<String> {
    let mut faults = Vec::new();
    for k in 0..levels.len() - 1 {
        let (here, next) = (file_addr(levels[k]), file_addr(levels[k + 1]));
        let code = disassemble(here);
        let Some(call) = code
            .iter()
            .position(|i| i.mnemonic == "call" && i.target() == Some(next))
        else {
            let listing: Vec<String> = code
                .iter()
                .map(|i| format!("{} {}", i.mnemonic, i.operands))
                .collect();
            faults.push(format!(
                "{name} level {}: no call to level {} ({next:#x}); its code: {}",
                k + 1,
                k + 2,
                listing.join("; ")
            ));
            continue;
        };
        for reg in args {
            if !code[..call].iter().any(|i| i.writes(reg)) {
                faults.push(format!(
                    "{name} level {}: the parameter in {reg} is not passed (not written before the call)",
                    k + 1
                ));
            }
        }
    }
    faults
}

#[test]
fn five_nested_levels_are_five_calls_with_their_parameters() {
    let no_args = calls::NO_ARGS.map(|f| f as usize);
    let by_value = calls::BY_VALUE.map(|f| f as usize);
    let by_ref = calls::BY_REF.map(|f| f as usize);
    let mut faults = nest_faults("call.nested5.noargs", &no_args, &[]);
    faults.extend(nest_faults(
        "call.nested5",
        &by_value,
        &["edi", "esi", "edx"],
    ));
    faults.extend(nest_faults(
        "call.nested5.byref",
        &by_ref,
        &["rdi", "rsi", "rdx"],
    ));
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

// ---- the statements ----

/// The code behind a statement row: its `Workload::run` and what that calls.
fn stmt_code<T: Num, S: Stmt<T>>() -> Vec<Vec<Insn>> {
    let run: fn(&mut StmtWorkload<T, S>, u64) -> anyhow::Result<()> =
        <StmtWorkload<T, S> as Workload>::run;
    with_callees(file_addr(run as usize))
}

/// The most instances of `op` in any one loop body of the row's code.
fn most_in_a_loop(code: &[Vec<Insn>], op: &dyn Fn(&Insn) -> bool) -> usize {
    code.iter()
        .flat_map(|f| loop_bodies(f))
        .map(|body| body.iter().filter(|i| op(i)).count())
        .max()
        .unwrap_or(0)
}

fn is_any(mnemonics: &'static [&'static str]) -> impl Fn(&Insn) -> bool {
    move |i| mnemonics.contains(&i.mnemonic.as_str())
}

/// A call to the C library's `fmod`/`fmodf` (its callee named by [`name_callees`]).
fn calls_fmod(i: &Insn) -> bool {
    i.mnemonic == "call" && i.operands.contains("fmod")
}

/// The statements of one type: (row, the operation's test).
fn arithmetic<T: Num>(float: bool) -> Vec<(String, usize)> {
    type Op = Box<dyn Fn(&Insn) -> bool>;
    let ty = std::any::type_name::<T>();
    let (add, sub, mul, div, rem): (Op, Op, Op, Op, Op) = if float {
        (
            Box::new(is_any(&["addss", "addsd"])),
            Box::new(is_any(&["subss", "subsd"])),
            Box::new(is_any(&["mulss", "mulsd"])),
            Box::new(is_any(&["divss", "divsd"])),
            Box::new(calls_fmod),
        )
    } else {
        // A wrapping add may be an `lea`; a 64-bit division LLVM checks at run time and
        // does in 32 bits (`div`) when it can, which stmt.rs's START rules out.
        (
            Box::new(is_any(&["add", "lea"])),
            Box::new(is_any(&["sub"])),
            Box::new(is_any(&["imul"])),
            Box::new(is_any(&["idiv", "div"])),
            Box::new(is_any(&["idiv", "div"])),
        )
    };
    vec![
        (
            format!("cpu.stmt.{ty}.add"),
            most_in_a_loop(&stmt_code::<T, stmt::Add>(), &add),
        ),
        (
            format!("cpu.stmt.{ty}.sub"),
            most_in_a_loop(&stmt_code::<T, stmt::Sub>(), &sub),
        ),
        (
            format!("cpu.stmt.{ty}.mul"),
            most_in_a_loop(&stmt_code::<T, stmt::Mul>(), &mul),
        ),
        (
            format!("cpu.stmt.{ty}.div"),
            most_in_a_loop(&stmt_code::<T, stmt::Div>(), &div),
        ),
        (
            format!("cpu.stmt.{ty}.mod"),
            most_in_a_loop(&stmt_code::<T, stmt::Mod>(), &rem),
        ),
    ]
}

#[test]
fn each_statement_s_unrolled_loop_holds_eight_of_its_operation() {
    let mut counts = arithmetic::<i16>(false);
    counts.extend(arithmetic::<i32>(false));
    counts.extend(arithmetic::<i64>(false));
    counts.extend(arithmetic::<f32>(true));
    counts.extend(arithmetic::<f64>(true));
    let short: Vec<String> = counts
        .iter()
        .filter(|(_, n)| *n < 8)
        .map(|(row, n)| format!("{row}: {n} in its busiest loop, not 8"))
        .collect();
    assert!(short.is_empty(), "{}", short.join("\n"));
}

fn ten_iterations_loop<T: Num, S: Stmt<T>>() -> bool {
    stmt_code::<T, S>().iter().any(|f| {
        loop_bodies(f)
            .iter()
            .any(|body| body.iter().any(|i| i.mnemonic == "cmp") && body.len() <= 16)
    })
}

#[test]
fn the_ten_iteration_loops_compare_and_jump_back() {
    fn of<T: Num>() -> Vec<(String, bool)> {
        let ty = std::any::type_name::<T>();
        vec![
            (
                format!("cpu.stmt.{ty}.for10"),
                ten_iterations_loop::<T, stmt::For10>(),
            ),
            (
                format!("cpu.stmt.{ty}.while10"),
                ten_iterations_loop::<T, stmt::While10>(),
            ),
            (
                format!("cpu.stmt.{ty}.repeat10"),
                ten_iterations_loop::<T, stmt::Repeat10>(),
            ),
        ]
    }
    let mut all = of::<i16>();
    all.extend(of::<i32>());
    all.extend(of::<i64>());
    let missing: Vec<&String> = all.iter().filter(|(_, ok)| !ok).map(|(r, _)| r).collect();
    assert!(
        missing.is_empty(),
        "no compare-and-jump-back loop in {missing:?}"
    );
}

/// The reader itself: a listing with a call and a backward jump is read as such.
#[test]
fn objdump_lines_are_read_as_instructions() {
    let call = parse_line("  6c0a31:\tcall   6c0a40 <timeshare::x::no_args_2>").unwrap();
    assert_eq!(
        (call.addr, call.mnemonic.as_str(), call.target()),
        (0x6c0a31, "call", Some(0x6c0a40))
    );
    let mov = parse_line("  6c0a20:\tmov    edi,DWORD PTR [rsp+0x4]").unwrap();
    assert!(mov.writes("edi") && !mov.writes("esi"));
    let code: Vec<Insn> = [
        "  10:\tadd    eax,ecx",
        "  12:\tcmp    eax,edx",
        "  14:\tjne    10 <f+0x0>",
    ]
    .iter()
    .filter_map(|l| parse_line(l))
    .collect();
    assert_eq!(loop_bodies(&code).len(), 1);
    assert_eq!(loop_bodies(&code[1..]).len(), 0);
}
