/*
 * live-top: the --live screen of leak and heap, top-like (memray's live
 * mode, top's keys): the stacks holding the most outstanding bytes, one a
 * row, redrawn every interval:
 *
 *   faultline leak [0:12]  2104040 bytes in 42 blocks, 9 stacks; 812 events/s, 0 lost
 *   sort: outstanding (o outstanding, g growth, i interval, b blocks)  j/k scroll  q quit  rows 1-9 of 9
 *    OUTSTANDING    BLOCKS       GROWTH     INTERVAL  STACK
 *        2097152         2     +2097152           +0  leak_big+0x1d [leak-target] < run_leaks < main
 *
 * OUTSTANDING and BLOCKS are what the stack holds now; GROWTH the change
 * in its bytes since the first screen (the reference: what a program held
 * one interval in is its start-up), INTERVAL since the screen before.
 * STACK is the innermost frame that is not the allocator's (malloc, mmap,
 * operator new, kmalloc, the page allocator...), as the text report names
 * a frame (function+offset [module]), then its callers' functions while
 * the line has room.
 *
 * The tool feeds it through one callback that calls live_top__add() for
 * what each stack holds (per block or per stack: the figures of one stack
 * add up); the screen is cmd/out/screen.h's.  It may call the session
 * (its clock, counters, stacks and symbolizer), cmd/out/screen and
 * cmd/out/report; it prints on stdout only.
 */
#ifndef FAULTLINE_LIVE_TOP_H
#define FAULTLINE_LIVE_TOP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct session;
struct live_top;

/* The tool's reader: live_top__add() for everything outstanding now.
 * 0 or -errno. */
typedef int (*live_top_read_fn)(void *ctx, struct live_top *lt);

struct live_top_opts {
	const char *title;	/* "faultline leak" */
	bool estimates;		/* sampled (-s): the figures are estimates */
	live_top_read_fn read;
	void *ctx;
};

struct errbuf;
/*
 * live_top__check() - whether --live can run: not under record or report
 * (@replay: either), without the option @given (NULL: none given) whose
 * output would cross the screen ("--json"), and stdout a terminal.  0, or
 * -EINVAL with why in @eb ("--live draws on a terminal, and stdout is not
 * one").
 */
int live_top__check(bool replay, const char *given, struct errbuf *eb);

/* A view of @s's stacks; nothing drawn yet.  0 or -ENOMEM. */
int live_top__new(struct session *s, const struct live_top_opts *o, struct live_top **out);
/* The terminal back (live_top__end) and the view freed.  NULL is fine. */
void live_top__free(struct live_top *lt);

/* From the reader: @pid's @stack holds @bytes more in @blocks more.
 * 0 or -ENOMEM. */
int live_top__add(struct live_top *lt, pid_t pid, uint32_t stack, uint64_t bytes, uint64_t blocks);

/* An interval is over: read the tool's figures and redraw (the first
 * time, keys are read from then on).  0 or -errno. */
int live_top__refresh(struct live_top *lt);

/* Between batches of events: the keys typed (o g i b sort, arrows, j/k,
 * Page Up/Down, Home/End scroll), redrawn when they changed the view or
 * the terminal's size changed.  True when q (or Q) asks to quit. */
bool live_top__keys(struct live_top *lt);

/* The terminal as it was, before the report is printed.  Idempotent. */
void live_top__end(struct live_top *lt);

#endif
