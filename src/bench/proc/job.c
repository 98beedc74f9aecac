/*
 * Seed 001's "null job" and "big job" (Appendix A, nulljob and bigjob), the programs the
 * exec rows run: the smallest program the system can run, and the same with 250 KB of
 * initialised data ("250 here is intended to approximate vi's text+data size").
 *
 * The seed's programs were `main() { exit(0); }` linked statically, as everything was on
 * 4.2BSD. Here there is no C library and no dynamic loader at all: the kernel maps the
 * file and jumps to _start, which makes the exit system call. What an exec row measures
 * is then the kernel's exec, not a loader's or a runtime's start-up.
 *
 * build.rs compiles this file twice, with -static -nostdlib, the second time with
 * TIMESHARE_BIG_JOB defined; timeshare carries both executables inside itself and writes
 * them to the benchmark's scratch directory before running them.
 */

#ifdef TIMESHARE_BIG_JOB
/* As the seed: initialised and writable, so it lands in .data (size's "data" column),
 * not in read-only data or the zero-filled .bss. */
__attribute__((used)) char space[1024 * 250] = "force into data segment";
#endif

__attribute__((noreturn, used)) void _start(void)
{
#if defined(__x86_64__)
	__asm__ volatile("mov $60, %eax\n\t" /* SYS_exit */
			 "xor %edi, %edi\n\t" /* status 0 */
			 "syscall");
#elif defined(__aarch64__)
	__asm__ volatile("mov x0, #0\n\t" /* status 0 */
			 "mov x8, #93\n\t" /* SYS_exit */
			 "svc #0");
#else
#error "the null job has no exit system call written for this architecture"
#endif
	__builtin_unreachable();
}
