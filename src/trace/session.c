/*
 * session: one tracing run, from setup to the last byte of teardown.
 *
 * Layout of the kernel side: for each CPU (system-wide) or each (task, CPU)
 * pair (-p: every thread; -c: the command, inherited by its threads and
 * children), a dummy software event carries the side-band records (MMAP2,
 * COMM, FORK, EXIT) and owns the CPU's ring; every traced event opened on
 * that CPU is redirected into the same ring with PERF_EVENT_IOC_SET_OUTPUT.
 * All events share one sample_id layout (TID|TIME|CPU|IDENTIFIER) so any
 * record's trailer can be decoded before its event is known.  What of
 * that the kernel lacks (perf_caps__probe(), before the first open: the
 * dummy event and IDENTIFIER are 3.12's, MMAP2 and the COMM's exec flag
 * 3.16's) is replaced: a page-fault counter that never samples, ID with
 * ADDR in every event (so that the id is every sample's fourth word),
 * MMAP records, an exec taken as a process's first COMM after its fork.
 *
 * Why so long: the session's public calls, the live source (rings, event
 * opening, the side-band, the run loop) and the signals share the private
 * struct session; splitting them at those seams (a trace/live.c as replay.c
 * is the recorded source, event setup, signals) is still to do.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <tracefs/tracefs.h>

#include "lib/file.h"
#include "lib/newsys.h"
#include "lib/clock.h"
#include "trace/session.h"
#include "trace/session-int.h"
#include "stack/addrspace.h"
#include "stack/elf-sym.h"
#include "trace/tp-catalog.h"
#include "features.h"
#include "lib/hashmap.h"
#include "lib/stopsig.h"
#include "proc/procstat.h"
#include "proc/pidstat.h"
#include "trace/perf-event.h"
#include "trace/perf-cgroup.h"
#include "trace/probe-spec.h"
#include "trace/drain.h"
#include "trace/tree-pause.h"
#include "trace/ring.h"
#include "stack/stackdb.h"
#include "stack/symbolize.h"
#include "trace/target.h"
#include "trace/probe-group.h"
#include "stack/unwind.h"
#include "stack/uret-fixup.h"
#include "trace/uprobe-place.h"
#include "trace/uprobe-pmu.h"
#include "trace/uprobe-tmpfs.h"
#include "lib/grow.h"

#define SB_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			PERF_SAMPLE_CPU)
/* Without PERF_SAMPLE_IDENTIFIER (before 3.12) the id is PERF_SAMPLE_ID,
 * whose place in a sample follows IP, TID, TIME and ADDR: every event
 * takes ADDR then, so that it is the fourth word of every sample. */
#define SB_SAMPLE_TYPE_NO_IDENTIFIER (PERF_SAMPLE_ID | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
				      PERF_SAMPLE_CPU | PERF_SAMPLE_ADDR)
/* Without the dummy event (before 3.12) the side-band rides a software
 * page-fault counter that never reaches its period. */
#define SB_NEVER_PERIOD (1ULL << 62)
#define MAX_USER_FRAMES 255
/* Pending uretprobe returns mended in one stack copy: a malloc inside a
 * probed realloc is two; deeper nesting keeps the innermost. */
#define MAX_URET_PATCHES 16
/* Ring pages per CPU when -m is not given.  A DWARF sample carries its
 * stack copy, so its ring must be larger to absorb the same burst; with an
 * 8 KiB copy: 1024 pages (4 MiB, ~480 samples) kept every event of
 * bench/unwind-throughput's allocator where 256 lost up to 1.5%, but
 * `leak` on a busy two-CPU machine still lost samples when the reader
 * was descheduled for ~15 ms during a burst of malloc returns; 4096
 * pages (16 MiB, ~1900 samples) absorbs 60 ms of that.  An fp sample is
 * ~250 bytes, but fp events also come faster (no stack copy): 64 pages
 * held ~1000 of them, a millisecond or two of a malloc loop, and lost 179
 * of leak-target's when a reader slowed by ASan was descheduled beside a
 * CPU hog; slab -a lost 212 a second on an idle VM.  1024 pages (4 MiB,
 * ~16,000 samples, 10-20 ms of a full-speed malloc loop) absorb such a
 * gap as the DWARF ring does.  The total is capped at 64 MiB so that
 * many-CPU machines do not lock gigabytes, and never below 64 pages a CPU. */
#define DEFAULT_PAGES_FP 1024
#define DEFAULT_PAGES_DWARF 4096
/* ... for a copy of this many bytes; doubled for each doubling of it
 * (32 KiB, the default since bench/stack-size: 16384 pages, within the
 * cap: 8192 a CPU on two CPUs, ~1000 samples). */
#define DEFAULT_PAGES_COPY 8192
#define MIN_DEFAULT_PAGES 64
#define MAX_DEFAULT_RING_BYTES (64u << 20)
#define READER_NICE (-10)
/* The drain thread's SCHED_FIFO priority: the lowest, as `perf record -r 1`
 * (drain__set_realtime()).  bench/busy-loss, 8 runs each after dropping
 * the page cache, two `yes` hogs beside it on 2 CPUs: with --no-realtime
 * perl's 40,000-key hash lost events in 2 runs (7,488 in all) and
 * malloc-churn's 1,000,000 pairs in 4 (39,246); in SCHED_FIFO, none.  At
 * nice -10 every lossy pass found the 16 MiB ring full while the spools
 * never held more than 44 MB: the reader kept up, the drain thread was
 * not scheduled in time. */
#define DRAIN_RT_PRIO 1


static const struct session_source live_source;
/* ---- signals ---------------------------------------------------------- */

/* The only mutable globals: what a signal handler may touch.  Stop
 * signals are lib/stopsig's, as for the loops without a session. */
static struct session *volatile emergency;

/* The signals raised by the instruction being run (and abort()'s): the
 * process cannot go on, so it removes its probes and dies of the signal
 * (status 128 + N in a shell).  Every other fatal-by-default signal is a
 * stop request (lib/stopsig.c). */
static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS };
#define NFATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))
static struct sigaction old_fatal[NFATAL];

static void write_all(const char *path, const char *text)
{
	size_t len;
	int fd;

	if (!text || !path[0])
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return;
	len = strlen(text);
	/* One line per write: the kernel parses one command per write. */
	for (const char *p = text; len;) {
		const char *nl = memchr(p, '\n', len);
		size_t l = nl ? (size_t)(nl - p) + 1 : len;

		if (write(fd, p, l) < 0) {
			/* keep going: remove what we can */
		}
		p += l;
		len -= l;
	}
	close(fd);
}

static void say(const char *text)
{
	if (write(STDERR_FILENO, text, strlen(text)) < 0) {
		/* nowhere else to say it */
	}
}

static const char *fatal_name(int sig)
{
	switch (sig) {
	case SIGSEGV:
		return "SIGSEGV";
	case SIGBUS:
		return "SIGBUS";
	case SIGILL:
		return "SIGILL";
	case SIGFPE:
		return "SIGFPE";
	case SIGABRT:
		return "SIGABRT";
	case SIGTRAP:
		return "SIGTRAP";
	default:
		return "SIGSYS";
	}
}

/*
 * Async-signal-safe teardown of kernel state for a dying process: close
 * every perf fd (a probe in use cannot be removed), then remove the probes
 * by writing "-:group/event" lines, and the PMU rung's cgroup (the command
 * moved back to its parent's); what the recording holds in memory is
 * written out as it is (the file then ends inside a record, which report
 * reads up to).  One line on stderr says so.  No malloc, no stdio.
 */
static void on_fatal_signal(int sig)
{
	struct session *s = emergency;
	size_t i;

	say("faultline: fatal signal ");
	say(fatal_name(sig));
	say(s ? ": probes removed" : "");
	say(s && s->rec ? ", the recording left unfinished (report reads it up to its last "
			   "whole record)\n" : "\n");
	if (s) {
		emergency = NULL;
		/* A mapped ring holds its event alive past close(): unmap
		 * too, once the drain thread has let go of the rings. */
		drain__quiesce_in_signal(s->drain);
		/* Never leave the target stopped (back-pressure, events
		 * being added). */
		tree_pause__cont_in_signal(s->pauser);
		tree_pause__cont_in_signal(s->grow_pause);
		for (i = 0; s->rings && i < (size_t)s->ncpus; i++)
			ring__unmap_in_signal(s->rings[i]);
		for (i = 0; i < s->nfds; i++)
			if (s->fds[i] >= 0)
				close(s->fds[i]);
		s->nfds = 0;
		if (s->probes) {
			write_all(s->uprobe_events_path, probe_group__removal_lines(s->probes, false));
			write_all(s->kprobe_events_path, probe_group__removal_lines(s->probes, true));
		}
		if (s->rec)
			session__record_flush_in_signal(s);
		perf_cgroup__remove_in_signal(s->pmu_cg);
	}
	for (i = 0; i < NFATAL; i++)
		if (fatal_signals[i] == sig)
			sigaction(sig, &old_fatal[i], NULL);
	raise(sig);
}

static void signals_install(struct session *s)
{
	struct sigaction sa;

	stopsig__catch();	/* no SA_RESTART: poll() must wake */
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_fatal_signal;
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < NFATAL; i++)
		sigaction(fatal_signals[i], &sa, &old_fatal[i]);
	emergency = s;
}

void session__catch_signals(struct session *s)
{
	signals_install(s);
}

bool session__stop_requested(void)
{
	return stopsig__caught() != 0;
}

static void child_signal_restore(void);

static void signals_restore(void)
{
	emergency = NULL;
	stopsig__release();
	for (size_t i = 0; i < NFATAL; i++)
		sigaction(fatal_signals[i], &old_fatal[i], NULL);
}

/* ---- small helpers ---------------------------------------------------- */

static int track_fd(struct session *s, int fd)
{
	if (GROW_FOR(s->fds, s->capfds, s->nfds + 1, 64))
		return -ENOMEM;
	s->fds[s->nfds++] = fd;
	return 0;
}

/* @attr as the failed open left it: on E2BIG the kernel wrote its size there. */
static int perf_open_error(struct session *s, int err, const struct perf_event_attr *attr,
			   const char *what, struct errbuf *eb)
{
	if (err == -EACCES || err == -EPERM)
		return errbuf__set(eb, err,
				   "perf_event_open of '%s' refused (perf_event_paranoid is %d): "
				   "run as root, or with CAP_PERFMON and CAP_SYS_ADMIN",
				   what, features__paranoid(s->features));
	if (err == -EMFILE || err == -ENFILE)
		return errbuf__set(eb, err, "out of file descriptors opening '%s': raise 'ulimit -n'",
				   what);
	if (err == -ESRCH)
		return errbuf__set(eb, err, "the traced process exited while '%s' was being opened",
				   what);
	if (err == -E2BIG)
		return errbuf__set(eb, err,
				   "perf_event_open of '%s': the kernel's perf_event_attr is %u bytes, "
				   "and faultline sets a field past them (E2BIG): this kernel is older "
				   "than faultline supports (Linux 3.7, or RHEL 7's 3.10)",
				   what, attr->size);
	return errbuf__set(eb, err, "perf_event_open of '%s' failed: %s", what, strerror(-err));
}

static void base_attr(struct session *s, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_period = 1;
	a->sample_id_all = 1;
	a->disabled = 1;
	a->inherit = s->target && target__kind(s->target) != TARGET_ALL && !s->opts.system_wide;
	a->enable_on_exec = s->target && target__kind(s->target) == TARGET_CMD &&
			    !s->opts.system_wide && !s->growing;
	/* clockid is a reserved word before 4.1: zero unless use_clockid. */
	a->use_clockid = s->use_clockid;
	a->clockid = s->use_clockid ? CLOCK_MONOTONIC : 0;
	/* Samples lost while the ring was full are reported by a LOST
	 * record written before the next record that fits, so a burst lost
	 * at the very end (the reader behind when the target exits) would
	 * never be reported: each event also counts its own (6.0+). */
	if (s->format_lost)
		a->read_format = PERF_FORMAT_LOST;
	/* Wake the reader when a quarter of the ring is used: rare wakeups,
	 * yet room left for the burst that arrives while it reads. */
	a->watermark = 1;
	a->wakeup_watermark = s->opts.mmap_pages * (uint32_t)sysconf(_SC_PAGESIZE) / 4;
}

/* attr on @task and @cpu; while s->open_cgroup_fd is set, on that cgroup. */
static int open_one(const struct session *s, struct perf_event_attr *attr, pid_t task, int cpu)
{
	if (s->open_cgroup_fd >= 0)
		return perf_event__open_cgroup(attr, s->open_cgroup_fd, cpu);
	return perf_event__open(attr, task, cpu, -1);
}

