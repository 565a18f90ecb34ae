/*
 * oom-target: a program the OOM killer kills, with the victim and the
 * trigger known exactly, for the system tests of `faultline oom`.
 *
 * It is meant to run in a memory cgroup with a low limit (the test makes
 * one); outside one it would bring on a global OOM, so it refuses to grow
 * past --max-mib (default 1024).
 *
 * --mode self (default): the process is trigger and victim.
 *   1. Prints its ground truth with write(2):
 *        mode=self pid=P comm=oom-target
 *   2. Allocates --step-kib (default 1024) at a time with mmap and writes
 *      every page, until the kernel kills it with SIGKILL.  Reaching
 *      --max-mib without being killed prints "not_killed=1" and exits 1.
 *
 * --mode hog: trigger and victim differ, so a tool that confuses them is
 * caught.
 *   1. Forks a child that names itself "oom-hog" (prctl), sets its
 *      oom_score_adj to 1000, maps and writes --hog-mib (default 20) and
 *      waits.  The parent keeps its own oom_score_adj (lowering it would
 *      need CAP_SYS_RESOURCE): with 1000 the hog's badness exceeds the
 *      limit's page count, which the parent's RSS within the cgroup
 *      cannot reach, so the kernel chooses the hog.
 *   2. Prints: mode=hog trigger_pid=P trigger_comm=oom-target
 *      victim_pid=C victim_comm=oom-hog
 *   3. Allocates as in self mode; the charge that breaks the limit makes
 *      the parent invoke the OOM killer, which kills the hog.  Between
 *      pages the parent reaps the child; when it is gone it prints
 *      victim_signal=S (9 expected) and exits 0.  The kernel may still
 *      kill the parent too, in a second OOM, when it faults before the
 *      dead hog's pages are uncharged: a test must accept a second kill.  Reaching --max-mib
 *      prints "not_killed=1", kills the child and exits 1.
 *
 * --cache-file PATH --cache-mib N (self mode, for the precursor timeline):
 * before growing, write N MiB to PATH and fsync it, so the memcg holds
 * that much clean page cache for reclaim to take while the anonymous
 * memory grows; --step-ms N waits N ms between steps, so the growth (and
 * the reclaim before the kill) spreads over seconds.
 *
 * Exit 2 on a usage error, 1 if a call fails.  --delay-ms N sleeps before
 * allocating (after the truth is printed); --hold-ms is accepted for the
 * shared option set and ignored.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#define TRUTH_PROG "oom-target"
#define TRUTH_USAGE \
	"usage: oom-target [--mode self|hog] [--hog-mib N] [--step-kib N] [--max-mib N]\n" \
	"                  [--step-ms N] [--cache-file PATH --cache-mib N]\n" \
	"                  [--delay-ms N] [--hold-ms N] [--go FIFO] [--end FIFO]\n"
#include "truth.h"

static struct out out;

static void fail_call(const char *what)
{
	say(TRUTH_PROG ": ");
	say(what);
	say(" failed\n");
	exit(1);
}

static void set_oom_score_adj(const char *value)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, value, strlen(value)) != (ssize_t)strlen(value))
		fail_call("writing /proc/self/oom_score_adj");
	close(fd);
}

/*
 * Map and write @bytes; the written pages are what the memcg charges.
 * With @child > 0, stop as soon as it has died and return true: it
 * was the OOM victim, and each page written after its death but before
 * its memory is uncharged could make the kernel kill again (the
 * exiting victim is skipped, its pages not yet freed), so the check is
 * made per page.  *@status receives its wait status.
 */
static bool grab(size_t bytes, pid_t child, int *status)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		fail_call("mmap");
	for (size_t off = 0; off < bytes; off += (size_t)page) {
		if (child > 0 && waitpid(child, status, WNOHANG) == child)
			return true;
		p[off] = 1;
	}
	return false;
}

