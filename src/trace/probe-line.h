/*
 * probe-line: the text of one dynamic-event command ("p:GROUP/EVENT
 * PATH:0xOFF ARGS"), checked before anything reaches tracefs.
 *
 * The kernel takes every line of a write to dynamic_events as a command of
 * its own, splits a line at whitespace and drops what follows a '#'; so a
 * path with a newline (a library in a user's home, traced by root with -p)
 * would add or delete probes, and one with a space breaks the probe.  The
 * probe group never passes such a path: probe_line__path_ok() says which
 * paths can stand in a line as they are, and the others are probed through
 * /proc/self/fd (probe-group.c).  The builders refuse anything hostile
 * all the same, as the last line of defence.  Pure: unit-tested.
 */
#ifndef FAULTLINE_PROBE_LINE_H
#define FAULTLINE_PROBE_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/errbuf.h"

/* The kernel reads a command of at most WRITE_BUFSIZE - 2 bytes
 * (trace_parse_run_command: 4096, less the newline and the NUL). */
#define PROBE_LINE_MAX 4094
/* Paths longer than this go through /proc/self/fd, so a line with its
 * fetchargs always fits. */
#define PROBE_LINE_PATH_MAX 1024

/* Whether @path can be written into a probe line as is: '/' then only
 * [A-Za-z0-9/._+,@~=-], at most PROBE_LINE_PATH_MAX bytes.  (':' is left
 * out: 3.10 kernels take the first ':' as the start of the offset.) */
bool probe_line__path_ok(const char *path);

/*
 * probe_line__uprobe() - "p:GROUP/EVENT PATH:0x%016llx ARGS" ('r' for a
 * return probe), as libtracefs writes it, into @buf of @n bytes.
 * GROUP and EVENT must be [A-Za-z_][A-Za-z0-9_]* of at most 63 bytes,
 * PATH pass probe_line__path_ok(), ARGS (may be NULL) be printable ASCII
 * tokens without '#' joined by single spaces.  Return: 0, -EINVAL (with
 * which part in @eb), -ENAMETOOLONG for a line the kernel would refuse.
 */
int probe_line__uprobe(char *buf, size_t n, const char *group, const char *event,
		       const char *path, uint64_t off, bool retprobe, const char *fetchargs,
		       struct errbuf *eb);

/* The same for a kprobe on kernel function @func ([A-Za-z0-9_.]+). */
int probe_line__kprobe(char *buf, size_t n, const char *group, const char *event,
		       const char *func, bool retprobe, const char *fetchargs, struct errbuf *eb);

/*
 * probe_line__unhex() - @args with every hexadecimal fetch type (":x8",
 * ":x16", ":x32", ":x64") turned into the unsigned type of its width
 * (":u8" ...), into @out of @n bytes.  The x types came with Linux 4.x;
 * 3.10 (RHEL 7) refuses a probe that uses one (EINVAL), while the u types
 * record the same bytes (a u64 field either way in the event's format).
 * Return: true when @args had one (then @out is the rewrite), false when
 * there was none or @out is too small (@out is then "").
 */
bool probe_line__unhex(const char *args, char *out, size_t n);

/*
 * probe_line__kernel_error() - the kernel's word on command @cmd: the
 * message of the last entry of @log (the text of tracefs's error_log,
 * read after the write) whose "Command:" is @cmd, without its timestamp
 * ("trace_uprobe: error: Invalid register name"), into @msg: one line.
 * Only entries that @before (the log read just before the write; NULL or
 * "" for an empty one) did not hold count: an older entry, of another
 * command or of this very text (a probe of the same name and place that
 * failed before, a pid reused), is never quoted.  The log is a ring of a
 * few entries (8 on 6.18: TRACING_LOG_ERRS_MAX), which drops its oldest as
 * it adds, so its length before is no offset into it after: what follows
 * @before's last entry is new, and all of @log when that entry is gone
 * (dropped, or the log cleared).  Return: true when there is one.
 */
bool probe_line__kernel_error(const char *before, const char *log, const char *cmd, char *msg,
			      size_t n);

#endif