/*
 * Open attr on every (task, CPU) and route it into that CPU's ring; the
 * first event opened (the side-band one) creates the rings.
 */
static int open_everywhere(struct session *s, struct perf_event_attr *attr, const char *what,
			   size_t evsel_idx, struct errbuf *eb)
{
	bool first = s->ring_owner == NULL;
	int err;

	if (first) {
		s->rings = calloc((size_t)s->ncpus, sizeof(*s->rings));
		s->ring_owner = malloc((size_t)s->ncpus * sizeof(*s->ring_owner));
		if (!s->rings || !s->ring_owner)
			return -ENOMEM;
		for (int c = 0; c < s->ncpus; c++)
			s->ring_owner[c] = -1;
	}
	for (size_t t = 0; t < s->ntasks; t++) {
		for (int c = 0; c < s->ncpus; c++) {
			int fd = open_one(s, attr, s->tasks[t], s->cpus[c]);

			if (fd == -EINVAL && (attr->read_format & PERF_FORMAT_LOST)) {
				/* Before 6.0: LOST records are all there is. */
				attr->read_format &= ~(uint64_t)PERF_FORMAT_LOST;
				s->format_lost = false;
				fd = open_one(s, attr, s->tasks[t], s->cpus[c]);
			}
			if (fd == -EINVAL && attr->use_clockid) {
				/* Kernels before 4.1 lack use_clockid: perf clock it is. */
				attr->use_clockid = 0;
				attr->clockid = 0;
				s->use_clockid = false;
				fd = open_one(s, attr, s->tasks[t], s->cpus[c]);
			}
			if (fd == -ESRCH && ((s->ntasks > 1 && t > 0) || s->growing))
				continue;	/* a thread that exited meanwhile */
			if (fd < 0)
				return perf_open_error(s, fd, attr, what, eb);
			err = track_fd(s, fd);
			if (err) {
				close(fd);
				return err;
			}
			if (evsel_idx) {
				/* Each fd has its own id; all map to the one evsel. */
				uint64_t id;

				err = perf_event__id(fd, &id);
				if (err)
					return errbuf__set(eb, err, "cannot read the id of '%s'", what);
				if (hashmap__set(s->ids, id, evsel_idx))
					return -ENOMEM;
				/* PERF_SAMPLE_STACK_USER is the last field faultline
				 * asks for: the copy ends every sample. */
				if ((attr->sample_type & PERF_SAMPLE_STACK_USER) &&
				    attr->sample_stack_user) {
					if (GROW_FOR(s->trims, s->captrims, s->ntrims + 1, 64))
						return -ENOMEM;
					s->trims[s->ntrims++] = (struct drain_trim){
						.id = id, .stack_size = attr->sample_stack_user };
				}
			}
			if (s->ring_owner[c] < 0) {
				err = ring__new(fd, s->opts.mmap_pages, &s->rings[c]);
				if (err == -EPERM)
					return errbuf__set(eb, err,
							   "cannot map a ring of %u pages: over the locked-memory limit "
							   "(kernel.perf_event_mlock_kb); use a smaller -m",
							   s->opts.mmap_pages);
				if (err)
					return errbuf__set(eb, err, "cannot map the perf ring: %s",
							   strerror(-err));
				s->ring_owner[c] = fd;
			} else {
				err = perf_event__set_output(fd, s->ring_owner[c]);
				if (err)
					return errbuf__set(eb, err, "cannot redirect '%s' into the ring: %s",
							   what, strerror(-err));
			}
		}
	}
	return 0;
}

static int load_tasks(struct session *s, struct errbuf *eb)
{
	int err;

	free(s->tasks);
	s->tasks = NULL;
	s->ntasks = 0;
	if (s->opts.system_wide) {
		s->tasks = malloc(sizeof(*s->tasks));
		if (!s->tasks)
			return -ENOMEM;
		s->tasks[0] = -1;
		s->ntasks = 1;
		return 0;
	}
	switch (target__kind(s->target)) {
	case TARGET_PID:
		err = target__threads(s->target, &s->tasks, &s->ntasks);
		if (err)
			return errbuf__set(eb, err, "no process with pid %d", (int)target__pid(s->target));
		return 0;
	case TARGET_CMD:
	case TARGET_ALL:
		s->tasks = malloc(sizeof(*s->tasks));
		if (!s->tasks)
			return -ENOMEM;
		s->tasks[0] = target__pid(s->target);
		s->ntasks = 1;
		return 0;
	}
	return -EINVAL;
}

void session__set_comm(struct session *s, pid_t pid, const char *comm)
{
	char *copy = strdup(comm), *prev;
	uint64_t old;

	if (!copy)
		return;
	if (hashmap__get(s->comms, (uint64_t)pid, &old)) {
		prev = (char *)(uintptr_t)old;
		free(prev);
	}
	if (hashmap__set(s->comms, (uint64_t)pid, (uint64_t)(uintptr_t)copy))
		free(copy);
}

/*
 * Every process's name and maps (not with no_maps: on a host of thousands
 * of processes they are most of the start), read once when a system-wide
 * session starts (as perf record -a synthesizes COMM and MMAP records):
 * the side-band has neither for a process that was running already, and a
 * process that exits before the reader reaches its first sample (a busy
 * machine, a short program) has no /proc entry left to name it and
 * symbolize its stacks by.  A recording writes them all at its start.
 */
static void known_processes(struct session *s)
{
	char path[64], comm[64];
	struct dirent *d;
	DIR *dir = opendir("/proc");
	FILE *f;

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);

		if (*end || pid <= 0 || hashmap__get(s->comms, (uint64_t)pid, NULL))
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = '\0';
			session__set_comm(s, (pid_t)pid, comm);
			/* Named from /proc: a COMM now is no exec (comm_exec). */
			(void)hashmap__set(s->named, (uint64_t)pid, 1);
		}
		fclose(f);
		if (!s->opts.no_maps && !addrspaces__known(s->as, (pid_t)pid))
			addrspaces__load_pid(s->as, (pid_t)pid, NULL);
	}
	closedir(dir);
}

void session__learn_process(struct session *s, pid_t pid)
{
	char path[64], comm[64];
	bool learned = false;
	FILE *f;

	/* A recording carries its processes' comms and maps. */
	if (!s->src->learns_processes)
		return;
	/* Called per sample: a process that is gone (or never readable) is
	 * asked /proc once, not once per sample.  Later COMM and MMAP2
	 * records still fill in what it is. */
	if (!hashmap__get(s->comms, (uint64_t)pid, NULL)) {
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		strcpy(comm, "?");
		f = fopen(path, "re");
		if (f) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		session__set_comm(s, pid, comm);
		(void)hashmap__set(s->named, (uint64_t)pid, 1);
		learned = true;
	}
	if (!addrspaces__known(s->as, pid)) {
		if (addrspaces__load_pid(s->as, pid, NULL))
			addrspaces__exec(s->as, pid);	/* known, empty: MMAP2s fill it */
		learned = true;
	}
	if (learned && s->obs)
		s->obs->proc(s, pid);
}

/* ---- setup -------------------------------------------------------------- */

/*
 * Index the C library and the loader now, before the target runs: their
 * first lookup can cost ~15 ms (libc's names come from its debug file when
 * one is installed), and at the rate of a fast allocator that pause
 * overflows a ring.  faultline's own copies are, nearly always, the ones
 * its targets map; the symbolizer caches binaries by build-id.
 */
static void prewarm(struct session *s)
{
	pid_t self = getpid();
	const struct map *maps;
	size_t n;

	if (addrspaces__load_pid(s->as, self, NULL))
		return;
	maps = addrspaces__maps(s->as, self, &n);
	for (size_t i = 0; i < n; i++) {
		const char *base = maps[i].path ? strrchr(maps[i].path, '/') : NULL;
		struct sym_result res;

		if (!base || !(maps[i].prot & PROT_EXEC))
			continue;
		if (!strncmp(base + 1, "libc.so", 7) || !strncmp(base + 1, "ld-linux", 8))
			symbolizer__user(s->sym, s->as, self, maps[i].start, &res);
	}
}

/* -m when not given: DWARF's default, halved until all rings fit the cap. */
static unsigned int default_pages(const struct session *s)
{
	uint64_t ring_bytes = (uint64_t)s->ncpus * (uint64_t)sysconf(_SC_PAGESIZE);
	unsigned int pages = s->opts.callgraph == CALLGRAPH_DWARF ? DEFAULT_PAGES_DWARF :
								    DEFAULT_PAGES_FP;

	/* A larger copy, as many samples: twice the pages a doubling. */
	for (uint32_t sz = s->opts.stack_size; s->opts.callgraph == CALLGRAPH_DWARF &&
	     sz > DEFAULT_PAGES_COPY && pages < (1u << 20); sz /= 2)
		pages *= 2;

	while (pages > MIN_DEFAULT_PAGES && pages * ring_bytes > MAX_DEFAULT_RING_BYTES)
		pages /= 2;
	return pages;
}

/* The side-band (mmap, comm, task records) on every CPU or task of the
 * target; for a process, on the threads born while it was opened too. */
static int open_side_band(struct session *s, struct errbuf *eb)
{
	struct perf_event_attr sb;
	int err;

	base_attr(s, &sb);
	sb.type = PERF_TYPE_SOFTWARE;
	sb.config = PERF_COUNT_SW_DUMMY;
	if (!(s->perf_caps & (1u << PERF_CAP_DUMMY))) {
		sb.config = PERF_COUNT_SW_PAGE_FAULTS;
		sb.sample_period = SB_NEVER_PERIOD;
	}
	sb.sample_type = s->id_type;
	sb.mmap = 1;
	sb.mmap2 = !!(s->perf_caps & (1u << PERF_CAP_MMAP2));
	sb.mmap_data = 1;
	sb.comm = 1;
	sb.comm_exec = !!(s->perf_caps & (1u << PERF_CAP_COMM_EXEC));
	sb.task = 1;
	err = open_everywhere(s, &sb, "side-band", 0, eb);
	if (err)
		return err;
	if (target__kind(s->target) == TARGET_PID) {
		/* Threads born between listing and opening: open them too. */
		size_t before = s->ntasks;
		pid_t *old = s->tasks;

		s->tasks = NULL;
		s->ntasks = 0;
		err = load_tasks(s, eb);
		if (!err && s->ntasks != before) {
			/* Open the side-band for the new ones only. */
			pid_t *all = s->tasks;
			size_t nall = s->ntasks;
			pid_t *fresh = malloc(nall * sizeof(*fresh));
			size_t nfresh = 0;

			if (!fresh) {
				err = -ENOMEM;
			} else {
				for (size_t i = 0; i < nall; i++) {
					bool seen = false;

					for (size_t j = 0; j < before; j++)
						seen |= old[j] == all[i];
					if (!seen)
						fresh[nfresh++] = all[i];
				}
				s->tasks = fresh;
				s->ntasks = nfresh;
				err = open_everywhere(s, &sb, "side-band", 0, eb);
				s->tasks = all;
				s->ntasks = nall;
				free(fresh);
			}
		}
		free(old);
		if (err)
			return err;
		if (hashmap__set(s->tree, (uint64_t)target__pid(s->target), 1))
			return -ENOMEM;
		session__learn_process(s, target__pid(s->target));
	}
	return 0;
}

