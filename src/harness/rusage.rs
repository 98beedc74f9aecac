//! getrusage: CPU time of this process and its reaped children, and the measuring thread's
//! involuntary context switches (the preemptions that mark a sample as perturbed).

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    pub user_s: f64,
    pub system_s: f64,
    pub minor_faults: u64,
    pub major_faults: u64,
    pub voluntary_switches: u64,
    pub involuntary_switches: u64,
}

fn get(who: libc::c_int) -> Usage {
    // SAFETY: rusage is plain data that getrusage fills.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(who, &mut ru);
        ru
    };
    let secs = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 * 1e-6;
    Usage {
        user_s: secs(ru.ru_utime),
        system_s: secs(ru.ru_stime),
        minor_faults: ru.ru_minflt as u64,
        major_faults: ru.ru_majflt as u64,
        voluntary_switches: ru.ru_nvcsw as u64,
        involuntary_switches: ru.ru_nivcsw as u64,
    }
}

/// This process plus every child it has reaped.
pub fn process_and_children() -> Usage {
    get(libc::RUSAGE_SELF).plus(&get(libc::RUSAGE_CHILDREN))
}

/// Every child this process has reaped (and their reaped descendants).
pub fn children() -> Usage {
    get(libc::RUSAGE_CHILDREN)
}

/// The calling thread alone (faults and CPU time of one job run in it).
pub fn this_thread() -> Usage {
    get(libc::RUSAGE_THREAD)
}

/// The calling thread's involuntary context switches so far.
#[inline]
pub fn thread_preemptions() -> u64 {
    get(libc::RUSAGE_THREAD).involuntary_switches
}

/// This process alone: every thread of it, none of its children.
pub fn this_process() -> Usage {
    get(libc::RUSAGE_SELF)
}

/// What a multi-process row's driver costs: this process's CPU time and its reaped
/// children's, from the moment it was started.
#[derive(Debug, Clone, Copy)]
pub struct DriverMeter {
    process: Usage,
    children: Usage,
}

impl DriverMeter {
    pub fn start() -> DriverMeter {
        DriverMeter {
            process: this_process(),
            children: children(),
        }
    }

    /// (this process's, its children's) user + system seconds since the start.
    pub fn read(&self) -> (f64, f64) {
        (
            this_process().since(&self.process).cpu_s(),
            children().since(&self.children).cpu_s(),
        )
    }
}

impl Usage {
    /// User + system seconds.
    pub fn cpu_s(&self) -> f64 {
        self.user_s + self.system_s
    }

    pub fn plus(&self, o: &Usage) -> Usage {
        Usage {
            user_s: self.user_s + o.user_s,
            system_s: self.system_s + o.system_s,
            minor_faults: self.minor_faults + o.minor_faults,
            major_faults: self.major_faults + o.major_faults,
            voluntary_switches: self.voluntary_switches + o.voluntary_switches,
            involuntary_switches: self.involuntary_switches + o.involuntary_switches,
        }
    }

    /// `self − earlier`, never below zero.
    pub fn since(&self, earlier: &Usage) -> Usage {
        Usage {
            user_s: (self.user_s - earlier.user_s).max(0.0),
            system_s: (self.system_s - earlier.system_s).max(0.0),
            minor_faults: self.minor_faults.saturating_sub(earlier.minor_faults),
            major_faults: self.major_faults.saturating_sub(earlier.major_faults),
            voluntary_switches: self
                .voluntary_switches
                .saturating_sub(earlier.voluntary_switches),
            involuntary_switches: self
                .involuntary_switches
                .saturating_sub(earlier.involuntary_switches),
        }
    }
}
