/*
 * exec-target: allocations made before an exec, for the tests of how
 * faultline follows a process through exec (tests/system/exec-image.sh).
 *
 * Usage: exec-target PROG [ARG...]
 *
 * main -> before_exec, then execv(PROG, PROG ARG...) under the same pid:
 *   pre_small  64 x malloc(1000), kept.  The first call makes the brk heap;
 *              64 KB of it, whose pages the exec'd program's own first
 *              blocks are likely to reuse (with setarch -R its heap starts
 *              where its larger bss ends, a few pages further).  Nothing
 *              touches these blocks: only malloc writes in them.
 *   pre_big    1 x malloc(1 MiB): above glibc's mmap threshold, so one
 *              mmap(2) of its own, whose 16-byte chunk header malloc
 *              writes (the block's first page faults inside malloc).
 *              pre_touch then writes the first byte of the block's first
 *              PRE_TOUCH pages, in order: the first page is present
 *              already, so PRE_TOUCH - 1 faults, and PRE_TOUCH pages of
 *              the block fault in all (huge pages are off: PR_SET_THP_DISABLE,
 *              which the exec'd program keeps).
 * None of these is freed: the exec frees the whole image, so a tool that
 * follows exec reports none of them as outstanding after it, and no fault
 * of PROG's (whose heap and first mappings may lie at the very addresses
 * these had, with setarch -R) belongs to them.
 *
 * Ground truth, with write(2) before the exec (stdio would malloc; its
 * buffer would not be flushed by exec either), each line "pre "-prefixed
 * so that PROG's own account, which follows on the same stdout, reads as
 * it does alone:
 *   pre site fn=pre_small bytes=64000 count=64
 *   pre site fn=pre_big bytes=1048576 count=1
 *   pre faults fn=pre_big pages=PRE_TOUCH
 *   pre addr fn=NAME start=0x... end=0x...   one per block, bytes asked
 *   pre pid=P
 * Exit status: PROG's; 1 when a call fails (exec included), 2 on usage.
 */
#define TRUTH_PROG "exec-target"
#define TRUTH_USAGE "usage: exec-target PROG [ARG...]\n"
#include "truth.h"

enum { SMALL = 64, SMALL_SIZE = 1000, BIG_SIZE = 1 << 20, PRE_TOUCH = 8 };

static void *kept[SMALL + 1];
static struct out o;

static __attribute__((noinline, noipa)) void pre_small(void)
{
	for (int i = 0; i < SMALL; i++)
		kept[i] = malloc(SMALL_SIZE);
}

static __attribute__((noinline, noipa)) void pre_big(void)
{
	kept[SMALL] = malloc(BIG_SIZE);
}

static __attribute__((noinline, noipa)) void pre_touch(volatile char *p, long psz)
{
	for (int i = 0; i < PRE_TOUCH; i++)
		p[(long)i * psz] = 1;
}

static __attribute__((noinline, noipa)) void before_exec(long psz)
{
	pre_small();
	pre_big();
	for (int i = 0; i <= SMALL; i++)
		if (!kept[i])
			die_errno("malloc");
	pre_touch(kept[SMALL], psz);
}

int main(int argc, char **argv)
{
	long psz = sysconf(_SC_PAGESIZE);

	if (argc < 2)
		die_usage("no program to exec");
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		die_errno("prctl(PR_SET_THP_DISABLE)");
	before_exec(psz);
	out_str(&o, "pre site fn=pre_small bytes=");
	out_num(&o, SMALL * SMALL_SIZE, 10);
	out_str(&o, " count=");
	out_num(&o, SMALL, 10);
	out_str(&o, "\npre site fn=pre_big bytes=");
	out_num(&o, BIG_SIZE, 10);
	out_str(&o, " count=1\npre faults fn=pre_big pages=");
	out_num(&o, PRE_TOUCH, 10);
	for (int i = 0; i <= SMALL; i++) {
		out_str(&o, i < SMALL ? "\npre addr fn=pre_small start="
				      : "\npre addr fn=pre_big start=");
		out_num(&o, (uintptr_t)kept[i], 16);
		out_str(&o, " end=");
		out_num(&o, (uintptr_t)kept[i] + (i < SMALL ? SMALL_SIZE : BIG_SIZE), 16);
	}
	out_str(&o, "\npre pid=");
	out_num(&o, (unsigned long long)getpid(), 10);
	out_str(&o, "\n");
	out_flush(&o);
	execv(argv[1], argv + 1);
	die_errno(argv[1]);
	return 1;
}