int session__new(const struct session_opts *o, struct session **out, struct errbuf *eb)
{
	struct fl_roots roots = { 0 };
	struct stale_group *stale = NULL;
	struct session *s;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->src = &live_source;
	s->refs = 1;
	s->open_cgroup_fd = -1;
	s->opts = *o;
	if (!s->opts.stack_size)
		s->opts.stack_size = SESSION_DEFAULT_STACK_SIZE;
	if (!s->opts.unwinder)
		s->opts.unwinder = "libdw";
	s->pmu_retprobe_bit = -1;
	signals_install(s);

	if (geteuid() != 0) {
		err = errbuf__set(eb, -EPERM,
				  "must run as root: faultline creates probes in tracefs and reads "
				  "tracepoint payloads, which perf_event_paranoid alone cannot grant");
		goto fail;
	}
	err = features__probe(&roots, &s->features, eb);
	if (err)
		goto fail;
	/* Without a usable tracefs (lockdown [confidentiality] closes it) the
	 * software events still work: the tool's ladder, which sees tracefs
	 * absent, refuses every rung that needs it, naming the reason.  The
	 * paths stay empty, so nothing is ever written to tracefs. */
	if (features__has(s->features, FEAT_TRACEFS)) {
		snprintf(s->tracing_dir, sizeof(s->tracing_dir), "%s",
			 features__tracefs_dir(s->features));
		if (tracefs_set_tracing_dir(s->tracing_dir) < 0) {
			err = errbuf__set(eb, -ENOMEM, "cannot use tracing dir '%s'",
					  s->tracing_dir);
			goto fail;
		}
		snprintf(s->uprobe_events_path, sizeof(s->uprobe_events_path),
			 "%s/uprobe_events", s->tracing_dir);
		snprintf(s->kprobe_events_path, sizeof(s->kprobe_events_path),
			 "%s/kprobe_events", s->tracing_dir);
		if (!probe_groups__find_stale(&stale, &s->stale, NULL))
			free(stale);
	}

	/* What the kernel's perf_event_attr takes decides every event's
	 * layout: probed before the first open. */
	s->perf_caps = perf_caps__probe();
	s->use_clockid = s->perf_caps & (1u << PERF_CAP_CLOCKID);
	s->format_lost = s->perf_caps & (1u << PERF_CAP_FORMAT_LOST);
	s->id_type = s->perf_caps & (1u << PERF_CAP_IDENTIFIER) ? SB_SAMPLE_TYPE :
								 SB_SAMPLE_TYPE_NO_IDENTIFIER;
	sample__id_pos(s->id_type, &s->id_pos);

	/* The CPUs first: they size the rings. */
	err = perf_cpus__online(&s->cpus, &s->ncpus);
	if (err) {
		errbuf__set(eb, err, "cannot read the online CPUs");
		goto fail;
	}
	if (!s->opts.mmap_pages)
		s->opts.mmap_pages = default_pages(s);

	err = -ENOMEM;
	s->comms = hashmap__new();
	s->ids = hashmap__new();
	s->execs = hashmap__new();
	s->tree = hashmap__new();
	s->named = hashmap__new();
	s->round_heads = calloc((size_t)s->ncpus, sizeof(*s->round_heads));
	s->round_times = calloc((size_t)s->ncpus, sizeof(*s->round_times));
	if (!s->comms || !s->ids || !s->execs || !s->tree || !s->named || !s->round_heads ||
	    !s->round_times)
		goto fail;
	if ((err = tp_catalog__new(s->tracing_dir, &s->catalog)) ||
	    (err = addrspaces__new(&s->as)) || (err = stackdb__new(&s->stacks)) ||
	    (err = symbolizer__new(&s->sym)) ||
	    (s->opts.callgraph == CALLGRAPH_DWARF &&
	     (err = unwinder__new(s->opts.unwinder, s->as, symbolizer__bincache(s->sym), &s->unwinder))) ||
	    (err = probe_group__new(&s->probes)))
		goto fail;
	prewarm(s);

	if (o->pid > 0 && o->cmd) {
		err = errbuf__set(eb, -EINVAL, "-p and -c exclude each other");
		goto fail;
	}
	if (o->pid > 0)
		err = target__new_pid(o->pid, &s->target, eb);
	else if (o->cmd_argv)
		err = target__new_argv(o->cmd_argc, o->cmd_argv, o->cmd ? o->cmd : o->cmd_argv[0],
				       &s->target, eb);
	else if (o->cmd)
		err = target__new_cmd(o->cmd, &s->target, eb);
	else
		err = target__new_all(&s->target);
	if (err)
		goto fail;
	err = load_tasks(s, eb);
	if (err)
		goto fail;

	err = open_side_band(s, eb);
	if (err)
		goto fail;
	if (target__kind(s->target) == TARGET_ALL)
		known_processes(s);
	*out = s;
	return 0;
fail:
	session__free(s);
	return err;
}

void session__free(struct session *s)
{
	uint64_t key, val;
	size_t pos = 0;

	if (!s || --s->refs > 0)
		return;
	emergency = NULL;
	if (s->obs)
		s->obs->free(s);
	if (s->src && s->src->free)
		s->src->free(s);
	for (size_t i = 0; i < s->nfds; i++)
		if (s->fds[i] >= 0)
			perf_event__disable(s->fds[i]);
	drain__free(s->drain);	/* before the rings it reads */
	tree_pause__free(s->grow_pause);
	if (s->growing) {
		free(s->tasks);
		s->tasks = s->grow_tasks_saved;
	}
	if (s->rings)
		for (int c = 0; c < s->ncpus; c++)
			ring__free(s->rings[c]);
	for (size_t i = 0; i < s->nfds; i++)
		if (s->fds[i] >= 0)
			close(s->fds[i]);
	/* fds closed first: the kernel refuses to remove a probe in use. */
	probe_group__free(s->probes);
	perf_cgroup__free(s->pmu_cg);
	target__free(s->target);
	child_signal_restore();
	unwinder__free(s->unwinder);
	uret_table__free(s->urets);
	signals_restore();
	if (s->comms) {
		while (hashmap__next(s->comms, &pos, &key, &val))
			free((void *)(uintptr_t)val);
		hashmap__free(s->comms);
	}
	hashmap__free(s->ids);
	free(s->trims);
	hashmap__free(s->execs);
	hashmap__free(s->tree);
	hashmap__free(s->named);
	free(s->round_heads);
	free(s->round_times);
	symbolizer__free(s->sym);
	stackdb__free(s->stacks);
	addrspaces__free(s->as);
	tp_catalog__free(s->catalog);
	features__free(s->features);
	free(s->rings);
	free(s->ring_owner);
	free(s->fds);
	free(s->tasks);
	free(s->cpus);
	for (size_t i = 0; i < s->nevsels; i++) {
		tp_filter__free(s->evsels[i].filter);
		pmu_args__free(s->evsels[i].pmu);
		free(s->evsels[i].pmu_format);
	}
	free(s->evsels);
	free(s->pmu_raw);
	free(s);
}

size_t session__stale_groups(const struct session *s)
{
	return s->stale;
}

unsigned int session__perf_caps(const struct session *s)
{
	return s->perf_caps;
}

const struct features *session__features(const struct session *s)
{
	return s->features;
}

/* ---- events ------------------------------------------------------------- */

/* A uprobe through the perf PMU: where, and what its samples carry. */
struct pmu_probe {
	const char *path;
	uint64_t off;
	bool retprobe;
	struct pmu_args *args;	/* given to the evsel */
	char *format;		/* given to the evsel */
};

/*
 * Where the target has no cgroup of its own (pmu_cgroup() could not make
 * one), the kernel's share of keeping a PMU uprobe to it: samples of
 * tasks older than it are not written (common_pid is the tid; the
 * target's threads and children are all born after it, until pids wrap:
 * session__on_fork counts a task of the target's below the bound as
 * lost).  Measured here: leak-target under `record -e leak` with tracefs
 * masked lost 739 samples of other processes' mallocs without it.
 *
 * -p: the target is older than most of the host, so "born after it"
 * keeps nearly everyone.  There the filter names the target's threads,
 * and lets through only tasks born after the last pid handed out before
 * they were listed (pid_bound()): the threads it starts later.  `leak -p`
 * of a shell beside a perl building a hash lost 1,043 events to perl's
 * samples without it.  A target with more threads than a filter carries
 * (the kernel takes a page) keeps the plain bound.  Every process born
 * on the host after the attach passes it too: their samples take ring
 * space, and deliver() drops them (counted: session__foreign()).
 */
#define PMU_FILTER_MAX 4000

/* The next pid the kernel hands out in our namespace, read before the
 * caller lists the target's threads; 0 when unknown. */
static pid_t pid_bound(void)
{
	char *buf = NULL;
	long last = 0;

	if (!read_file("/proc/sys/kernel/ns_last_pid", 32, &buf, NULL))
		last = strtol(buf, NULL, 10);
	free(buf);
	return last > 0 && last < INT32_MAX ? (pid_t)(last + 1) : 0;
}

/* -p's filter in @out: the threads listed now, and tasks from @bound on. */
static int pid_filter(const struct session *s, pid_t bound, char *out, size_t n)
{
	pid_t *tids = NULL;
	size_t ntids = 0, len;
	int err = target__threads(s->target, &tids, &ntids);

	if (err)
		return err;
	len = (size_t)snprintf(out, n, "common_pid >= %d", (int)bound);
	for (size_t i = 0; i < ntids && len < n; i++)
		if (tids[i] < bound)
			len += (size_t)snprintf(out + len, n - len, " || common_pid == %d", (int)tids[i]);
	free(tids);
	return len < n ? 0 : -E2BIG;
}

static int pmu_filter(struct session *s, size_t idx, struct errbuf *eb)
{
	const struct evsel *e = &s->evsels[idx];
	char filter[PMU_FILTER_MAX];
	pid_t bound = 0;

	if (!s->target || target__kind(s->target) == TARGET_ALL || target__pid(s->target) <= 0)
		return 0;
	if (target__kind(s->target) == TARGET_PID)
		bound = pid_bound();
	if (!bound || pid_filter(s, bound, filter, sizeof(filter))) {
		bound = target__pid(s->target);
		snprintf(filter, sizeof(filter), "common_pid >= %d", (int)bound);
	}
	s->pmu_min_tid = bound;
	for (size_t f = e->first_fd; f < s->nfds; f++) {
		int err = perf_event__set_filter(s->fds[f], filter);

		if (err)
			return errbuf__set(eb, err, "the kernel refused filter '%s' on '%s': %s",
					   filter, e->name, strerror(-err));
	}
	return 0;
}

/*
 * The PMU events' cgroup: the target's process (for -c, the command held
 * before its exec) moved into faultline_<pid> below its own cgroup, once,
 * before the first PMU uprobe is opened.  A thread or child is born in
 * its parent's cgroup, in the kernel, before it runs: the events count
 * it from its first instruction, as an inherited event would.
 *
 * Measured on 6.18 with leak-target under -p (it starts 6 threads that
 * make 30 mallocs, and in its fork mode a child that makes 3): per-
 * (thread, CPU) events opened for each task the side-band's FORK record
 * names, the rings read in a busy loop, saw none of the 33, every thread
 * gone (ESRCH) by the time its record was read; and a filter naming the
 * threads cannot take a new one, the kernel refusing a second
 * PERF_EVENT_IOC_SET_FILTER on an event (EEXIST).  In a cgroup: all 33,
 * and no sample of another process.
 *
 * Later (events added while running): the processes the session knows
 * in the tree (forked since) are moved too.  Where no cgroup can be made
 * (no perf_event hierarchy, a read-only cgroupfs, a threaded cgroup
 * where a new child cannot take processes) s->pmu_cg stays NULL.
 */
static void pmu_cgroup(struct session *s)
{
	struct errbuf ignored = { "" };
	uint64_t key, val;
	size_t pos = 0;
	pid_t pid;

	if (s->pmu_cg_tried || s->opts.system_wide || !s->target ||
	    target__kind(s->target) == TARGET_ALL || target__pid(s->target) <= 0)
		return;
	s->pmu_cg_tried = true;
	pid = target__pid(s->target);
	if (perf_cgroup__new(pid, &s->pmu_cg, &ignored)) {
		s->pmu_cg = NULL;
		return;
	}
	while (s->tree && hashmap__next(s->tree, &pos, &key, &val))
		if ((pid_t)key != pid)
			perf_cgroup__add(s->pmu_cg, (pid_t)key);	/* gone: nothing to count */
}

static int add_evsel(struct session *s, const char *name, uint32_t type, uint64_t config,
		     unsigned int flags, session_sample_fn fn, void *ctx,
		     struct pmu_probe *pp, struct errbuf *eb)
{
	struct perf_event_attr attr;
	struct evsel *nv;
	bool alias = false;
	int err;

	/* Recording, two tools asking for one event share one perf event:
	 * the kernel may give a sample to only one of two identical
	 * software events.  A richer request (a stack, an address) replaces
	 * the poorer one, whose fds close. */
	for (size_t i = 0; s->obs && i < s->nevsels && !alias; i++) {
		struct evsel *e = &s->evsels[i];

		if (e->alias || strcmp(e->name, name))
			continue;
		if (!(flags & SESSION_RICH & ~e->flags)) {
			alias = true;
			continue;
		}
		for (size_t f = e->first_fd; f < e->first_fd + e->nfds; f++) {
			close(s->fds[f]);
			s->fds[f] = -1;
		}
		e->alias = true;
	}
	nv = realloc(s->evsels, (s->nevsels + 1) * sizeof(*nv));
	if (!nv) {
		if (pp) {
			pmu_args__free(pp->args);
			free(pp->format);
		}
		return -ENOMEM;
	}
	s->evsels = nv;
	memset(&s->evsels[s->nevsels], 0, sizeof(*nv));
	if (pp) {
		s->evsels[s->nevsels].pmu = pp->args;
		s->evsels[s->nevsels].pmu_format = pp->format;
	}
	snprintf(s->evsels[s->nevsels].name, sizeof(nv->name), "%s", name);
	s->evsels[s->nevsels].fn = fn;
	s->evsels[s->nevsels].ctx = ctx;
	s->evsels[s->nevsels].first_fd = s->nfds;
	s->evsels[s->nevsels].flags = flags;
	s->evsels[s->nevsels].type = type;
	s->evsels[s->nevsels].config = config;
	s->evsels[s->nevsels].kind = type == PERF_TYPE_SOFTWARE ? EVSEL_SOFTWARE : EVSEL_TRACEPOINT;
	s->evsels[s->nevsels].alias = alias;
	if (alias) {
		s->evsels[s->nevsels++].nfds = 0;
		return 0;
	}

