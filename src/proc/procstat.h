/*
 * procstat: the one reader of the kernel's memory counters in procfs and
 * cgroupfs, for the tools' interval views (pressure), their /proc rungs
 * (reclaim, swapin, cache) and the oom precursor timeline:
 *   /proc/vmstat        named counters, a name ending in '*' summing every
 *                       counter with that prefix (allocstall became
 *                       allocstall_<zone> in 4.8; workingset_* split in
 *                       5.9); an absent name is absent, never zero;
 *   /proc/meminfo       "Key:   N kB" lines by key, the same way;
 *   PSI files           /proc/pressure/memory and a cgroup v2
 *                       memory.pressure: "some|full avg10= avg60= avg300=
 *                       total=" (total in microseconds, since boot or the
 *                       cgroup's creation), and PSI triggers written to
 *                       them (Documentation/accounting/psi.rst);
 *   mounts              where a cgroup hierarchy is mounted.
 * mem_sample__read() takes all the indicators at once, for callers that
 * diff two samples.  Pure parsers are split from the reads for tests.
 */
#ifndef FAULTLINE_PROCSTAT_H
#define FAULTLINE_PROCSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/errbuf.h"

/* The value of a counter the kernel does not have. */
#define VMSTAT_ABSENT UINT64_MAX
#define PROCSTAT_ABSENT VMSTAT_ABSENT

/**
 * vmstat__parse() - look counters up in the text of /proc/vmstat
 * @text:  "name value\n" lines; not modified
 * @names: NULL-terminated; "pswpin" is one counter, "allocstall*" the sum
 *         of every counter whose name starts with "allocstall"
 * @vals:  receives one value per name, VMSTAT_ABSENT when no line matched
 *
 * Pure, for tests.  Lines that do not parse are skipped.
 */
void vmstat__parse(const char *text, const char *const *names, uint64_t *vals);

/**
 * vmstat__read() - vmstat__parse() of <@procfs>/vmstat
 * @procfs: procfs root; NULL means "/proc"
 *
 * Return: 0, or -errno of the read with the path in @eb.
 */
int vmstat__read(const char *procfs, const char *const *names, uint64_t *vals, struct errbuf *eb);

/* Counter delta @now - @then, 0 when either is absent or the counter went
 * backwards (never a negative or huge number). */
uint64_t vmstat__delta(uint64_t now, uint64_t then);

/**
 * meminfo__parse() - values (kB as the file has them) of /proc/meminfo keys
 * @text:  "Key:   N kB\n" lines
 * @names: NULL-terminated keys without the colon ("MemAvailable")
 * @vals:  one value per key, PROCSTAT_ABSENT when the key is missing
 */
void meminfo__parse(const char *text, const char *const *names, uint64_t *vals);

/** meminfo__read() - meminfo__parse() of <@procfs>/meminfo; as vmstat__read(). */
int meminfo__read(const char *procfs, const char *const *names, uint64_t *vals, struct errbuf *eb);

/* One line of a PSI file. */
struct psi_line {
	bool have;
	double avg10, avg60, avg300;	/* percent */
	uint64_t total_us;		/* stall time since the start */
};

struct psi {
	struct psi_line some, full;	/* full is absent from the CPU file before 5.13 */
};

/** psi__parse() - the text of a PSI file; -ENOENT when it has no "some" line. */
int psi__parse(const char *text, struct psi *out);

/** psi__read() - psi__parse() of @path; -errno of the read (path in @eb). */
int psi__read(const char *path, struct psi *out, struct errbuf *eb);

/**
 * psi_trigger__parse() - "some 150ms/1s" (or "full 100ms/2s", units us, ms, s)
 * @full:      set for "full"
 * @stall_us:  the stall threshold
 * @window_us: the window; the kernel wants 500 ms to 10 s, a threshold
 *             below the window
 *
 * Return: 0, or -EINVAL with the reason in @eb.
 */
int psi_trigger__parse(const char *spec, bool *full, uint64_t *stall_us, uint64_t *window_us,
		       struct errbuf *eb);

