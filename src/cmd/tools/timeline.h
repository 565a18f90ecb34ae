/*
 * timeline: what the three files of `faultline report -i FILE timeline`
 * share: its state, one per run, and the calls between them.
 *   cmd-timeline.c   the replay: rows per process and interval, the
 *                    sources' hooks, the options (what the columns are:
 *                    see there);
 *   timeline-oom.c   an OOM kill: the victim's allocation and fault sites
 *                    at the kill (agg/stack-table.h) and its precursor rows;
 *   timeline-print.c the text and JSON.
 * Private to report's timeline: no other tool includes it.
 */
#ifndef FAULTLINE_TIMELINE_H
#define FAULTLINE_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace/session.h"
#include "trace/tp-catalog.h"

#define TOOL "report timeline"

struct alloc_trace;
struct errbuf;
struct hashmap;
struct keyed;
struct major_pair;
struct mem_row;
struct mem_series;
struct reclaim_pair;
struct reclaim_watch;
struct replay_opts;
struct stack_site;

/* Bits of struct row's events. */
#define EV_OOM_KILL	(1u << 0)
#define EV_EXIT		(1u << 1)

struct row {
	uint64_t bin;
	uint64_t outstanding;		/* bytes at the end of the interval */
	uint64_t touched;		/* pages brought in */
	uint64_t faults, major, swapins;
	uint64_t reclaim_ns;
	unsigned int events;
	pid_t trigger;			/* EV_OOM_KILL: the task that called the killer */
};

struct proc {
	pid_t pid;
	struct row *rows;
	size_t n, cap;
};

struct kill {
	pid_t victim, trigger;
	uint64_t time;
	char comm[32];			/* the victim's, at the kill */
	/* its sites, most first: allocation stacks (leaked: bytes, and
	 * blocks, outstanding at the kill) and fault stacks of the window
	 * (calls: faults; bytes: those of the pages they brought in) */
	struct stack_site *allocs, *faults;
	size_t nallocs, nfaults;
	/* the precursor rows (oom --timeline's), taken at the first recorded
	 * sample a second or more after the kill, or at the recording's end */
	struct mem_row *pre;
	size_t npre;
	bool pre_done;
};

/* A fault of the last --before seconds: the victim's are its sites. */
struct recent {
	uint64_t time;
	pid_t pid;
	uint32_t stack;
	uint32_t image;			/* session__exec_count: stacks of an earlier image are not the victim's */
	bool touched;
};

struct tl {
	struct session *s;
	const struct replay_opts *ro;	/* --since, --until */
	pid_t only;			/* -p; 0: every process */
	uint64_t interval_ns, before_ns;
	unsigned int top;
	bool json;
	long page_size;
	/* what the recording has */
	bool have_allocs, have_faults, have_major, have_swapin, have_reclaim, have_oom;
	bool fault_error_code;		/* the tracepoint: first touch by error code */
	bool fault_stacks;		/* user stacks with the faults */
	const char *fault_event;
	struct tp_field f_addr, f_error, f_victim;
	struct alloc_trace *at;
	/* the run */
	struct keyed *procs;		/* pid -> struct proc */
	uint64_t cur_bin;
	pid_t *binned;			/* pids with a row in cur_bin */
	size_t nbinned, capbinned;
	struct hashmap *last_fault;	/* tid -> page << 1 | not present */
	/* each thread's last fault, which a major-faults event of the same
	 * thread and page then marks major (faults' rule) */
	struct major_pair *majors;
	struct hashmap *seen_pages;	/* software event: pid << 36 | page */
	struct reclaim_pair *reclaims;	/* begin/end by thread and kind */
	struct recent *win;		/* ring of recent faults, oldest at head */
	size_t whead, wlen, wcap;
	struct kill *kills;
	size_t nkills;
	/* the recorded samples (faultline:memstat), for the precursors */
	double pre_secs;
	bool have_memstat;
	struct mem_series *series;
	struct reclaim_watch *rw;
	int err;
};

/* cmd-timeline.c */
/* Whether @pid is shown (-p). */
bool tl__wanted(const struct tl *t, pid_t pid);
/* The row of @pid for the interval in progress, made when new; NULL when
 * the process is not shown or out of memory (t->err). */
struct row *tl__row(struct tl *t, pid_t pid);

/* timeline-oom.c */
/* oom:mark_victim's handler: the kill's row, and the victim's sites now. */
void tl__on_mark_victim(struct session *s, const struct sample *smp, void *ctx);
/* The recorded samples and reclaim's pairs, for the kills' precursors: 0
 * (none recorded: said at each kill) or -errno (detail in @eb). */
int tl__add_precursors(struct tl *t, struct errbuf *eb);
/* Kill @k's precursor rows, from those recorded so far (t->err). */
void tl__take_precursors(struct tl *t, struct kill *k);

/* timeline-print.c */
/* Every process's table, and its kills, on stdout. */
void tl__print(struct tl *t);

#endif
