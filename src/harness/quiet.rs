//! Is the machine quiet enough to measure? Seed 002 built "a quiet system ... no daemons or
//! other processes running". We cannot build one, but we can say when it is not.

use crate::model::Environment;

/// Warnings about the state of the machine that will disturb the figures.
pub fn warnings(env: &Environment) -> Vec<String> {
    let mut w = Vec::new();
    let cpus = env.cpu.logical.max(1) as f64;
    if env.load_average[0] > 0.25 * cpus {
        w.push(format!(
            "load average {:.2} on {} CPUs: other work competes for the processor; \
             figures will be noisier",
            env.load_average[0], env.cpu.logical
        ));
    }
    if !env.busy_processes.is_empty() {
        w.push(format!(
            "other runnable processes: {}",
            env.busy_processes.join(", ")
        ));
    }
    if let Some(g) = &env.governor {
        if g != "performance" {
            w.push(format!(
                "CPU frequency governor is '{g}', not 'performance': the clock rate may \
                 change during the run"
            ));
        }
    }
    if let Some(v) = &env.virtualization {
        w.push(format!(
            "running in a virtual machine ({v}): the hypervisor may steal time; \
             culled-sample counts show how much"
        ));
    }
    if let Some(q) = &env.cpu_quota {
        w.push(format!(
            "a cgroup CPU quota is set ({q}): throttling can stall samples"
        ));
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quiet_machine_gets_no_warning_and_a_loaded_one_does() {
        let mut env = Environment::default();
        env.cpu.logical = 2;
        assert!(warnings(&env).is_empty());
        env.load_average = [1.9, 1.0, 0.5];
        env.governor = Some("powersave".into());
        let w = warnings(&env);
        assert!(w.iter().any(|m| m.contains("load average 1.90")));
        assert!(w.iter().any(|m| m.contains("powersave")));
    }
}