	base_attr(s, &attr);
	attr.type = type;
	attr.config = config;
	attr.sample_type = s->id_type;
	if (type == PERF_TYPE_TRACEPOINT)
		attr.sample_type |= PERF_SAMPLE_RAW;
	if (flags & SESSION_SAMPLE_ADDR)
		attr.sample_type |= PERF_SAMPLE_ADDR;
	if ((flags & SESSION_USER_STACK) && s->opts.callgraph == CALLGRAPH_DWARF) {
		attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		attr.sample_regs_user = UNWIND_REGS_MASK;
		attr.sample_stack_user = s->opts.stack_size;
	} else if (flags & SESSION_USER_STACK) {
		attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
		attr.exclude_callchain_kernel = !(flags & SESSION_KERNEL_STACK);
		if (flags & SESSION_FUNC_ENTRY) {
			/* At a function's first instruction the frame pointer
			 * is still the caller's: the walk would skip the direct
			 * caller, whose return address sits at *sp. */
			attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			attr.sample_regs_user = 1ULL << PERF_REG_X86_SP;
			attr.sample_stack_user = 8;
			s->evsels[s->nevsels].entry_fix = true;
		}
	}
	if (flags & SESSION_RETURN_PROBED) {
		/* %sp: at the entry the return address's slot, at the
		 * return 8 above it (which pending return this is). */
		attr.sample_type |= PERF_SAMPLE_REGS_USER;
		attr.sample_regs_user |= 1ULL << PERF_REG_X86_SP;
		/* The return address the uretprobe is about to replace:
		 * 8 bytes at %sp, taken before the kernel writes its
		 * trampoline there (the entry's handlers run first). */
		if ((flags & SESSION_FUNC_ENTRY) && !(attr.sample_type & PERF_SAMPLE_STACK_USER)) {
			attr.sample_type |= PERF_SAMPLE_STACK_USER;
			attr.sample_stack_user = 8;
		}
	}
	if ((flags & SESSION_STACK_WORDS) && !(attr.sample_type & PERF_SAMPLE_STACK_USER)) {
		attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		attr.sample_regs_user |= 1ULL << PERF_REG_X86_SP;
		attr.sample_stack_user = SESSION_STACK_WORDS_SIZE;
	}
	if ((flags & SESSION_KERNEL_STACK) && !(attr.sample_type & PERF_SAMPLE_CALLCHAIN)) {
		attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
		attr.exclude_callchain_user = 1;
	}
	if (pp) {
		/* The arguments: the registers at the breakpoint, beside
		 * whatever the stack walk samples (packed by bit order). */
		uprobe_pmu__attr(&attr, type, pp->retprobe, s->pmu_retprobe_bit, pp->path, pp->off);
		attr.sample_type |= PERF_SAMPLE_REGS_USER;
		attr.sample_regs_user |= pmu_args__regs_mask(pp->args);
	}
	s->evsels[s->nevsels].sample_type = attr.sample_type;
	s->evsels[s->nevsels].regs_mask = attr.sample_regs_user;
	s->evsels[s->nevsels].nr_regs = (unsigned int)__builtin_popcountll(attr.sample_regs_user);
	s->nevsels++;
	if (pp) {
		/* A PMU uprobe cannot follow the target into new threads and
		 * children: an inherited copy re-reads config1 (the path) as
		 * a pointer in the forking task, where it means nothing, and
		 * fork fails with EFAULT (seen on 6.1 and here).  So it is
		 * opened on each CPU, enabled by session__run, and deliver()
		 * keeps the target's samples.  The target (-p's process, -c's
		 * command) gets a cgroup of its own (perf-cgroup.h) and the
		 * events are that cgroup's: no other process's sample is
		 * written, and a thread or child the target starts is in it
		 * from its first instruction (pmu_cgroup() says why neither
		 * per-thread events nor a filter can do that).  Other
		 * processes calling the probed function still pay the trap.
		 * Where no cgroup is to be had, a filter on common_pid keeps
		 * what it can (pmu_filter()). */
		pid_t *tasks = s->tasks, every = -1;
		size_t ntasks = s->ntasks;

		attr.inherit = 0;
		attr.enable_on_exec = 0;
		pmu_cgroup(s);
		s->tasks = &every;
		s->ntasks = 1;
		if (s->pmu_cg)
			s->open_cgroup_fd = perf_cgroup__fd(s->pmu_cg);
		err = open_everywhere(s, &attr, name, s->nevsels, eb);
		s->open_cgroup_fd = -1;
		s->tasks = tasks;
		s->ntasks = ntasks;
		if (!err && !s->pmu_cg)
			err = pmu_filter(s, s->nevsels - 1, eb);
	} else {
		err = open_everywhere(s, &attr, name, s->nevsels, eb);
	}
	s->evsels[s->nevsels - 1].nfds = s->nfds - s->evsels[s->nevsels - 1].first_fd;
	return err;
}

int session__add_memstat(struct session *s, session_memstat_fn fn, void *ctx, struct errbuf *eb)
{
	int err = s->src->add_memstat(s, eb);

	if (err)
		return err;
	s->memstat_fn = fn;
	s->memstat_ctx = ctx;
	return 0;
}

static int live_add_memstat(struct session *s, struct errbuf *eb)
{
	(void)eb;
	s->memstat_on = true;
	return 0;
}

#define MEMSTAT_NS 1000000000ULL

void session__memstat_tick(struct session *s, bool force)
{
	struct mem_sample ms;

	if (!s->memstat_on)
		return;
	if (!force && clock__ns(CLOCK_MONOTONIC) < s->memstat_next_ns)
		return;
	if (!s->memstat_cg_known) {
		/* The target's group, as it is at the first sample; on the
		 * PMU rung the one it came from, not faultline's below it
		 * (pmu_cgroup()), gone once the run ends. */
		if (s->pmu_cg && perf_cgroup__v2(s->pmu_cg)) {
			int w = snprintf(s->memstat_cg, sizeof(s->memstat_cg), "%s/memory.pressure",
					 perf_cgroup__parent(s->pmu_cg));

			if (w < 0 || (size_t)w >= sizeof(s->memstat_cg) ||
			    access(s->memstat_cg, R_OK))
				s->memstat_cg[0] = '\0';	/* the root: no file */
		} else {
			procstat__pid_cgroup_pressure(NULL, session__target_pid(s), s->memstat_cg,
						      sizeof(s->memstat_cg));
		}
		s->memstat_cg_known = true;
	}
	if (mem_sample__read(NULL, s->memstat_cg[0] ? s->memstat_cg : NULL, 0, &ms, NULL))
		return;
	while (s->memstat_next_ns <= ms.time_ns)
		s->memstat_next_ns = s->memstat_next_ns ? s->memstat_next_ns + MEMSTAT_NS :
			ms.time_ns + MEMSTAT_NS;
	if (s->obs && s->obs->memstat)
		s->obs->memstat(s, &ms);
	else if (!s->obs && s->memstat_fn)
		s->memstat_fn(s, &ms, s->memstat_ctx);
}

int session__add_tracepoint(struct session *s, const char *system, const char *event,
			    unsigned int flags, session_sample_fn fn, void *ctx,
			    struct tp_event **ev, struct errbuf *eb)
{
	return s->src->add_tracepoint(s, system, event, flags, fn, ctx, ev, eb);
}

static int live_add_tracepoint(struct session *s, const char *system, const char *event,
			       unsigned int flags, session_sample_fn fn, void *ctx,
			       struct tp_event **ev, struct errbuf *eb)
{
	struct tp_event *tev;
	int err;

	err = tp_catalog__load(s->catalog, system, event, &tev, eb);
	if (err)
		return err;
	err = add_evsel(s, tp_event__name(tev), PERF_TYPE_TRACEPOINT, tp_event__id(tev), flags, fn,
			ctx, NULL, eb);
	if (err)
		return err;
	s->evsels[s->nevsels - 1].tev = tev;
	if (ev)
		*ev = tev;
	return 0;
}

int session__set_filter(struct session *s, const struct tp_event *ev, const char *filter,
			struct errbuf *eb)
{
	for (size_t i = 0; i < s->nevsels; i++) {
		struct evsel *e = &s->evsels[i];

		if (e->tev == ev)
			return s->src->set_filter(s, e, filter, eb);
	}
	return errbuf__set(eb, -ENOENT, "no such event to filter");
}

int session__filter_here(struct session *s, struct evsel *e, const char *filter,
			 struct errbuf *eb)
{
	struct tp_filter *f = NULL;
	int err = tp_filter__new(s->catalog, e->tev, filter, &f, eb);

	if (err)
		return err;
	tp_filter__free(e->filter);
	e->filter = f;
	return 0;
}

static int live_set_filter(struct session *s, struct evsel *e, const char *filter,
			   struct errbuf *eb)
{
	/* The PMU's payload is built here: so is its filter applied. */
	if (e->pmu)
		return session__filter_here(s, e, filter, eb);
	for (size_t f = e->first_fd; f < e->first_fd + e->nfds; f++) {
		int err = s->fds[f] < 0 ? 0 : perf_event__set_filter(s->fds[f], filter);

		if (err)
			return errbuf__set(eb, err, "the kernel refused filter '%s' on '%s': %s",
					   filter, e->name, strerror(-err));
	}
	return 0;
}

struct session *session__ref(struct session *s)
{
	s->refs++;
	return s;
}

void session__on_task(struct session *s, const struct session_task_hooks *h)
{
	s->task = *h;
}

/* Whether the task hooks run: always but while recording, unless they
 * asked to. */
static bool task_hooks_on(const struct session *s)
{
	return !s->obs || s->task.while_recording;
}

/*
 * Uprobes through the perf PMU when tracefs cannot make them (lockdown
 * [confidentiality] closes tracefs; FAULTLINE_MASK=uprobes pretends so):
 * the ladders' PMU rungs need exactly this, so the choice agrees with the
 * rung a tool was given.
 */
static bool use_uprobe_pmu(const struct session *s)
{
	return !(features__has(s->features, FEAT_UPROBES) &&
		 features__has(s->features, FEAT_URETPROBES)) &&
	       features__has(s->features, FEAT_UPROBE_PMU);
}

bool session__uprobe_filters_in_kernel(const struct session *s)
{
	return !session__replaying(s) && !use_uprobe_pmu(s);
}

/* Whether one of @n ips lies in [@lo, @hi). */
static bool ips_in(const uint64_t *ips, uint32_t n, uint64_t lo, uint64_t hi)
{
	for (uint32_t i = 0; i < n; i++)
		if (ips[i] >= lo && ips[i] < hi)
			return true;
	return false;
}

bool session__stack_return_probed(struct session *s, pid_t pid, uint32_t stack)
{
	uint64_t lo, hi;
	uint32_t n = 0;
	const uint64_t *ips;

	if (!addrspaces__uprobes_page(s->as, pid, &lo, &hi))
		return false;
	ips = stackdb__get(s->stacks, stack, &n);
	return ips && ips_in(ips, n, lo, hi);
}

/*
 * A stack of an event that asked for SESSION_STACK_WORDS ends with the
 * return probes' trampoline when a call with one is in flight: a DWARF
 * walk stops there by itself, a frame-pointer callchain the kernel mended
 * (6.11+) does not show it, so it is added from the stack copy, whose
 * words still hold it.  session__stack_return_probed() then reads it from
 * the frames alone, live and in a replay (a recording keeps the frames).
 */
static void mark_return_probed(struct session *s, const struct evsel *ev,
			       const struct sample *smp, uint64_t *ips, uint32_t *n)
{
	const unsigned char *p = smp->stack;
	uint64_t lo, hi, w;

	if (!ev || !(ev->flags & SESSION_STACK_WORDS) || !p || *n >= MAX_USER_FRAMES ||
	    !addrspaces__uprobes_page(s->as, (pid_t)smp->pid, &lo, &hi) || ips_in(ips, *n, lo, hi))
		return;
	for (uint64_t off = 0; off + 8 <= smp->stack_size; off += 8) {
		memcpy(&w, p + off, 8);
		if (w >= lo && w < hi) {
			ips[(*n)++] = w;
			return;
		}
	}
}