/* @mib MiB of clean page cache, charged to this task's memcg. */
static void write_cache(const char *path, unsigned long mib)
{
	static char buf[1 << 16];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		fail_call("opening --cache-file");
	memset(buf, 'c', sizeof(buf));
	for (unsigned long i = 0; i < mib * ((1 << 20) / sizeof(buf)); i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			fail_call("writing --cache-file");
	if (fsync(fd) < 0)
		fail_call("fsync of --cache-file");
	close(fd);
}

static void run_hog(unsigned long hog_mib, int ready_fd)
{
	prctl(PR_SET_NAME, "oom-hog", 0, 0, 0);
	set_oom_score_adj("1000");
	grab(hog_mib << 20, -1, NULL);
	(void)!write(ready_fd, "r", 1);
	close(ready_fd);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	unsigned long delay_ms = 0, hold_ms = 0, hog_mib = 20, step_kib = 1024, max_mib = 1024;
	unsigned long grown_kib = 0, step_ms = 0, cache_mib = 0;
	const char *cache_file = NULL;
	bool hog = false;
	pid_t child = -1;
	int pfd[2], status;
	char c;

	for (int a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--mode") == 0) {
			const char *m = argv[++a];

			if (m && strcmp(m, "hog") == 0)
				hog = true;
			else if (!m || strcmp(m, "self") != 0)
				die_usage("--mode is self or hog");
		} else if (strcmp(argv[a], "--hog-mib") == 0) {
			hog_mib = parse_num(argv[++a], "--hog-mib needs a number");
		} else if (strcmp(argv[a], "--step-kib") == 0) {
			step_kib = parse_num(argv[++a], "--step-kib needs a number");
		} else if (strcmp(argv[a], "--step-ms") == 0) {
			step_ms = parse_num(argv[++a], "--step-ms needs a number");
		} else if (strcmp(argv[a], "--cache-mib") == 0) {
			cache_mib = parse_num(argv[++a], "--cache-mib needs a number");
		} else if (strcmp(argv[a], "--cache-file") == 0) {
			if (!(cache_file = argv[++a]))
				die_usage("--cache-file needs a path");
		} else if (strcmp(argv[a], "--max-mib") == 0) {
			max_mib = parse_num(argv[++a], "--max-mib needs a number");
		} else {
			parse_shared_opt(argv, &a, &delay_ms, &hold_ms);
		}
	}
	if (!step_kib || step_kib % 4)
		die_usage("--step-kib must be a positive multiple of 4");
	if (!hog) {
		out_str(&out, "mode=self pid=");
		out_num(&out, (unsigned long long)getpid(), 10);
		out_str(&out, " comm=oom-target\n");
		out_flush(&out);
	} else {
		if (pipe(pfd) < 0)
			fail_call("pipe");
		child = fork();
		if (child < 0)
			fail_call("fork");
		if (child == 0) {
			close(pfd[0]);
			run_hog(hog_mib, pfd[1]);
		}
		close(pfd[1]);
		if (read(pfd[0], &c, 1) != 1) {
			kill(child, SIGKILL);
			fail_call("waiting for the hog");
		}
		close(pfd[0]);
		out_str(&out, "mode=hog trigger_pid=");
		out_num(&out, (unsigned long long)getpid(), 10);
		out_str(&out, " trigger_comm=oom-target victim_pid=");
		out_num(&out, (unsigned long long)child, 10);
		out_str(&out, " victim_comm=oom-hog\n");
		out_flush(&out);
	}
	if (cache_mib && !cache_file)
		die_usage("--cache-mib needs --cache-file");
	wait_go(delay_ms);
	if (cache_file)
		write_cache(cache_file, cache_mib);
	while (grown_kib < max_mib * 1024) {
		struct timespec ts = { (time_t)(step_ms / 1000), (long)(step_ms % 1000) * 1000000L };

		if (step_ms)
			nanosleep(&ts, NULL);
		if (grab(step_kib * 1024, child, &status)) {
			out_kv(&out, "victim_signal", WIFSIGNALED(status) ? (unsigned)WTERMSIG(status) : 0, 10);
			out_flush(&out);
			return 0;
		}
		grown_kib += step_kib;
	}
	out_str(&out, "not_killed=1\n");
	out_flush(&out);
	if (hog)
		kill(child, SIGKILL);
	return 1;
}
