/*
 * status: the one line a tracing tool keeps on a terminal while it runs,
 * so that a run that prints nothing until Ctrl-C is seen to be alive:
 *
 *	[0:06] 1,234 events/s, 0 lost; 4.00 MiB outstanding in 1 allocation
 *
 * elapsed time, the rate of events over the last second or two, the
 * events the kernel dropped, and the tool's headline (struct
 * tool.headline: its fields separated by ", ", the least wanted last, as
 * a narrow terminal loses the fields that do not fit).  It is drawn on
 * stderr when that is a terminal (not under --quiet, never into a pipe or
 * a file), at most STATUS_REDRAWS_PER_SEC times a second of the caller's
 * clock, and erased ("\r", clear to the end of the line) before anything
 * else reaches the terminal: status__take_streams() routes stdio's stderr,
 * and stdout when it is the same terminal, through one write function
 * that erases the line first, so no warning, banner, report or event line
 * of any tool is written after it on its row.
 *
 * status__render() is pure (tests/unit/test-status.c); the rest writes to
 * the file descriptor it is given and swaps stdio's stream pointers (a
 * glibc extension: stdout and stderr are assignable there).  It knows
 * nothing of sessions: the driver (tool.c) hands it the figures.
 */
#ifndef FAULTLINE_STATUS_H
#define FAULTLINE_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* At most this many redraws a second; any two are 1/this s apart. */
#define STATUS_REDRAWS_PER_SEC 4

/* What one line shows. */
struct status_figures {
	uint64_t elapsed_ns;	/* since tracing began */
	uint64_t rate;		/* events a second */
	uint64_t lost;		/* events the kernel dropped so far */
	const char *headline;	/* the tool's, or NULL / "": none */
};

/*
 * status__render() - the line of @f, without "\r" or newline, cut to at
 * most @width - 1 columns (the last column of a terminal wraps on some)
 * between fields (", " and "; " separate them, in the tool's headline
 * too), the separator dropped; the elapsed time alone (or nothing) when
 * the first field does not fit.  @width 0: 80.  Written to @buf (@n
 * bytes, always terminated when @n > 0).
 *
 * Return: the length written.
 */
size_t status__render(const struct status_figures *f, size_t width, char *buf, size_t n);

/*
 * status__wanted() - whether a live run draws the line: stderr is a
 * terminal, not a dumb one (TERM=dumb: no clear to the end of the line),
 * and @quiet (--quiet) is not given.
 */
bool status__wanted(bool quiet);

/* Whether stdout is a terminal, the one stderr is: the line must then
 * never be left up when a line goes to stdout (status__take_streams). */
bool status__stdout_shared(void);

struct status;

/*
 * status__new() - a status line drawn on @fd (a terminal; a pipe in the
 * tests), its clock starting at @now_ns with @events counted so far.
 * Nothing is drawn yet.  0 or -ENOMEM; status__free() frees it.
 */
int status__new(int fd, uint64_t now_ns, uint64_t events, struct status **out);

/*
 * status__take_streams() - from now on until status__free(), stdio's
 * stderr, and stdout when @stdout_too (it is the same terminal), write
 * through status's write function, which erases the line first.  Both are
 * line-buffered while taken.  0, or -errno (nothing taken).
 */
int status__take_streams(struct status *st, bool stdout_too);

/* Whether status__show() at @now_ns would look: it never did, or last
 * did 1/STATUS_REDRAWS_PER_SEC s or more ago (a caller gathers the
 * figures only then). */
bool status__due(const struct status *st, uint64_t now_ns);

/*
 * status__show() - when status__due(), draw the line for @now_ns unless
 * the same line is still up (each look, drawn or not, counts against the
 * rate, so the line is drawn at most STATUS_REDRAWS_PER_SEC times a
 * second, the first at once):
 * @events and @lost are totals so far, @headline the tool's (NULL: none).
 * stdout and stderr are flushed first, so the line follows what they hold.
 * Nothing after status__end().
 */
void status__show(struct status *st, uint64_t now_ns, uint64_t events, uint64_t lost,
		  const char *headline);

/* Erase the line if it is up; a later status__show() may draw it again. */
void status__erase(struct status *st);

/* Erase the line for good: the report follows.  NULL is ignored. */
void status__end(struct status *st);

/* How many times the line was drawn (for the tests). */
uint64_t status__draws(const struct status *st);

/* Erase the line, give stdout and stderr back (flushed), free.  NULL is
 * ignored. */
void status__free(struct status *st);

#endif
