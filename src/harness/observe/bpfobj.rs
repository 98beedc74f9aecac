//! What the three BPF loaders (the call counter `kcount`, the kernel sampler `ksample`
//! and the page-cache counter `kcache`) share: finding a program in a loaded object, and
//! saying a refusal in one line.

/// The program `name` of a loaded object, or an error naming it.
pub(super) fn program<'a>(
    bpf: &'a mut aya::Ebpf,
    name: &str,
) -> anyhow::Result<&'a mut aya::programs::Program> {
    bpf.program_mut(name)
        .ok_or_else(|| anyhow::anyhow!("no program {name} in the BPF object"))
}

/// An error without the verifier's log of every instruction it walked: what it said, and
/// its last line (why it refused).
pub(super) fn verdict_of(e: &anyhow::Error) -> String {
    let text = format!("{e:#}");
    match text.split_once("Verifier output:") {
        Some((said, log)) => {
            let why = log
                .lines()
                .flat_map(|l| l.split("\\n"))
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with("verification time"))
                .filter(|l| !l.starts_with("processed ") && !l.starts_with("stack depth"))
                .last()
                .unwrap_or("no reason given");
            format!("{} the verifier refused it: {why}", said.trim_end())
        }
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_is_said_in_one_line_without_the_verifiers_walk() {
        let log = "the BPF_PROG_LOAD syscall failed. Verifier output: 0: R1=ctx() R10=fp0\\n\
                   1: (85) call bpf_get_current_pid_tgid#14\\nBPF program is too large. \
                   Processed 1000001 insn\\nverification time 5271878 usec\\nstack depth 184\\n\
                   processed 1000001 insns (limit 1000000)\\n";
        let said = verdict_of(&anyhow::anyhow!(log));
        assert_eq!(
            said,
            "the BPF_PROG_LOAD syscall failed. the verifier refused it: BPF program is too \
             large. Processed 1000001 insn"
        );
        assert_eq!(verdict_of(&anyhow::anyhow!("no such file")), "no such file");
    }
}