int session__uprobe_locate(struct session *s, const struct probe_spec *spec, unsigned int flags,
			   char *path, size_t n, uint64_t *off, struct errbuf *eb)
{
	return s->src->uprobe_locate(s, spec, flags, path, n, off, eb);
}

static int live_uprobe_locate(struct session *s, const struct probe_spec *spec,
			      unsigned int flags, char *path, size_t n, uint64_t *off,
			      struct errbuf *eb)
{
	pid_t pid;
	uint8_t code[32];
	ssize_t got = 0;
	int err = -ENOENT, fd;

	if (spec->pmu && use_uprobe_pmu(s))
		spec = spec->pmu;
	pid = target__kind(s->target) == TARGET_PID ? target__pid(s->target) : 0;
	err = elf_sym__resolve_library(pid, spec->library, path, n, eb);
	if (err)
		return err;
	for (size_t i = 0; i < spec->nsymbols; i++) {
		err = elf_sym__offset(path, spec->symbols[i], off, eb);
		if (err != -ENOENT)
			break;
	}
	if (err == -ENOENT)
		return errbuf__set(eb, err, "no symbol '%s' in '%s'", spec->symbols[0], path);
	if (err)
		return err;
	*off += spec->sym_offset;
	if (!spec->nexpect && !(flags & SESSION_PLACE_CHEAP && spec->kind == PROBE_ENTRY))
		return 0;
	fd = open_regular(path, 0);
	if (fd >= 0) {
		got = pread(fd, code, sizeof(code), (off_t)*off);
		close(fd);
	}
	if (got < (ssize_t)spec->nexpect || got <= 0)
		return errbuf__set(eb, -EIO, "cannot read the code of '%s' at 0x%" PRIx64, path, *off);
	if (spec->nexpect && memcmp(code, spec->expect, spec->nexpect))
		return errbuf__set(eb, -ENOEXEC,
				   "probe '%s': the code at %s+0x%" PRIx64 " in '%s' is not what the "
				   "spec expects (another build of the library: see its .probes file)",
				   spec->name, spec->symbols[0], spec->sym_offset, path);
	if ((flags & SESSION_PLACE_CHEAP) && spec->kind == PROBE_ENTRY)
		*off += uprobe_place__skip(code, (size_t)got);
	return 0;
}

/* Whether @e's samples give what a pending return needs: a function
 * entry with %sp and the word there. */
static bool uret_entry_data(const struct evsel *e)
{
	return (e->flags & SESSION_FUNC_ENTRY) && (e->sample_type & PERF_SAMPLE_STACK_USER) &&
	       (e->regs_mask & (1ULL << PERF_REG_X86_SP));
}

/* A uprobe evsel was added at (probe_path, probe_off): pair an entry with
 * a return probe of the same function, whichever came first.  The kernel
 * replaces the return address at every entry of a function with a return
 * probe; the entry's samples let stacks inside the call be mended. */
static void uret_pair(struct session *s, struct evsel *e, bool is_return)
{
	e->uret_return = is_return;
	for (size_t i = 0; i + 1 < s->nevsels; i++) {
		struct evsel *o = &s->evsels[i];

		if (o->kind != EVSEL_UPROBE || o->probe_off != e->probe_off ||
		    strcmp(o->probe_path, e->probe_path))
			continue;
		if (is_return && !o->uret_return && uret_entry_data(o))
			o->uret_entry = true;
		else if (!is_return && o->uret_return && uret_entry_data(e))
			e->uret_entry = true;
	}
}

/* The PMU half of session__add_uprobe(): the probe by perf_event_open, its
 * arguments from the sampled registers, its payload described by a format
 * of our own ("faultline_pmu:NAME"), so the tool reads fields by name. */
static int add_pmu_uprobe(struct session *s, const struct probe_spec *spec, unsigned int flags,
			  session_sample_fn fn, void *ctx, struct tp_event **ev, struct errbuf *eb)
{
	const struct probe_spec *sp = spec->pmu ? spec->pmu : spec;
	struct pmu_probe pp = { .retprobe = sp->kind == PROBE_RETURN };
	struct errbuf why = { "" };
	struct tp_event *tev = NULL;
	char path[PATH_MAX];
	struct evsel *e;
	size_t before;
	int err;

	err = session__uprobe_locate(s, spec, flags, path, sizeof(path), &pp.off, eb);
	if (err)
		return err;
	pp.path = path;
	if (pp.retprobe && s->pmu_retprobe_bit < 0) {
		err = uprobe_pmu__retprobe_bit(features__sysfs_dir(s->features), &s->pmu_retprobe_bit);
		if (err)
			return errbuf__set(eb, err, "probe '%s': the uprobe PMU has no return probes "
					   "(%s/bus/event_source/devices/uprobe/format/retprobe: %s)",
					   sp->name, features__sysfs_dir(s->features), strerror(-err));
	}
	err = pmu_args__parse(sp->fetchargs, pp.retprobe, &pp.args, &why);
	if (err)
		return errbuf__set(eb, err, "probe '%s' on the uprobe PMU: %s (give the spec a 'pmu' "
				   "line for it)", sp->name, errbuf__str(&why, err));
	err = pmu_args__format(pp.args, sp->name, &pp.format);
	if (!err)
		err = tp_catalog__load_text(s->catalog, "faultline_pmu", sp->name, pp.format,
					    strlen(pp.format), &tev, eb);
	if (err) {
		pmu_args__free(pp.args);
		free(pp.format);
		return err;
	}
	/* A file on tmpfs: placed there, or a line saying why not (3.10's
	 * open would succeed with a probe that never fires). */
	if (!s->pmu_tmpfs_ok && uprobe_tmpfs__is(path)) {
		char where[PATH_MAX + 32];

		snprintf(where, sizeof(where), "%s:0x%" PRIx64, path, pp.off);
		err = uprobe_tmpfs__check_pmu(features__uprobe_pmu_type(s->features), path, pp.off,
					      sp->name, where, eb);
		if (err) {
			pmu_args__free(pp.args);
			free(pp.format);
			return err;
		}
		s->pmu_tmpfs_ok = true;
	}
	/* As on tracefs: the cheap placement passes flag-only instructions,
	 * the return address is still at the stack pointer. */
	if (sp->kind == PROBE_ENTRY && sp->sym_offset == 0)
		flags |= SESSION_FUNC_ENTRY;
	before = s->nevsels;
	err = add_evsel(s, tp_event__name(tev), (uint32_t)features__uprobe_pmu_type(s->features),
			0, flags, fn, ctx, &pp, eb);
	if (s->nevsels > before) {
		e = &s->evsels[s->nevsels - 1];
		e->tev = tev;
		e->kind = EVSEL_UPROBE;
		snprintf(e->probe_path, sizeof(e->probe_path), "%s", path);
		e->probe_off = pp.off;
		uret_pair(s, e, pp.retprobe);
	}
	if (!err && ev)
		*ev = tev;
	return err;
}

int session__add_uprobe(struct session *s, const struct probe_spec *spec, unsigned int flags,
			session_sample_fn fn, void *ctx, struct tp_event **ev,
			struct errbuf *eb)
{
	return s->src->add_uprobe(s, spec, flags, fn, ctx, ev, eb);
}

static int live_add_uprobe(struct session *s, const struct probe_spec *spec, unsigned int flags,
			   session_sample_fn fn, void *ctx, struct tp_event **ev,
			   struct errbuf *eb)
{
	char path[PATH_MAX];
	uint64_t off = 0;
	int err;

	if (use_uprobe_pmu(s))
		return add_pmu_uprobe(s, spec, flags, fn, ctx, ev, eb);
	err = session__uprobe_locate(s, spec, flags, path, sizeof(path), &off, eb);
	if (err)
		return err;
	err = probe_group__add_uprobe(s->probes, spec->name, path, off,
				      spec->kind == PROBE_RETURN, spec->fetchargs, eb);
	if (err)
		return err;
	/* Cheap placement passes only flag-only instructions: the return
	 * address is still at the stack pointer, as at the entry. */
	if (spec->kind == PROBE_ENTRY && spec->sym_offset == 0)
		flags |= SESSION_FUNC_ENTRY;
	err = session__add_tracepoint(s, probe_group__name(s->probes), spec->name, flags, fn, ctx,
				      ev, eb);
	if (!err) {
		struct evsel *e = &s->evsels[s->nevsels - 1];

		e->kind = EVSEL_UPROBE;
		snprintf(e->probe_path, sizeof(e->probe_path), "%s", path);
		e->probe_off = off;
		uret_pair(s, e, spec->kind == PROBE_RETURN);
	}
	return err;
}

int session__add_software(struct session *s, const char *name, uint64_t config,
			  unsigned int flags, session_sample_fn fn, void *ctx, struct errbuf *eb)
{
	return s->src->add_software(s, name, config, flags, fn, ctx, eb);
}

static int live_add_software(struct session *s, const char *name, uint64_t config,
			     unsigned int flags, session_sample_fn fn, void *ctx,
			     struct errbuf *eb)
{
	return add_evsel(s, name, PERF_TYPE_SOFTWARE, config, flags, fn, ctx, NULL, eb);
}

int session__add_kprobe(struct session *s, const char *event, const char *func, bool retprobe,
			const char *fetchargs, unsigned int flags, session_sample_fn fn, void *ctx,
			struct tp_event **ev, struct errbuf *eb)
{
	return s->src->add_kprobe(s, event, func, retprobe, fetchargs, flags, fn, ctx, ev, eb);
}

static int live_add_kprobe(struct session *s, const char *event, const char *func,
			   bool retprobe, const char *fetchargs, unsigned int flags,
			   session_sample_fn fn, void *ctx, struct tp_event **ev,
			   struct errbuf *eb)
{
	int err;

	err = probe_group__add_kprobe(s->probes, event, func, retprobe, fetchargs, eb);
	if (err)
		return err;
	err = session__add_tracepoint(s, probe_group__name(s->probes), event, flags, fn, ctx, ev,
				      eb);
	if (!err) {
		struct evsel *e = &s->evsels[s->nevsels - 1];

		e->kind = EVSEL_KPROBE;
		snprintf(e->probe_path, sizeof(e->probe_path), "%s", func);
	}
	return err;
}

/* ---- reading -------------------------------------------------------------- */

static uint64_t record_time(struct session *s, const struct perf_event_header *hdr)
{
	struct sb_id sid;
	uint64_t id, idx, time;

	/* Only the time, on the per-record read path: deliver() decodes the
	 * rest once, when the record's turn comes. */
	if (hdr->type == PERF_RECORD_SAMPLE) {
		if (sample__peek_id(hdr, &s->id_pos, &id) || !hashmap__get(s->ids, id, &idx) ||
		    sample__peek_time(hdr, s->evsels[idx - 1].sample_type, &time))
			return 0;
		return time;
	}
	if (sample__parse_id(hdr, s->id_type, &sid))
		return 0;
	return sid.time;
}

/* ---- pending uretprobe returns (stack/uret-fixup.h) ---- */

static void sample_input(const struct evsel *e, const struct sample *smp, struct unwind_input *in)
{
	*in = (struct unwind_input){
		.pid = (pid_t)smp->pid,
		.regs = smp->regs,
		.regs_mask = smp->regs_abi ? e->regs_mask : 0,
		.stack = smp->stack,
		.stack_size = smp->stack_size,
	};
}

/* An entry of a function with a return probe: its slot and the word
 * there become the thread's innermost pending return. */
static int uret_enter(struct session *s, const struct evsel *e, const struct sample *smp)
{
	struct unwind_input in;
	uint64_t sp, word, lo, hi;
	bool chained;
	int err;

	sample_input(e, smp, &in);
	if (!unwind_input__reg(&in, PERF_REG_X86_SP, &sp) || !unwind_input__read(&in, sp, &word, 8))
		return 0;	/* the kernel could not copy it: that call stays unknown */
	if (!s->urets && (err = uret_table__new(&s->urets)))
		return err;
	chained = addrspaces__uprobes_page(s->as, (pid_t)smp->pid, &lo, &hi) && word >= lo && word < hi;
	return uret_table__enter(s->urets, (pid_t)smp->tid, sp, word, chained);
}

static void uret_leave(struct session *s, const struct evsel *e, const struct sample *smp)
{
	struct unwind_input in;
	const struct uret_pending *p;
	uint64_t sp;
	size_t n;

	if (!s->urets)
		return;
	sample_input(e, smp, &in);
	/* Without %sp, the innermost: calls return in order. */
	if (!unwind_input__reg(&in, PERF_REG_X86_SP, &sp)) {
		p = uret_table__pending(s->urets, (pid_t)smp->tid, &n);
		if (!n)
			return;
		sp = p[n - 1].slot + 8;
	}
	uret_table__leave(s->urets, (pid_t)smp->tid, sp);
}