/**
 * psi_trigger__open() - register a trigger on PSI file @path
 * @fd: receives the descriptor to poll for POLLPRI; the trigger lives
 *      until it is closed
 *
 * Return: 0, or -errno (EPERM: triggers on the system file need
 * CAP_SYS_RESOURCE before 6.5; EINVAL: the kernel refused the window).
 */
int psi_trigger__open(const char *path, bool full, uint64_t stall_us, uint64_t window_us, int *fd,
		      struct errbuf *eb);

/**
 * procstat__cgroup_mount() - where a cgroup hierarchy is mounted
 * @procfs:     procfs root whose self/mounts is read; NULL means "/proc"
 * @controller: a v1 controller ("memory"): the cgroup mount carrying that
 *              option; NULL: the cgroup2 mount
 * @out:        receives the mount point, "" when there is none
 */
void procstat__cgroup_mount(const char *procfs, const char *controller, char *out, size_t n);

/**
 * procstat__cgroup_pressure() - a cgroup named on a command line (-G)
 * @arg:      a directory, or a path below the cgroup2 mount
 * @dir:      receives the directory
 * @pressure: receives its memory.pressure, "" when it has none (a v1
 *            hierarchy's directory: v1 keeps no PSI per cgroup)
 *
 * Return: 0, or -ENOENT when there is no such cgroup (detail in @eb).
 */
int procstat__cgroup_pressure(const char *arg, char *dir, size_t ndir, char *pressure,
			      size_t npressure, struct errbuf *eb);

/**
 * procstat__pid_cgroup_pressure() - the memory.pressure of process @pid's
 * cgroup v2 group (<@procfs>/PID/cgroup's "0::" line)
 * @out: receives the file, "" when there is none (no v2 group, the root
 *       group, no such process)
 */
void procstat__pid_cgroup_pressure(const char *procfs, int pid, char *out, size_t n);

/* The indicators of memory pressure, as mem_sample__read() takes them.
 * _US are cumulative stall microseconds, counters are cumulative, the
 * MemAvailable gauge is in kB. */
enum mem_ind {
	MI_PSI_SOME_US,		/* /proc/pressure/memory */
	MI_PSI_FULL_US,
	MI_CG_SOME_US,		/* the cgroup's memory.pressure (v2) */
	MI_CG_FULL_US,
	MI_MEMAVAIL_KB,		/* /proc/meminfo MemAvailable */
	MI_PGMAJFAULT,		/* /proc/vmstat ... */
	MI_PSWPIN,
	MI_PSWPOUT,
	MI_ALLOCSTALL,		/* direct reclaim entries, allocstall* */
	MI_COMPACT_STALL,
	MI_OOM_KILL,
	MI__COUNT
};

struct mem_sample {
	uint64_t time_ns;		/* CLOCK_MONOTONIC when read */
	uint64_t v[MI__COUNT];		/* PROCSTAT_ABSENT where unknown */
	double avg10[4];		/* of MI_PSI_SOME_US .. MI_CG_FULL_US; -1 unknown */
};

/* The name of indicator @i ("psi_some_us"), for JSON and messages. */
const char *mem_ind__name(enum mem_ind i);
/* Where it is read from ("/proc/vmstat pgmajfault"). */
const char *mem_ind__source(enum mem_ind i);
/* Whether it is a level (MemAvailable) rather than a cumulative counter. */
bool mem_ind__gauge(enum mem_ind i);

/* mem_sample__read() flags: leave the system's PSI unread (see cmd-pressure.c:
 * a read can swallow an unprivileged trigger's event). */
#define MEM_SAMPLE_NO_SYSTEM_PSI (1u << 0)

/**
 * mem_sample__read() - every indicator now
 * @procfs:      procfs root; NULL means "/proc"
 * @cg_pressure: a cgroup v2 memory.pressure file, or NULL
 * @flags:       MEM_SAMPLE_*
 *
 * A file that cannot be read leaves its indicators absent: a kernel
 * without PSI still has vmstat.  Return: 0, or -errno when neither
 * /proc/vmstat nor /proc/meminfo could be read (detail in @eb).
 */
int mem_sample__read(const char *procfs, const char *cg_pressure, unsigned int flags,
		     struct mem_sample *out, struct errbuf *eb);

#endif
