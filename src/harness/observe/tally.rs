//! The tally of system calls both counting paths fill: the record path
//! ([`super::callmix`]) from the tracepoints' records, the kernel path ([`super::kcount`])
//! from its BPF maps. What is counted per (process, command, call), whose calls are left
//! out, and how many are timed.

use std::collections::HashMap;

/// Whose calls the count leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaveOut {
    /// This whole process (it only observes).
    ThisProcess,
    /// Only this process's observing threads ([`super::register_observer_thread`]): the
    /// rest of it is the workload being observed.
    ObserverThreads,
}

/// Whether the calls counted are timed as well, and how many of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallTimes {
    /// Counted at their entry only (`--no-call-times`): no exit traced.
    Off,
    /// One call in N of each number on each CPU timed, the first included (1: every call),
    /// the others counted at their entry. In the kernel only: the record path times every
    /// call, its cost being the records, not the clock.
    OneIn(u32),
}

impl CallTimes {
    /// One call in 16: on the VM of docs/observe.md the two clock reads of a timed call
    /// were two thirds of what counting it cost; sampled, they are a sixteenth of that.
    pub const DEFAULT: CallTimes = CallTimes::OneIn(16);

    /// N of "one in N" (1 when every call, or none, is timed).
    pub fn one_in(self) -> u32 {
        match self {
            CallTimes::Off => 1,
            CallTimes::OneIn(n) => n.max(1),
        }
    }
}

/// Whether calls are told apart by process, or only by command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Processes {
    /// By process, forks kept: the observed command's tree is counted apart. What is kept
    /// grows with the processes the span sees.
    #[default]
    Apart,
    /// By command name alone (a span of the whole machine, which has no tree): what is
    /// kept stays as small over a day of short-lived processes as over a minute.
    Together,
}

/// One record of the stream, decoded.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Event {
    Enter { pid: u32, tid: u32, id: u32 },
    Exit { pid: u32, tid: u32, id: u32 },
    Fork { pid: u32, ppid: u32 },
    Comm { pid: u32, name: String },
    Lost(u64),
}

/// Calls counted and timed, for one (process, command, call) or one call.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Tallied {
    pub(super) count: u64,
    pub(super) timed: u64,
    pub(super) ns: u64,
    pub(super) unfinished: u64,
}

/// A thread inside a call.
#[derive(Debug, Clone, Copy)]
pub(super) struct InCall {
    pub(super) id: u32,
    pub(super) since: u64,
    pub(super) key: (u32, u32, u32),
}

/// What the reader thread has counted so far.
#[derive(Default)]
pub(super) struct Tally {
    /// (pid, command index, call number) → calls.
    pub(super) counts: HashMap<(u32, u32, u32), Tallied>,
    pub(super) commands: Vec<String>,
    pub(super) command_of: HashMap<u32, u32>,
    pub(super) parent_of: HashMap<u32, u32>,
    pub(super) lost: u64,
    /// Whether exits are read (calls timed).
    pub(super) timing: bool,
    pub(super) in_call: HashMap<u32, InCall>,
    pub(super) exits_unentered: u64,
    pub(super) unpaired: u64,
    /// Whether calls are kept by process (and forks with them), or under process 0.
    pub(super) processes: Processes,
}

impl Tally {
    pub(super) fn command_index(&mut self, name: String) -> u32 {
        match self.commands.iter().position(|c| *c == name) {
            Some(i) => i as u32,
            None => {
                self.commands.push(name);
                (self.commands.len() - 1) as u32
            }
        }
    }

    /// The process a call of `pid` is counted under: itself, or 0 when processes are
    /// counted together.
    fn keyed(&self, pid: u32) -> u32 {
        match self.processes {
            Processes::Apart => pid,
            Processes::Together => 0,
        }
    }

    /// The command of `pid`: from its comm or fork record, else /proc (a process that
    /// was running before the span began), else its number.
    pub(super) fn command_of(&mut self, pid: u32) -> u32 {
        if let Some(&i) = self.command_of.get(&pid) {
            return i;
        }
        let name = std::fs::read_to_string(format!("/proc/{pid}/comm"))
            .map(|s| s.trim_end().to_string())
            .unwrap_or_else(|_| format!("[pid {pid}]"));
        let i = self.command_index(name);
        self.command_of.insert(pid, i);
        i
    }

    /// Take one event at `time`; returns the calls it added.
    pub(super) fn take(&mut self, time: u64, event: Event, mine: &Mine) -> u64 {
        match event {
            Event::Enter { pid, tid, id } => {
                if mine.made(pid, tid) {
                    return 0;
                }
                let key = (self.keyed(pid), self.command_of(pid), id);
                self.counts.entry(key).or_default().count += 1;
                if self.timing {
                    let never_returns =
                        [libc::SYS_exit, libc::SYS_exit_group].contains(&(id as libc::c_long));
                    let before = if never_returns {
                        self.in_call.remove(&tid)
                    } else {
                        self.in_call.insert(
                            tid,
                            InCall {
                                id,
                                since: time,
                                key,
                            },
                        )
                    };
                    if before.is_some() {
                        self.unpaired += 1;
                    }
                }
                1
            }
            Event::Exit { pid, tid, id } => {
                if mine.made(pid, tid) {
                    return 0;
                }
                match self.in_call.remove(&tid) {
                    // rt_sigreturn restores the registers its exit reads the call's number
                    // from, which then says -1.
                    Some(c) if (c.id == id || id == u32::MAX) && time >= c.since => {
                        let t = self.counts.entry(c.key).or_default();
                        t.timed += 1;
                        t.ns += time - c.since;
                    }
                    Some(_) => self.unpaired += 1,
                    None => self.exits_unentered += 1,
                }
                0
            }
            Event::Fork { pid, ppid } => {
                if pid != ppid {
                    if self.processes == Processes::Apart {
                        self.parent_of.insert(pid, ppid);
                    }
                    if let Some(&c) = self.command_of.get(&ppid) {
                        self.command_of.insert(pid, c);
                    }
                }
                0
            }
            Event::Comm { pid, name } => {
                let i = self.command_index(name);
                self.command_of.insert(pid, i);
                0
            }
            Event::Lost(n) => {
                self.lost += n;
                0
            }
        }
    }
}

/// The observer's own calls, to leave out: the process, or only some of its threads.
pub(super) struct Mine {
    pub(super) pid: u32,
    pub(super) threads: Option<Vec<u32>>,
}

impl Mine {
    pub(super) fn made(&self, pid: u32, tid: u32) -> bool {
        pid == self.pid && self.threads.as_ref().is_none_or(|t| t.contains(&tid))
    }
}