/* A thread's stack begins or ends: its pending returns with it.  A
 * copy that fails (ENOMEM) leaves the child's unknown: its stacks end at
 * the trampoline, as they did before this table. */
static void uret_task(struct session *s, const struct sb_task *tk, bool fork)
{
	if (!s->urets)
		return;
	if (!fork || tk->pid == tk->ppid || uret_table__fork(s->urets, (pid_t)tk->ptid, (pid_t)tk->tid))
		uret_table__forget(s->urets, (pid_t)tk->tid);
}

/* Mend @in, a DWARF sample of @tid: the copy's pending slots read as the
 * addresses they held, and a sample at the trampoline itself starts where
 * it returns to (its regs copied to @regs, room for 64). */
static void uret_mend_input(struct session *s, pid_t tid, struct unwind_input *in,
			    struct unwind_patch *patches, uint32_t max, uint64_t *regs)
{
	const struct uret_pending *p;
	uint64_t lo, hi, ip, sp, real;
	size_t n;

	if (!s->urets || !(p = uret_table__pending(s->urets, tid, &n)) ||
	    !addrspaces__uprobes_page(s->as, in->pid, &lo, &hi))
		return;
	in->patches = patches;
	in->npatches = uret_fixup__stack(p, n, in, lo, hi, patches, max);
	if (unwind_input__reg(in, PERF_REG_X86_IP, &ip) && ip >= lo && ip < hi &&
	    unwind_input__reg(in, PERF_REG_X86_SP, &sp) && uret_fixup__at_trampoline(p, n, sp, &real)) {
		uint64_t bit = 1ULL << PERF_REG_X86_IP;

		memcpy(regs, in->regs, (size_t)__builtin_popcountll(in->regs_mask) * sizeof(*regs));
		regs[__builtin_popcountll(in->regs_mask & (bit - 1))] = real;
		in->regs = regs;
	}
}

/* The same for a frame-pointer callchain's user frames. */
static void uret_mend_ips(struct session *s, const struct sample *smp, uint64_t *ips, uint32_t n)
{
	const struct uret_pending *p;
	uint64_t lo, hi;
	size_t np;

	if (s->urets && (p = uret_table__pending(s->urets, (pid_t)smp->tid, &np)) &&
	    addrspaces__uprobes_page(s->as, (pid_t)smp->pid, &lo, &hi))
		uret_fixup__ips(p, np, lo, hi, ips, n);
}

/* ---- side-band, live or replayed ---- */

void session__on_mmap(struct session *s, pid_t pid, const struct map *m, uint64_t time)
{
	addrspaces__add(s->as, pid, m);
	if (s->obs)
		s->obs->mmap(s, pid, m, time);
	if (s->task.mmap && task_hooks_on(s))
		s->task.mmap(s, pid, m, s->task.ctx);
}

void session__on_comm(struct session *s, pid_t pid, pid_t tid, const char *comm, bool exec,
		      uint64_t time)
{
	if (s->obs)
		s->obs->comm(s, pid, tid, comm, exec, time);
	if (exec && s->urets)
		uret_table__forget(s->urets, tid);	/* a new stack */
	if (pid != tid)
		return;
	if (exec) {
		uint64_t n = 0, old;
		pid_t alias;

		hashmap__get(s->execs, (uint64_t)pid, &n);
		hashmap__set(s->execs, (uint64_t)pid, n + 1);
		/* The command is the target from its exec on (before, it is
		 * faultline's forked copy). */
		if (s->tree && s->target && target__kind(s->target) == TARGET_CMD &&
		    pid == target__pid(s->target))
			hashmap__set(s->tree, (uint64_t)pid, 1);
		/* The old image, kept for its stacks, keeps its name too. */
		alias = addrspaces__exec(s->as, pid);
		if (alias && hashmap__get(s->comms, (uint64_t)pid, &old))
			session__set_comm(s, alias, (const char *)(uintptr_t)old);
		if (s->task.exec && task_hooks_on(s))
			s->task.exec(s, pid, time, s->task.ctx);
	}
	session__set_comm(s, pid, comm);
}

void session__on_fork(struct session *s, const struct sb_task *tk)
{
	uint64_t pcomm;

	/* After a pid wrap, a task of the target's below the PMU uprobes'
	 * filter (pmu_filter) is not seen: say so as a loss. */
	if (s->pmu_min_tid && (pid_t)tk->tid < s->pmu_min_tid && s->tree &&
	    (hashmap__get(s->tree, tk->pid, NULL) || hashmap__get(s->tree, tk->ppid, NULL)))
		s->lost++;
	uret_task(s, tk, true);
	if (tk->pid == tk->ppid)
		return;		/* a thread */
	session__learn_process(s, (pid_t)tk->ppid);
	if (s->tree && hashmap__get(s->tree, tk->ppid, NULL))
		hashmap__set(s->tree, tk->pid, 1);
	if (s->obs)
		s->obs->task(s, tk, true);
	addrspaces__fork(s->as, (pid_t)tk->ppid, (pid_t)tk->pid);
	if (hashmap__get(s->comms, tk->ppid, &pcomm))
		session__set_comm(s, (pid_t)tk->pid, (const char *)(uintptr_t)pcomm);
	if (s->task.fork && task_hooks_on(s))
		s->task.fork(s, (pid_t)tk->ppid, (pid_t)tk->pid, s->task.ctx);
}

void session__on_exit(struct session *s, const struct sb_task *tk)
{
	uret_task(s, tk, false);
	if (s->obs)
		s->obs->task(s, tk, false);
	if (s->task.thread_exit && task_hooks_on(s))
		s->task.thread_exit(s, (pid_t)tk->pid, (pid_t)tk->tid, s->task.ctx);
}

/* A PMU uprobe's sample: its payload, built from the sampled registers. */
static int pmu_payload(struct session *s, const struct evsel *e, struct sample *smp)
{
	size_t need = pmu_args__raw_size(e->pmu);

	if (!smp->regs_abi)
		return -ENOENT;
	if (need > s->pmu_raw_cap) {
		unsigned char *nb = realloc(s->pmu_raw, need);

		if (!nb)
			return -ENOMEM;
		s->pmu_raw = nb;
		s->pmu_raw_cap = need;
	}
	if (pmu_args__fill(e->pmu, smp->regs, e->regs_mask, (int32_t)smp->pid, s->pmu_raw))
		return -ENOENT;
	smp->raw = s->pmu_raw;
	smp->raw_size = (uint32_t)need;
	return 0;
}

static int deliver(const struct perf_event_header *hdr, void *ctx)
{
	struct session *s = ctx;
	struct sb_mmap2 m2;
	struct sb_comm cm;
	struct sb_task tk;
	struct sb_lost lo;
	struct sample smp;
	uint64_t id, idx;

	switch (hdr->type) {
	case PERF_RECORD_SAMPLE:
		if (sample__peek_id(hdr, &s->id_pos, &id) || !hashmap__get(s->ids, id, &idx) ||
		    sample__parse(hdr, s->evsels[idx - 1].sample_type, s->evsels[idx - 1].nr_regs, &smp)) {
			s->bad++;
			return 0;
		}
		/* An address only an event that asked for one has (without
		 * PERF_SAMPLE_IDENTIFIER every event samples one). */
		if (!(s->evsels[idx - 1].flags & SESSION_SAMPLE_ADDR))
			smp.addr = 0;
		if (s->evsels[idx - 1].pmu) {
			/* Without the target's cgroup, opened for every task:
			 * the target's samples only. */
			if (s->target && target__kind(s->target) != TARGET_ALL &&
			    !hashmap__get(s->tree, smp.pid, NULL)) {
				s->foreign++;
				return 0;
			}
			if (pmu_payload(s, &s->evsels[idx - 1], &smp)) {
				s->bad++;
				return 0;
			}
		}
		if (s->evsels[idx - 1].uret_return)
			uret_leave(s, &s->evsels[idx - 1], &smp);
		if (s->evsels[idx - 1].filter &&
		    !tp_filter__match(s->evsels[idx - 1].filter, smp.raw, smp.raw_size))
			/* what the kernel's filter would have dropped; the
			 * kernel's return probe still took the return */
			return s->evsels[idx - 1].uret_entry ? uret_enter(s, &s->evsels[idx - 1], &smp) : 0;
		s->samples++;
		session__learn_process(s, (pid_t)smp.pid);
		/* Recording: the file gets it, the tools' handlers do not. */
		if (s->obs) {
			if (s->task.recorded && s->task.while_recording)
				s->task.recorded(s, &smp, s->evsels[idx - 1].fn,
						 s->evsels[idx - 1].ctx, s->task.ctx);
			s->obs->sample(s, &s->evsels[idx - 1], idx - 1, &smp);
		} else {
			s->evsels[idx - 1].fn(s, &smp, s->evsels[idx - 1].ctx);
		}
		/* After: the entry's own stack holds the real address. */
		return s->evsels[idx - 1].uret_entry ? uret_enter(s, &s->evsels[idx - 1], &smp) : 0;
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_MMAP:
		if (hdr->type == PERF_RECORD_MMAP2 ? sample__parse_mmap2(hdr, &m2) :
						     sample__parse_mmap(hdr, &m2)) {
			s->bad++;
			return 0;
		} else {
			struct map m = {
				.start = m2.addr, .end = m2.addr + m2.len, .pgoff = m2.pgoff,
				.prot = m2.prot, .flags = m2.flags, .maj = m2.maj, .min = m2.min,
				.ino = m2.ino, .path = (char *)m2.filename,
			};

			session__on_mmap(s, (pid_t)m2.pid, &m, record_time(s, hdr));
		}
		return 0;
	case PERF_RECORD_COMM:
		if (sample__parse_comm(hdr, &cm)) {
			s->bad++;
			return 0;
		}
		if (!(s->perf_caps & (1u << PERF_CAP_COMM_EXEC)) && cm.pid == cm.tid) {
			/* No exec flag (before 3.16): a process's first name
			 * change since its fork, or since the session knew
			 * its name from /proc, is taken for its exec. */
			cm.exec = !hashmap__get(s->named, cm.pid, NULL);
			if (hashmap__set(s->named, cm.pid, 1))
				return -ENOMEM;
		}
		session__on_comm(s, (pid_t)cm.pid, (pid_t)cm.tid, cm.comm, cm.exec, record_time(s, hdr));
		return 0;
	case PERF_RECORD_FORK:
		if (sample__parse_task(hdr, &tk)) {
			s->bad++;
			return 0;
		}
		if (tk.pid != tk.ppid)
			hashmap__delete(s->named, tk.pid, NULL);
		session__on_fork(s, &tk);
		return 0;
	case PERF_RECORD_EXIT:
		if (sample__parse_task(hdr, &tk)) {
			s->bad++;
			return 0;
		}
		session__on_exit(s, &tk);
		return 0;
	case PERF_RECORD_LOST:
		if (sample__parse_lost(hdr, &lo)) {
			s->bad++;
			return 0;
		}
		s->lost += lo.lost;
		/* A lost return would leave its slot pending, to be mended
		 * later with a stale address if a call whose entry was lost
		 * takes the slot: a cut stack is better than a wrong one. */
		uret_table__free(s->urets);
		s->urets = NULL;
		if (s->obs)
			s->obs->lost(s, record_time(s, hdr), lo.lost);
		if (s->task.lost && task_hooks_on(s))
			s->task.lost(s, lo.lost, s->task.ctx);
		return 0;
	default:
		return 0;
	}
}

/*
 * Read every ring's spool and deliver, in time order and in place, what is
 * safely in order: records up to the oldest among the spools' newest
 * records (a spool with nothing new does not hold the others back), as
 * perf's ordered_events does; everything when @final.  Each spool is in
 * time order itself, so merging their heads gives one timeline without
 * copying a record again: an 8 KiB stack sample is parsed and unwound
 * where the drain thread put it.  The merge finds the limit as it goes:
 * the first spool to run out had the oldest newest record, so the round
 * ends once the others' heads pass it.  Records not delivered stay in
 * their spool for the next round.
 */
static int read_round(struct session *s, bool final)
{
	const struct perf_event_header **head = s->round_heads;
	uint64_t *when = s->round_times, limit = UINT64_MAX;
	int err = 0;

	/* Every ring up to now, as when the rings were read directly. */
	drain__catch_up(s->drain);
	for (int c = 0; c < s->ncpus; c++) {
		head[c] = NULL;
		when[c] = 0;
		if (s->rings[c])
			drain__snapshot(s->drain, c);
	}
	for (;;) {
		int best = -1;

		for (int c = 0; c < s->ncpus; c++) {
			uint64_t last = when[c];

			while (s->rings[c] && !head[c]) {
				err = drain__peek(s->drain, c, &head[c]);
				if (err == -ENOENT) {
					/* Out of records: if it had some, its
					 * newest bounds what is safe. */
					if (!final && last && last < limit)
						limit = last;
					break;
				}
				if (err)
					goto out;
				when[c] = record_time(s, head[c]);
				if (when[c])
					break;
				/* An undecodable time: delivered at once
				 * rather than held. */
				deliver(head[c], s);
				drain__consume(s->drain, c);
				head[c] = NULL;
			}
			if (head[c] && (best < 0 || when[c] < when[best]))
				best = c;
		}
		if (best < 0 || when[best] > limit)
			break;
		deliver(head[best], s);
		drain__consume(s->drain, best);
		head[best] = NULL;
	}
	err = 0;
out:
	for (int c = 0; c < s->ncpus; c++)
		if (s->rings[c])
			drain__publish(s->drain, c);
	return err;
}

