/*
 * lost: the one way faultline says that events were lost, and what would
 * have kept them, in the same line (perf says "Check IO/CPU overload!"
 * for its lost chunks; a user told only that the figures are short has
 * nothing to do about it).
 */
#ifndef FAULTLINE_LOST_H
#define FAULTLINE_LOST_H

#include <stddef.h>
#include <stdint.h>

struct session;

/*
 * lost__remedy() - what would have lost none of a run of @tool on @s, as
 * "to lose none, run again with -m 16384 (the rings had 4096 pages a
 * CPU), --call-graph fp (no stack copy in each sample) or -s 10 (one
 * allocation in 10)": back-pressure first when the run declined it
 * (--no-pause for a command, no --pause for -p); -m always, unless at
 * its largest; --call-graph fp
 * when the events take DWARF stacks; -s for a tool that samples (leak).
 * On a recording, "record again with ...".  Written to @buf (@n bytes,
 * always terminated); returns @buf.
 */
const char *lost__remedy(const struct session *s, const char *tool, char *buf, size_t n);

/*
 * lost__warn() - "faultline TOOL: warning: lost N events: WHAT; REMEDY"
 * on stderr, stdout flushed first (it precedes what it shortens); N with
 * thousands separators, "1,234" (lib/numfmt).
 * @what: what the loss does to the figures, in the tool's terms; NULL for
 * "the counts are low".
 */
void lost__warn(const struct session *s, const char *tool, uint64_t lost, const char *what);

/*
 * lost__paused() - what back-pressure did, in one line: "the target was
 * paused 3 times, 41 ms in all, so that no event was lost" (", and events
 * were still lost" when some were); counts, and milliseconds from 10 on,
 * with thousands separators ("2,082 ms").  Written to @buf (@n bytes); returns
 * @buf, or NULL when the target was never paused (nothing to say).
 */
const char *lost__paused(const struct session *s, char *buf, size_t n);

#endif
