/*
 * sample-cost: what the kernel's perf sample output costs a traced
 * program, field by field, on one uprobe.
 *
 *   sample-cost LIBC OFFSET VARIANT PAGES -- PROGRAM ARGS...
 *
 * Forks PROGRAM held on a pipe, opens the uprobe PMU event on LIBC at
 * OFFSET for it (perf_event_open, no tracefs), maps a ring of PAGES and
 * drains it (advancing the tail only) until PROGRAM exits.  VARIANT:
 *   count   a counting event (no sample): the trap alone
 *   id      samples of PERF_SAMPLE_IDENTIFIER only
 *   tidtime + TID and TIME
 *   raw     + RAW (the uprobe's trace entry)
 *   regs3   + REGS_USER ip, sp, bp (what faultline takes)
 *   regs17  + REGS_USER, the 17 general-purpose registers perf takes
 *   stackN  + REGS_USER ip/sp/bp and N bytes of STACK_USER
 * PROGRAM (malloc-churn) prints its own ns per pair.  Prints "bytes N",
 * the ring bytes read, on stderr.  bench/sample-cost runs the variants
 * side by side.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int pmu_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	int t = -1;

	if (f) {
		if (fscanf(f, "%d", &t) != 1)
			t = -1;
		fclose(f);
	}
	return t;
}

static int variant(const char *v, struct perf_event_attr *a)
{
	const unsigned long long regs3 = (1ULL << 8) | (1ULL << 7) | (1ULL << 6);	/* ip sp bp */
	const unsigned long long regs17 = 0xff01ffULL;	/* ax..ip, r8..r15 */

	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_IDENTIFIER;
	if (!strcmp(v, "count")) {
		a->sample_period = 0;
		a->sample_type = 0;
		return 0;
	}
	if (!strcmp(v, "id"))
		return 0;
	a->sample_type |= PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	if (!strcmp(v, "tidtime"))
		return 0;
	a->sample_type |= PERF_SAMPLE_RAW;
	if (!strcmp(v, "raw"))
		return 0;
	a->sample_type |= PERF_SAMPLE_REGS_USER;
	a->sample_regs_user = regs3;
	if (!strcmp(v, "regs3"))
		return 0;
	if (!strcmp(v, "regs17")) {
		a->sample_regs_user = regs17;
		return 0;
	}
	if (!strncmp(v, "stack", 5) && atoi(v + 5) > 0) {
		a->sample_type |= PERF_SAMPLE_STACK_USER;
		a->sample_stack_user = (unsigned)atoi(v + 5);
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct perf_event_attr a;
	unsigned long long bytes = 0;
	int go[2], fd, pages, status;
	void *ring = NULL;
	pid_t child;

	if (argc < 7 || strcmp(argv[5], "--")) {
		fprintf(stderr, "usage: sample-cost LIBC OFFSET VARIANT PAGES -- PROGRAM ARGS...\n");
		return 2;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = (unsigned)pmu_type();
	a.config1 = (unsigned long long)(uintptr_t)argv[1];
	a.config2 = strtoull(argv[2], NULL, 0);
	pages = atoi(argv[4]);
	if (pmu_type() < 0 || variant(argv[3], &a) || pages <= 0 || (pages & (pages - 1))) {
		fprintf(stderr, "sample-cost: no uprobe PMU, or a bad variant or page count\n");
		return 2;
	}
	a.watermark = 1;
	a.wakeup_watermark = (unsigned)pages * 4096 / 4;
	if (pipe(go))
		return 1;
	child = fork();
	if (child == 0) {
		char b;

		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		execv(argv[6], argv + 6);
		_exit(127);
	}
	close(go[0]);
	fd = (int)syscall(SYS_perf_event_open, &a, child, -1, -1, 0);
	if (fd < 0) {
		fprintf(stderr, "sample-cost: perf_event_open: %s\n", strerror(errno));
		kill(child, SIGKILL);
		return 1;
	}
	if (a.sample_period) {
		ring = mmap(NULL, ((size_t)pages + 1) * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (ring == MAP_FAILED) {
			fprintf(stderr, "sample-cost: mmap: %s\n", strerror(errno));
			kill(child, SIGKILL);
			return 1;
		}
	}
	if (write(go[1], "g", 1) != 1)
		return 1;
	for (;;) {
		if (waitpid(child, &status, WNOHANG) == child)
			break;
		if (ring) {
			struct perf_event_mmap_page *pc = ring;
			struct pollfd p = { .fd = fd, .events = POLLIN };
			unsigned long long head;

			poll(&p, 1, 10);
			head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
			bytes += head - pc->data_tail;
			__atomic_store_n(&pc->data_tail, head, __ATOMIC_RELEASE);
		} else {
			usleep(10000);
		}
	}
	fprintf(stderr, "bytes %llu\n", bytes);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