/*
 * The reader must outrun the kernel: a target traced at full speed fills
 * a ring in tens of milliseconds.  The drain thread (drain.h) empties the
 * rings as they fill, so the kernel does not wait for this thread's
 * parsing and unwinding; nice -10, taken before the drain thread starts
 * and so inherited by it, makes the scheduler prefer both whenever they
 * are runnable, which they are only while events wait; they block in poll
 * otherwise.  The target was forked before, at nice 0.  Best effort: a
 * reader already below -10, or not allowed, stays as it is.
 */
static void reader_priority(void)
{
	errno = 0;
	int now = getpriority(PRIO_PROCESS, 0);

	if (errno == 0 && now > READER_NICE)
		setpriority(PRIO_PROCESS, 0, READER_NICE);
}

static bool pmu_fd(const struct session *s, size_t fd_idx)
{
	for (size_t e = 0; e < s->nevsels; e++)
		if (s->evsels[e].pmu && fd_idx >= s->evsels[e].first_fd &&
		    fd_idx < s->evsels[e].first_fd + s->evsels[e].nfds)
			return true;
	return false;
}

/* ---- events added while running ---- */

bool session__in_target(const struct session *s, pid_t pid)
{
	return !session__replaying(s) && s->target && target__kind(s->target) != TARGET_ALL &&
	       s->tree && hashmap__get(s->tree, (uint64_t)pid, NULL);
}

/* Every thread of the processes @tp found, into @out. */
static int tree_threads(const struct tree_pause *tp, pid_t **out, size_t *nout)
{
	const pid_t *procs;
	size_t nprocs, n = 0, cap = 0;
	pid_t *all = NULL;

	procs = tree_pause__tree(tp, &nprocs);
	for (size_t i = 0; i < nprocs; i++) {
		pid_t *tids = NULL;
		size_t ntids = 0;

		if (pid_threads(procs[i], &tids, &ntids))
			continue;	/* gone meanwhile */
		if (GROW_FOR(all, cap, n + ntids, 16)) {
			free(tids);
			free(all);
			return -ENOMEM;
		}
		memcpy(all + n, tids, ntids * sizeof(*tids));
		n += ntids;
		free(tids);
	}
	*out = all;
	*nout = n;
	return 0;
}

int session__grow_begin(struct session *s, struct errbuf *eb)
{
	struct tree_pause *tp = NULL;
	pid_t *tasks = NULL;
	size_t ntasks = 0;
	int err;

	if (!s->running)
		return 0;
	if (s->growing)
		return errbuf__set(eb, -EBUSY, "events are being added already");
	if (!s->target || target__kind(s->target) == TARGET_ALL || s->opts.system_wide)
		return errbuf__set(eb, -EOPNOTSUPP, "events on every CPU have no process tree to "
				   "add events to");
	err = tree_pause__new(target__pid(s->target), &tp);
	if (err)
		return err;
	/* Stopped while the events are opened: a command's tree always, a
	 * -p target's when --pause asked for it; never one held by ptrace
	 * (pause_wanted() says why). */
	if (!s->held && (target__kind(s->target) == TARGET_CMD || s->opts.pause == SESSION_PAUSE_ON))
		tree_pause__stop(tp);
	else
		tree_pause__find(tp);
	err = tree_threads(tp, &tasks, &ntasks);
	if (err) {
		tree_pause__free(tp);
		return err;
	}
	s->grow_pause = tp;
	s->grow_tasks_saved = s->tasks;
	s->grow_ntasks_saved = s->ntasks;
	s->tasks = tasks;
	s->ntasks = ntasks;
	s->grow_first_fd = s->nfds;
	s->growing = true;
	return 0;
}

int session__grow_end(struct session *s, bool ok, struct errbuf *eb)
{
	int err = 0, werr = 0;

	if (!s->growing)
		return 0;
	/* Recording: the events go to the file before any sample of them. */
	if (ok && s->obs && s->obs->grow && (werr = s->obs->grow(s, eb)))
		ok = false;
	for (size_t i = s->grow_first_fd; i < s->nfds; i++) {
		if (s->fds[i] < 0)
			continue;
		if (ok && !err)
			err = perf_event__enable(s->fds[i]);
		if (!ok || err) {
			close(s->fds[i]);
			s->fds[i] = -1;
		}
	}
	if (err) {
		for (size_t i = s->grow_first_fd; i < s->nfds; i++)
			if (s->fds[i] >= 0) {
				close(s->fds[i]);
				s->fds[i] = -1;
			}
		errbuf__set(eb, err, "cannot enable the events added: %s", strerror(-err));
	}
	free(s->tasks);
	s->tasks = s->grow_tasks_saved;
	s->ntasks = s->grow_ntasks_saved;
	s->grow_tasks_saved = NULL;
	s->growing = false;
	tree_pause__free(s->grow_pause);	/* continues what it stopped */
	s->grow_pause = NULL;
	return werr ? werr : err;
}

int session__run(struct session *s, const struct session_hooks *hooks, struct errbuf *eb)
{
	return s->src->run(s, hooks, eb);
}

/* What the spools may hold unread in all, before the kernel's rings are
 * left to fill (and the kernel to count what it drops): seconds of the
 * busiest DWARF stream a reader has fallen behind by, memory taken only
 * while it is behind. */
#define SPOOL_BYTES (1024ull << 20)
/* Of which populated before tracing starts: two rings' worth per spool,
 * up to this in all (drain__new()). */
#define SPOOL_RESERVE_BYTES (64ull << 20)

/* Each spool's bound: @cap, at least one ring (@ring_bytes).
 * FAULTLINE_SPOOL_CAP=BYTES sets it instead (at least 128 KiB: two
 * records of the largest), for tests/system/backpressure.sh, which needs
 * a reader that cannot keep up.  Not a user's knob. */
static uint64_t spool_cap(uint64_t cap, uint64_t ring_bytes)
{
	const char *env = getenv("FAULTLINE_SPOOL_CAP");
	char *end;
	unsigned long long v;

	if (env && *env) {
		errno = 0;
		v = strtoull(env, &end, 0);
		if (!errno && !*end)
			return v < (128u << 10) ? (128u << 10) : v;
	}
	return cap > ring_bytes ? cap : ring_bytes;
}

/* Whether the run's target is paused when the rings fill (tree-pause.h):
 * a command faultline owns unless --no-pause, a -p target with --pause;
 * never -a, a replay, nor a target held at its exit (ptrace'd: our
 * SIGSTOP would become a signal-delivery stop that the hold re-injects
 * when it next polls, possibly after our SIGCONT, leaving it stopped). */
static bool pause_wanted(const struct session *s)
{
	if (session__replaying(s) || s->held || !s->target)
		return false;
	switch (target__kind(s->target)) {
	case TARGET_CMD:
		return s->opts.pause != SESSION_PAUSE_OFF;
	case TARGET_PID:
		return s->opts.pause == SESSION_PAUSE_ON;
	default:
		return false;
	}
}

static bool pause_target(void *ctx)
{
	return tree_pause__stop(ctx) > 0;
}

static void resume_target(void *ctx)
{
	tree_pause__cont(ctx);
}

/* Back-pressure for the target, when pause_wanted().  0 / -ENOMEM. */
static int backpressure(struct session *s, uint64_t ring_bytes)
{
	/* A ring below 1 MiB (-m 1 ... 128) holds too few DWARF samples for
	 * "half full at a pass" to mean the drain was late: it is such a
	 * ring's normal state, and would pause at every pass.  Its spool's
	 * mark still holds. */
	struct drain_backpressure bp = {
		.ring_bytes = ring_bytes >= (1u << 20) ? ring_bytes : 0,
		.watch = true,
		.pause = pause_target, .resume = resume_target,
	};
	int err;

	if (!pause_wanted(s))
		return 0;
	err = tree_pause__new(target__pid(s->target), &s->pauser);
	if (err)
		return err;
	bp.ctx = s->pauser;
	drain__set_backpressure(s->drain, &bp);
	return 0;
}

/* Events that need the target's user space: user stacks or uprobes. */
static bool wants_user_space(const struct session *s)
{
	for (size_t i = 0; i < s->nevsels; i++)
		if ((s->evsels[i].flags & SESSION_USER_STACK) || s->evsels[i].kind == EVSEL_UPROBE)
			return true;
	return false;
}

int session__need_user_space(const struct session *s, struct errbuf *eb)
{
	if (s->target && target__kernel_thread(s->target))
		return errbuf__set(eb, -EINVAL, "pid %d is a kernel thread: no user space to trace",
				   (int)target__pid(s->target));
	return 0;
}

/* The drain stopped (the target resumed, if paused), its torn records and
 * pauses counted, and freed; once, harmless after. */
static void drain_end(struct session *s)
{
	/* NULL first: the fatal-signal path reads s->drain. */
	struct drain *d = s->drain;
	struct drain_stats st;

	if (!d)
		return;
	drain__stop(d);
	drain__stats(d, &st);
	s->bad += st.torn;
	s->pauses = st.pauses;
	s->paused_ns = st.paused_ns;
	s->drain = NULL;
	drain__free(d);
}

static int live_run(struct session *s, const struct session_hooks *hooks, struct errbuf *eb)
{
	uint64_t ring_bytes = (uint64_t)s->opts.mmap_pages * (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t n = (uint64_t)(s->ncpus > 0 ? s->ncpus : 1);
	uint64_t cap = spool_cap(SPOOL_BYTES / n, ring_bytes), reserve = SPOOL_RESERVE_BYTES / n;
	struct pollfd pfd;
	uint64_t deadline = 0;
	int err = 0;

	/* Accepted by its pid, traced to nothing: say so instead. */
	if (wants_user_space(s)) {
		err = session__need_user_space(s, eb);
		if (err)
			return err;
	}
	if (reserve > cap)
		reserve = cap;
	err = drain__new(s->rings, s->ncpus, cap, reserve < 2 * ring_bytes ? reserve : 2 * ring_bytes,
			 &s->drain);
	if (err)
		return errbuf__set(eb, err, "cannot set up the ring reader: %s", strerror(-err));
	err = backpressure(s, ring_bytes);
	if (err) {
		errbuf__set(eb, err, "cannot set up back-pressure: %s", strerror(-err));
		goto out;
	}
	drain__set_id_word(s->drain, s->id_pos.sample);
	err = drain__set_trim(s->drain, s->trims, s->ntrims);
	if (err) {
		errbuf__set(eb, err, "cannot set up the ring reader: %s", strerror(-err));
		goto out;
	}
	pfd.fd = drain__wait_fd(s->drain);
	pfd.events = POLLIN;
	reader_priority();
	if (!s->opts.no_realtime)
		drain__set_realtime(s->drain, DRAIN_RT_PRIO);
	err = drain__start(s->drain);
	if (err) {
		errbuf__set(eb, err, "cannot start the ring reader thread: %s%s", strerror(-err),
			    newsys__thread_refusal(-err));
		goto out;
	}
	s->start_mono_ns = clock__ns(CLOCK_MONOTONIC);
	s->start_real_ns = clock__ns(CLOCK_REALTIME);
	if (s->obs) {
		err = s->obs->start(s, eb);
		if (err)
			goto out;
	}
	for (size_t i = 0; i < s->nfds; i++) {
		/* -c: events enable themselves at its exec, but for a PMU
		 * uprobe, opened for every task (add_evsel). */
		if (s->fds[i] < 0 || (target__kind(s->target) == TARGET_CMD && !s->opts.system_wide &&
				      !pmu_fd(s, i)))
			continue;
		err = perf_event__enable(s->fds[i]);
		if (err) {
			errbuf__set(eb, err, "cannot enable events: %s", strerror(-err));
			goto out;
		}
	}
	err = target__release(s->target, eb);
	if (err)
		goto out;
	if (s->opts.duration > 0)
		deadline = s->start_mono_ns + (uint64_t)(s->opts.duration * 1e9);
	session__memstat_tick(s, true);
	if (s->obs && s->obs->tracing && (err = s->obs->tracing(s, eb)))
		goto out;
	s->running = true;
	if (hooks && hooks->ready)
		hooks->ready(hooks->ctx);

	while (!s->stop) {
		int timeout = 100;

		if (stopsig__caught()) {
			s->stop = SESSION_STOP_SIGNAL;
			break;
		}
		if (deadline) {
			uint64_t now = clock__ns(CLOCK_MONOTONIC);

			if (now >= deadline) {
				s->stop = SESSION_STOP_DURATION;
				break;
			}
			if ((deadline - now) / 1000000 < (uint64_t)timeout)
				timeout = (int)((deadline - now) / 1000000) + 1;
		}
		if (poll(&pfd, 1, timeout) < 0 && errno != EINTR) {
			err = errbuf__set(eb, -errno, "poll failed: %s", strerror(errno));
			goto out;
		}
		drain__ack(s->drain);
		err = read_round(s, false);
		if (err) {
			errbuf__set(eb, err, "reading events failed: %s", strerror(-err));
			goto out;
		}
		session__memstat_tick(s, false);
		if (s->obs && s->obs->round)
			s->obs->round(s);
		if (hooks && hooks->round)
			hooks->round(hooks->ctx);
		if (target__exited(s->target))
			s->stop = SESSION_STOP_TARGET_EXIT;
	}
	/* Ended by itself (the command's exit first, the duration): a signal
	 * from now on does not make the exit status 128 + N. */
	if (s->stop != SESSION_STOP_SIGNAL)
		stopsig__settle();
	s->running = false;	/* nothing is added once the events go off */
	for (size_t i = 0; i < s->nfds; i++)
		if (s->fds[i] >= 0)
			perf_event__disable(s->fds[i]);
	/* The drain thread gone, what is left in the rings is this
	 * thread's to move, without the bound: the rings hold no more. */
	drain__stop(s->drain);
	err = drain__flush(s->drain);
	if (!err)
		err = read_round(s, true);
	if (err)
		errbuf__set(eb, err, "reading events failed: %s", strerror(-err));
	else
		session__memstat_tick(s, true);	/* the last: after every event */
	for (size_t i = 0; s->format_lost && i < s->nfds; i++) {
		uint64_t v[2];

		if (s->fds[i] >= 0 && read(s->fds[i], v, sizeof(v)) == (ssize_t)sizeof(v))
			s->lost_counted += v[1];
	}
	/* Its totals before the observer's: a recording's END holds them. */
	drain_end(s);
	if (s->obs && !err)
		err = s->obs->finish(s, eb);
out:
	s->running = false;
	drain_end(s);
	if (s->pauser) {
		struct tree_pause *p = s->pauser;

		s->pauser = NULL;
		tree_pause__free(p);
	}
	return err;
}

void session__stop(struct session *s)
{
	if (!s->stop)
		s->stop = SESSION_STOP_TOOL;
}

enum session_stop session__stop_reason(const struct session *s)
{
	return s->stop;
}

int session__cmd_status(const struct session *s)
{
	return s->src->cmd_status(s);
}

static int live_cmd_status(const struct session *s)
{
	return target__status(s->target);
}

uint64_t session__now(const struct session *s)
{
	return s->src->now(s);
}

static uint64_t live_now(const struct session *s)
{
	(void)s;
	return clock__ns(CLOCK_MONOTONIC);
}

time_t session__wall(const struct session *s)
{
	return s->src->wall(s);
}

static time_t live_wall(const struct session *s)
{
	(void)s;
	return time(NULL);
}

/* Which evsel produced a sample (NULL if none). */
static const struct evsel *evsel_of(const struct session *s, const struct sample *smp)
{
	uint64_t idx;

	return hashmap__get(s->ids, smp->id, &idx) ? &s->evsels[idx - 1] : NULL;
}

int session__kernel_stack(struct session *s, const struct sample *smp, uint32_t *stack_id)
{
	return s->src->stack(s, smp, false, stack_id);
}

int session__user_stack(struct session *s, const struct sample *smp, uint32_t *stack_id)
{
	return s->src->stack(s, smp, true, stack_id);
}

static int live_kernel_stack(struct session *s, const struct sample *smp, uint32_t *stack_id)
{
	uint64_t ips[MAX_USER_FRAMES];
	uint32_t n;

	n = sample__context_ips(smp, (uint64_t)PERF_CONTEXT_KERNEL, ips, MAX_USER_FRAMES);
	return stackdb__intern(s->stacks, 0, ips, n, stack_id);
}

static int live_user_stack(struct session *s, const struct sample *smp, uint32_t *stack_id)
{
	const struct evsel *ev = evsel_of(s, smp);
	uint64_t ips[MAX_USER_FRAMES];
	uint32_t n = 0;
	int err;

	if (s->unwinder && ev && (ev->sample_type & PERF_SAMPLE_STACK_USER)) {
		struct unwind_patch patches[MAX_URET_PATCHES];
		uint64_t regs[64];
		struct unwind_input in;
		enum unwind_stop stop = UNWIND_ERROR;

		sample_input(ev, smp, &in);
		uret_mend_input(s, (pid_t)smp->tid, &in, patches, MAX_URET_PATCHES, regs);

		err = unwinder__unwind(s->unwinder, &in, ips, MAX_USER_FRAMES, &n, &stop);
		if (err == -ENOMEM)
			return err;
		s->unwind_stops[err ? UNWIND_ERROR : stop]++;
		if (err)
			n = 0;
	} else {
		n = sample__user_ips(smp, ips, MAX_USER_FRAMES);
		if (ev && ev->entry_fix && n >= 1 && smp->stack && smp->stack_size >= 8) {
			uint64_t ret;

			uint32_t keep = n < MAX_USER_FRAMES ? n - 1 : n - 2;

			memcpy(&ret, smp->stack, 8);
			memmove(ips + 2, ips + 1, keep * sizeof(*ips));
			ips[1] = ret;
			n = keep + 2;
		}
		uret_mend_ips(s, smp, ips, n);
	}
	mark_return_probed(s, ev, smp, ips, &n);
	/* In the image it was taken in: an exec later keeps that for it. */
	return stackdb__intern(s->stacks, addrspaces__pin_image(s->as, (pid_t)smp->pid), ips, n,
			       stack_id);
}

uint64_t session__unwind_stops(const struct session *s, int reason)
{
	return reason >= 0 && reason < UNWIND__COUNT ? s->unwind_stops[reason] : 0;
}

static int live_stack(struct session *s, const struct sample *smp, bool user, uint32_t *stack_id)
{
	return user ? live_user_stack(s, smp, stack_id) : live_kernel_stack(s, smp, stack_id);
}

bool session__dwarf(const struct session *s)
{
	return s->src->dwarf(s);
}

bool session__user_stacks(const struct session *s)
{
	for (size_t i = 0; i < s->nevsels; i++)
		if (s->evsels[i].flags & SESSION_USER_STACK)
			return true;
	return false;
}

unsigned int session__mmap_pages(const struct session *s)
{
	const char *m;

	if (!session__replaying(s))
		return s->opts.mmap_pages;
	m = session__meta(s, "mmap_pages");
	return m ? (unsigned int)strtoul(m, NULL, 10) : 0;
}

static bool live_dwarf(const struct session *s)
{
	return s->unwinder != NULL;
}

const char *session__meta(const struct session *s, const char *key)
{
	return s->src->meta ? s->src->meta(s, key) : NULL;
}

unsigned int session__stack_size(const struct session *s)
{
	const char *v;
	char *end;
	unsigned long n;

	if (!session__dwarf(s))
		return 0;
	if (!session__replaying(s))
		return s->opts.stack_size;
	/* A recording's own word; none before it was written, or a bad one. */
	v = session__meta(s, "stack_size");
	if (!v)
		return 0;
	errno = 0;
	n = strtoul(v, &end, 10);
	return errno || *end || end == v || n > SESSION_MAX_STACK_SIZE ? 0 : (unsigned int)n;
}

bool session__replaying(const struct session *s)
{
	return s->src != &live_source;
}

uint32_t session__exec_count(const struct session *s, pid_t pid)
{
	uint64_t n = 0;

	hashmap__get(s->execs, (uint64_t)pid, &n);
	return (uint32_t)n;
}

pid_t session__stack_pid(const struct session *s, pid_t pid, uint32_t stack)
{
	return addrspaces__image_pid(s->as, pid, stackdb__image(s->stacks, stack));
}

const char *session__stack_comm(struct session *s, pid_t pid, uint32_t stack)
{
	return session__comm(s, session__stack_pid(s, pid, stack));
}

const char *session__comm(struct session *s, pid_t pid)
{
	uint64_t v;

	if (hashmap__get(s->comms, (uint64_t)pid, &v))
		return (const char *)(uintptr_t)v;
	return "?";
}

/* SIGCHLD (a held target's ptrace stop) interrupts poll() in
 * session__run, so its stop is served at once, not at poll's timeout. */
static struct sigaction old_chld;
static bool chld_caught;

static void on_child(int sig)
{
	(void)sig;
}

static void child_signal_restore(void)
{
	if (chld_caught)
		sigaction(SIGCHLD, &old_chld, NULL);
	chld_caught = false;
}

int session__hold_exit(struct session *s, struct errbuf *eb)
{
	struct sigaction sa;
	int err;

	if (session__replaying(s))
		return 0;	/* a recording's process is long gone */
	err = target__hold_exit(s->target, eb);
	if (!err)
		s->held = true;
	if (err || chld_caught)
		return err;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_child;	/* no SA_RESTART, no SA_NOCLDSTOP */
	if (sigaction(SIGCHLD, &sa, &old_chld) == 0)
		chld_caught = true;
	return 0;
}

pid_t session__target_pid(const struct session *s)
{
	return s->src->target_pid(s);
}

const char *session__target_exe(const struct session *s)
{
	return session__replaying(s) ? NULL : target__exe(s->target);
}

static pid_t live_target_pid(const struct session *s)
{
	return target__pid(s->target);
}

bool session__is_cmd(const struct session *s)
{
	return s->src->is_cmd(s);
}

static bool live_is_cmd(const struct session *s)
{
	return target__kind(s->target) == TARGET_CMD;
}

/* The live source: perf rings, read by live_run. */
static const struct session_source live_source = {
	.name = "live",
	.learns_processes = true,
	.add_tracepoint = live_add_tracepoint,
	.add_uprobe = live_add_uprobe,
	.add_software = live_add_software,
	.add_kprobe = live_add_kprobe,
	.add_memstat = live_add_memstat,
	.uprobe_locate = live_uprobe_locate,
	.set_filter = live_set_filter,
	.run = live_run,
	.stack = live_stack,
	.now = live_now,
	.wall = live_wall,
	.target_pid = live_target_pid,
	.is_cmd = live_is_cmd,
	.cmd_status = live_cmd_status,
	.dwarf = live_dwarf,
};

uint64_t session__lost(const struct session *s)
{
	/* Both count the same losses when both are complete; each can miss
	 * some (a LOST record never written, the losses of inherited events
	 * in threads, which their parent's count does not include). */
	return s->lost > s->lost_counted ? s->lost : s->lost_counted;
}

uint64_t session__pauses(const struct session *s, uint64_t *ns)
{
	/* While the drain runs (an interval's report), its pauses so far. */
	if (s->drain)
		return drain__pauses(s->drain, ns);
	if (ns)
		*ns = s->paused_ns;
	return s->pauses;
}

bool session__pause_declined(const struct session *s)
{
	if (session__replaying(s) || s->held || !s->target)
		return false;
	return (target__kind(s->target) == TARGET_CMD || target__kind(s->target) == TARGET_PID) &&
	       !pause_wanted(s);
}

uint64_t session__samples(const struct session *s)
{
	return s->samples;
}

uint64_t session__bad_records(const struct session *s)
{
	return s->bad;
}

uint64_t session__foreign(const struct session *s)
{
	return s->foreign;
}

uint64_t session__realtime(const struct session *s, uint64_t t)
{
	/* With CLOCK_MONOTONIC sample times the offset is exact; without (old
	 * kernels) the perf clock is close enough for HH:MM:SS. */
	if (t >= s->start_mono_ns || !s->use_clockid)
		return s->start_real_ns + (t - s->start_mono_ns);
	return s->start_real_ns - (s->start_mono_ns - t);
}

double session__elapsed(const struct session *s, uint64_t t)
{
	if (t <= s->start_mono_ns)
		return 0.0;
	return (double)(t - s->start_mono_ns) / 1e9;
}

struct addrspaces *session__addrspaces(struct session *s)
{
	return s->as;
}

struct stackdb *session__stackdb(struct session *s)
{
	return s->stacks;
}

struct symbolizer *session__symbolizer(struct session *s)
{
	return s->sym;
}
